package io.eyrie.multicast;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import java.util.List;
import java.util.Objects;

/**
 * Mutual TLS between the nodes of a cluster (ZooKeeper's {@code sslQuorum}; ADR 061): every node presents the
 * certificate of its key store and accepts a peer only if the peer's certificate chains to its trust store,
 * in both directions of every connection. With host name verification (ZooKeeper's
 * {@code ssl.quorum.hostnameVerification}, on by default; ADR 065) a certificate must also name the host the
 * cluster file gives its holder: a dialling node checks the peer it dialled, an accepting node checks the
 * host of the node id the peer claims in its hello. Without it, any certificate the trust store accepts makes
 * its holder a member, whatever node id it claims.
 */
public final class PeerTls {
    /** TLS 1.3 and 1.2. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** The contexts built from the stores' current contents. */
    private record Contexts(SslContext server, SslContext client, javax.net.ssl.SSLContext blocking) {
    }

    private final List<String> protocols;
    private final List<String> ciphers;
    private final boolean hostnameVerification;
    private final StoreReloader<Contexts> contexts;
    private final boolean reloadFiles;
    private final TlsStore.Revocation trustRevocation;

    /**
     * @param keyStore   this node's key and certificate chain
     * @param trustStore the certificates a peer's must chain to (the cluster's CA)
     * @param protocols  enabled protocols, empty for {@link #DEFAULT_PROTOCOLS}
     * @param ciphers    enabled cipher suites, empty for the JVM's defaults
     * @throws IllegalArgumentException naming the store or setting that could not be used
     */
    public PeerTls(TlsStore keyStore, TlsStore trustStore, List<String> protocols, List<String> ciphers) {
        this(keyStore, trustStore, protocols, ciphers, true);
    }

    /**
     * The same, choosing whether certificates must name their holders' hosts (ZooKeeper's default: they must).
     *
     * @param hostnameVerification whether a peer's certificate must name the host the cluster file gives it
     */
    public PeerTls(TlsStore keyStore, TlsStore trustStore, List<String> protocols, List<String> ciphers,
                   boolean hostnameVerification) {
        this(keyStore, trustStore, protocols, ciphers, hostnameVerification, false);
    }

    /**
     * The same, choosing whether changed store files are taken up without a restart (ZooKeeper's
     * {@code sslQuorumReloadCertFiles}; ADR 066): a transport then watches them, and its new connections use
     * what they hold.
     */
    public PeerTls(TlsStore keyStore, TlsStore trustStore, List<String> protocols, List<String> ciphers,
                   boolean hostnameVerification, boolean reloadFiles) {
        this.hostnameVerification = hostnameVerification;
        this.reloadFiles = reloadFiles;
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(trustStore, "trustStore");
        this.protocols = protocols == null || protocols.isEmpty() ? DEFAULT_PROTOCOLS : List.copyOf(protocols);
        this.ciphers = ciphers == null || ciphers.isEmpty() ? null : List.copyOf(ciphers);
        this.trustRevocation = trustStore.revocation();
        this.contexts = new StoreReloader<>("TLS between nodes", List.of(keyStore.location(), trustStore.location()),
                () -> build(keyStore, trustStore));
    }

    private Contexts build(TlsStore keyStore, TlsStore trustStore) {
        KeyManagerFactory kmf = keyStore.keyManagerFactory();
        TrustManagerFactory tmf = trustStore.trustManagerFactory();
        try {
            SslContext server = SslContextBuilder.forServer(kmf).trustManager(tmf).clientAuth(ClientAuth.REQUIRE)
                    .sslProvider(SslProvider.JDK).protocols(protocols).ciphers(ciphers).build();
            // the dialled host is the cluster file's: with verification its certificate must name it
            SslContext client = SslContextBuilder.forClient().keyManager(kmf).trustManager(tmf)
                    .endpointIdentificationAlgorithm(hostnameVerification ? "HTTPS" : null)
                    .sslProvider(SslProvider.JDK).protocols(protocols).ciphers(ciphers).build();
            // the same keys and trust for blocking sockets (SideChannel's asking side)
            javax.net.ssl.SSLContext blocking = javax.net.ssl.SSLContext.getInstance("TLS");
            blocking.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return new Contexts(server, client, blocking);
        } catch (SSLException | java.security.GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("cannot set up TLS between nodes: " + e.getMessage(), e);
        }
    }

    /** How peers' certificates' revocation is checked (ssl.quorum.crl, ssl.quorum.ocsp; ADR 067). */
    public TlsStore.Revocation trustRevocation() {
        return trustRevocation;
    }

    /** Whether changed store files are to be taken up without a restart. */
    public boolean reloadsFiles() {
        return reloadFiles;
    }

    /** The stores' contents behind new connections, and how often they changed (for watching and counting). */
    public StoreReloader<?> stores() {
        return contexts;
    }

    /**
     * TLS over the connected socket {@code plain} to the peer at {@code host:port}, as a dialling node
     * (this node's certificate, the peer's checked against the trust store and, with host name verification,
     * against {@code host}), with the handshake done.
     *
     * @throws IOException when the handshake fails; {@code plain} is closed then
     */
    public javax.net.ssl.SSLSocket dial(java.net.Socket plain, String host, int port) throws java.io.IOException {
        javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) contexts.current().blocking().getSocketFactory()
                .createSocket(plain, host, port, true);
        try {
            tls.setUseClientMode(true);
            if (hostnameVerification) {
                javax.net.ssl.SSLParameters parameters = tls.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(parameters);
            }
            tls.setEnabledProtocols(protocols.toArray(String[]::new));
            if (ciphers != null) {
                tls.setEnabledCipherSuites(ciphers.toArray(String[]::new));
            }
            tls.startHandshake();
            return tls;
        } catch (java.io.IOException | RuntimeException e) {
            tls.close();
            throw e;
        }
    }

    /** The accepting side of a connection from a peer: it must present a trusted certificate. */
    public SslHandler acceptingHandler(ByteBufAllocator alloc) {
        return contexts.current().server().newHandler(alloc);
    }

    /** The dialling side of a connection to the peer at {@code host:port}. */
    public SslHandler diallingHandler(ByteBufAllocator alloc, String host, int port) {
        return contexts.current().client().newHandler(alloc, host, port);
    }

    /** Whether peers' certificates must name their hosts. */
    public boolean verifiesHostnames() {
        return hostnameVerification;
    }

    /**
     * Null when a peer of the accepting side may be the node the cluster file puts at {@code host}: host name
     * verification is off, or the certificate it presented in {@code session} names {@code host}; otherwise why
     * not.
     */
    public String hostMismatch(javax.net.ssl.SSLSession session, String host) {
        if (!hostnameVerification) {
            return null;
        }
        java.security.cert.Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
            return "it presented no certificate";
        }
        if (chain.length == 0 || !(chain[0] instanceof java.security.cert.X509Certificate leaf)) {
            return "it presented no X.509 certificate";
        }
        return CertificateHosts.mismatch(leaf, host);
    }

    public List<String> protocols() {
        return protocols;
    }
}
