package io.volery.server.frontend;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManagerFactory;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * TLS on the client port, as ZooKeeper's {@code secureClientPort} (ADR 060): the server's key and
 * certificate from a key store, the certificates it trusts for client certificates from a trust store,
 * whether clients must present one ({@code ssl.clientAuth}), and the protocols and cipher suites.
 * A client that presents a trusted certificate is authenticated as {@code x509:<subject DN>} (RFC 2253,
 * as ZooKeeper's {@code X509AuthenticationProvider}), and as {@code super} too when that DN is the
 * configured x509 super user.
 *
 * With client host name verification (ZooKeeper's {@code ssl.clientHostnameVerification}, off by default for
 * the client port, and only with {@code ssl.hostnameVerification}, on by default; ADR 065), a certificate a
 * client presents must also name the address it connects from (an IP subject alternative name; no reverse
 * lookup), or the handshake fails.
 *
 * @param portUnification the plaintext client port also accepts TLS (ZooKeeper's
 *                        {@code client.portUnification}): a connection whose first byte starts a TLS
 *                        handshake is served over TLS
 */
public final class ClientTls {

    /** ZooKeeper's {@code ssl.clientAuth}. */
    public enum Auth {
        /** A client must present a trusted certificate (ZooKeeper's default). */
        NEED,
        /** A client may present one; if it does, it must be trusted. */
        WANT,
        /** Client certificates are not asked for. */
        NONE;

        /** need, want or none (any case); null for the default (need). */
        public static Auth parse(String value) {
            if (value == null || value.isBlank()) {
                return NEED;
            }
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "need" -> NEED;
                case "want" -> WANT;
                case "none" -> NONE;
                default -> throw new IllegalArgumentException("must be need, want or none, got '" + value + "'");
            };
        }
    }

    /** TLS 1.3 and 1.2: ZooKeeper 3.9 speaks 1.3 by default, older clients 1.2. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private final io.eyrie.multicast.StoreReloader<SslContext> context;
    private final boolean reloadFiles;
    private final io.eyrie.multicast.TlsStore.Revocation revocation;
    private final Auth auth;
    private final String superUser;
    private final boolean portUnification;
    private final List<String> protocols;
    private final boolean clientHostnameVerification;

    /**
     * @param keyStore   the server's key and certificate chain
     * @param trustStore the certificates trusted for client certificates; null: the JVM's default trust
     * @param protocols  the enabled protocols; empty for {@link #DEFAULT_PROTOCOLS}
     * @param ciphers    the enabled cipher suites; empty for the JVM's defaults
     * @param superUser  the x509 subject DN that is a super user, or null
     * @throws IllegalArgumentException naming the store or setting that could not be used
     */
    public ClientTls(io.eyrie.multicast.TlsStore keyStore, io.eyrie.multicast.TlsStore trustStore, Auth auth, List<String> protocols, List<String> ciphers,
                     String superUser, boolean portUnification) {
        this(keyStore, trustStore, auth, protocols, ciphers, superUser, portUnification, false);
    }

    /**
     * The same, choosing whether client certificates must name the address their client connects from.
     *
     * @param clientHostnameVerification ZooKeeper's {@code ssl.hostnameVerification && ssl.clientHostnameVerification}
     */
    public ClientTls(io.eyrie.multicast.TlsStore keyStore, io.eyrie.multicast.TlsStore trustStore, Auth auth, List<String> protocols, List<String> ciphers,
                     String superUser, boolean portUnification, boolean clientHostnameVerification) {
        this(keyStore, trustStore, auth, protocols, ciphers, superUser, portUnification, clientHostnameVerification, false);
    }

    /**
     * The same, choosing whether changed store files are taken up without a restart (ZooKeeper's
     * {@code client.certReload}; ADR 066): the front end then watches them, and its new connections use them.
     */
    public ClientTls(io.eyrie.multicast.TlsStore keyStore, io.eyrie.multicast.TlsStore trustStore, Auth auth, List<String> protocols, List<String> ciphers,
                     String superUser, boolean portUnification, boolean clientHostnameVerification, boolean reloadFiles) {
        this.clientHostnameVerification = clientHostnameVerification;
        this.reloadFiles = reloadFiles;
        this.revocation = trustStore == null ? io.eyrie.multicast.TlsStore.Revocation.NONE : trustStore.revocation();
        this.auth = Objects.requireNonNull(auth, "auth");
        this.superUser = superUser == null || superUser.isBlank() ? null : superUser.strip();
        this.portUnification = portUnification;
        this.protocols = protocols == null || protocols.isEmpty() ? DEFAULT_PROTOCOLS : List.copyOf(protocols);
        Objects.requireNonNull(keyStore, "keyStore");
        List<java.nio.file.Path> files = trustStore == null ? List.of(keyStore.location())
                : List.of(keyStore.location(), trustStore.location());
        this.context = new io.eyrie.multicast.StoreReloader<>("TLS on the client port", files,
                () -> build(keyStore, trustStore, auth, this.protocols, ciphers));
    }

    private static SslContext build(io.eyrie.multicast.TlsStore keyStore, io.eyrie.multicast.TlsStore trustStore, Auth auth,
                                    List<String> protocols, List<String> ciphers) {
        KeyManagerFactory kmf = keyStore.keyManagerFactory();
        TrustManagerFactory tmf = trustStore == null ? null : trustStore.trustManagerFactory();
        try {
            SslContextBuilder b = SslContextBuilder.forServer(kmf)
                    .sslProvider(SslProvider.JDK)
                    .protocols(protocols)
                    .clientAuth(switch (auth) {
                        case NEED -> ClientAuth.REQUIRE;
                        case WANT -> ClientAuth.OPTIONAL;
                        case NONE -> ClientAuth.NONE;
                    });
            if (tmf != null) {
                b.trustManager(tmf);
            }
            if (ciphers != null && !ciphers.isEmpty()) {
                b.ciphers(ciphers);
            }
            return b.build();
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("cannot set up TLS for the client port: " + e.getMessage(), e);
        }
    }

    /** How client certificates' revocation is checked (ssl.crl, ssl.ocsp; ADR 067). */
    public io.eyrie.multicast.TlsStore.Revocation revocation() {
        return revocation;
    }

    /** Whether changed store files are to be taken up without a restart. */
    public boolean reloadsFiles() {
        return reloadFiles;
    }

    /** The stores' contents behind new connections, and how often they changed. */
    public io.eyrie.multicast.StoreReloader<SslContext> stores() {
        return context;
    }

    /** A handler for one accepted connection (the server side of its handshake). */
    public SslHandler newHandler(ByteBufAllocator alloc) {
        return context.current().newHandler(alloc);
    }

    /**
     * With client host name verification: null when the client on {@code remote} presented no certificate in
     * {@code session} or one that names {@code remote}'s address; otherwise why not. Null without verification.
     * (Checked after the handshake: the JDK's endpoint identification does not run on a server's side.)
     */
    public String clientHostMismatch(SSLSession session, java.net.SocketAddress remote) {
        if (!clientHostnameVerification || session == null) {
            return null;
        }
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return null; // no certificate (ssl.clientAuth = want or none): nothing to hold against the address
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
            return null;
        }
        if (!(remote instanceof java.net.InetSocketAddress inet) || inet.getAddress() == null) {
            return "the connection has no address to hold its certificate against";
        }
        return io.eyrie.multicast.CertificateHosts.mismatch(leaf, inet.getAddress().getHostAddress());
    }

    /** Whether client certificates must name the address their client connects from. */
    public boolean verifiesClientHostnames() {
        return clientHostnameVerification;
    }

    public Auth auth() {
        return auth;
    }

    public boolean portUnification() {
        return portUnification;
    }

    public List<String> protocols() {
        return protocols;
    }

    /** The x509 super user's subject DN, or null. */
    public String superUser() {
        return superUser;
    }

    /**
     * The subject DN (RFC 2253) of the certificate the client presented in {@code session}, or null when it
     * presented none. The handshake already checked it against the trust store.
     */
    public static String clientIdentity(SSLSession session) {
        if (session == null) {
            return null;
        }
        try {
            Certificate[] chain = session.getPeerCertificates();
            if (chain.length > 0 && chain[0] instanceof X509Certificate leaf) {
                return leaf.getSubjectX500Principal().getName();
            }
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
        return null;
    }
}
