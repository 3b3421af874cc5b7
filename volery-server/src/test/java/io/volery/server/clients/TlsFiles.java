package io.volery.server.clients;

import io.eyrie.multicast.DevCertificates;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Key and trust stores for the TLS tests ({@link DevCertificates}, the JDK's keytool; PEM copies by
 * {@code openssl} for kazoo): the CA; a server certificate for localhost and 127.0.0.1; client
 * certificates for alice, bob and the x509 super user, signed by the CA; and mallory's, self-signed, which
 * nothing trusts. Every store is PKCS12 with the password {@link #PASSWORD}.
 */
public final class TlsFiles {
    public static final String PASSWORD = "volery-test";
    public static final String ALICE = "CN=alice,O=Volery Tests";
    public static final String BOB = "CN=bob,O=Volery Tests";
    public static final String ADMIN = "CN=admin,O=Volery Tests";
    public static final String MALLORY = "CN=mallory,O=Elsewhere";
    /** Signed by the CA, for the address 10.9.9.9 only: refused where client host names are verified. */
    public static final String CAROL = "CN=carol,O=Volery Tests";

    final Path dir;
    private final DevCertificates certificates;

    private TlsFiles(DevCertificates certificates) {
        this.certificates = certificates;
        this.dir = certificates.dir();
    }

    /** The CA-trusting store (for the server's client certificates and the clients' server certificate). */
    public Path trust() {
        return certificates.trustStore();
    }

    public Path server() {
        return certificates.store("server");
    }

    /** Another key store for the server, signed by the same CA (a rotation). */
    public Path rotatedServer() {
        return certificates.store("server-rotated");
    }

    /** A client's key store: alice, bob, admin, carol or mallory. */
    Path client(String name) {
        return certificates.store(name);
    }

    /** A client's key and certificate chain as PEM files (kazoo's keyfile and certfile). */
    Path pemKey(String name) {
        return dir.resolve(name + "-key.pem");
    }

    Path pemChain(String name) {
        return dir.resolve(name + "-chain.pem");
    }

    public static TlsFiles create(Path dir) throws IOException, InterruptedException {
        DevCertificates c = DevCertificates.create(dir, PASSWORD);
        c.signed("server", "CN=localhost,O=Volery Tests");
        c.signed("server-rotated", "CN=localhost,O=Volery Tests Rotated");
        c.signed("alice", ALICE);
        c.signed("bob", BOB);
        c.signed("admin", ADMIN);
        c.signed("carol", CAROL, "ip:10.9.9.9");
        c.selfSigned("mallory", MALLORY);
        return new TlsFiles(c);
    }

    /**
     * Stores of a CA of their own whose client certificates name {@code crlUri} as their CRL distribution point
     * (ADR 067): alice's is good, bob's revoked; the CA's revocation list is written to {@code dir/ca.crl}.
     */
    public static TlsFiles withRevocationList(Path dir, String crlUri) throws IOException, InterruptedException {
        DevCertificates c = DevCertificates.create(dir, PASSWORD);
        c.signed("server", "CN=localhost,O=Volery Tests");
        c.signed("alice", ALICE, "dns:localhost,ip:127.0.0.1", crlUri);
        c.signed("bob", BOB, "dns:localhost,ip:127.0.0.1", crlUri);
        c.revoke("bob");
        c.writeCrl(dir.resolve("ca.crl"));
        return new TlsFiles(c);
    }

    /** PEM copies of a client's key and chain, for clients that read no PKCS12 (kazoo). */
    void exportPem(String name) throws IOException, InterruptedException {
        DevCertificates.run(dir, List.of("openssl", "pkcs12", "-in", client(name).toString(), "-passin", "pass:" + PASSWORD,
                "-nodes", "-nocerts", "-out", pemKey(name).toString()));
        DevCertificates.run(dir, List.of("openssl", "pkcs12", "-in", client(name).toString(), "-passin", "pass:" + PASSWORD,
                "-nokeys", "-out", pemChain(name).toString()));
    }
}
