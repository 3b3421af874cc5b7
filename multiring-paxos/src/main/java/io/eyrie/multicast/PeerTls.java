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
 * in both directions of every connection. A certificate the trust store accepts makes its holder a member:
 * the node id a peer then claims in its hello is not tied to its certificate.
 */
public final class PeerTls {
    /** TLS 1.3 and 1.2. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private final SslContext server;
    private final SslContext client;
    private final List<String> protocols;
    private final List<String> ciphers;
    private final javax.net.ssl.SSLContext blocking;

    /**
     * @param keyStore   this node's key and certificate chain
     * @param trustStore the certificates a peer's must chain to (the cluster's CA)
     * @param protocols  enabled protocols, empty for {@link #DEFAULT_PROTOCOLS}
     * @param ciphers    enabled cipher suites, empty for the JVM's defaults
     * @throws IllegalArgumentException naming the store or setting that could not be used
     */
    public PeerTls(TlsStore keyStore, TlsStore trustStore, List<String> protocols, List<String> ciphers) {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(trustStore, "trustStore");
        this.protocols = protocols == null || protocols.isEmpty() ? DEFAULT_PROTOCOLS : List.copyOf(protocols);
        KeyManagerFactory kmf = keyStore.keyManagerFactory();
        TrustManagerFactory tmf = trustStore.trustManagerFactory();
        List<String> cipherList = ciphers == null || ciphers.isEmpty() ? null : List.copyOf(ciphers);
        try {
            this.server = SslContextBuilder.forServer(kmf).trustManager(tmf).clientAuth(ClientAuth.REQUIRE)
                    .sslProvider(SslProvider.JDK).protocols(this.protocols).ciphers(cipherList).build();
            // nodes are named by the cluster file, not by the names in their certificates: no host name check
            this.client = SslContextBuilder.forClient().keyManager(kmf).trustManager(tmf).endpointIdentificationAlgorithm(null)
                    .sslProvider(SslProvider.JDK).protocols(this.protocols).ciphers(cipherList).build();
            // the same keys and trust for blocking sockets (SideChannel's asking side)
            this.blocking = javax.net.ssl.SSLContext.getInstance("TLS");
            blocking.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        } catch (SSLException | java.security.GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("cannot set up TLS between nodes: " + e.getMessage(), e);
        }
        this.ciphers = cipherList;
    }

    /**
     * TLS over the connected socket {@code plain} to the peer at {@code host:port}, as a dialling node
     * (this node's certificate, the peer's checked against the trust store, no host name check), with the
     * handshake done.
     *
     * @throws IOException when the handshake fails; {@code plain} is closed then
     */
    public javax.net.ssl.SSLSocket dial(java.net.Socket plain, String host, int port) throws java.io.IOException {
        javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) blocking.getSocketFactory()
                .createSocket(plain, host, port, true);
        try {
            tls.setUseClientMode(true);
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
        return server.newHandler(alloc);
    }

    /** The dialling side of a connection to the peer at {@code host:port}. */
    public SslHandler diallingHandler(ByteBufAllocator alloc, String host, int port) {
        return client.newHandler(alloc, host, port);
    }

    public List<String> protocols() {
        return protocols;
    }
}
