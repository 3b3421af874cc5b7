package io.volery.server.clients;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Key and trust stores for the TLS tests, made by the JDK's own {@code keytool} (and PEM copies by
 * {@code openssl} for kazoo): a test CA; a server certificate for localhost and 127.0.0.1; client
 * certificates for alice, bob and the x509 super user, signed by the CA; and mallory's, self-signed, which
 * nothing trusts. Every store is PKCS12 with the password {@link #PASSWORD}.
 */
public final class TlsFiles {
    public static final String PASSWORD = "volery-test";
    public static final String ALICE = "CN=alice,O=Volery Tests";
    public static final String BOB = "CN=bob,O=Volery Tests";
    public static final String ADMIN = "CN=admin,O=Volery Tests";
    public static final String MALLORY = "CN=mallory,O=Elsewhere";
    private static final String KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();

    final Path dir;

    private TlsFiles(Path dir) {
        this.dir = dir;
    }

    /** The CA-trusting store (for the server's client certificates and the clients' server certificate). */
    public Path trust() {
        return dir.resolve("trust.p12");
    }

    public Path server() {
        return dir.resolve("server.p12");
    }

    /** A client's key store: alice, bob, admin or mallory. */
    Path client(String name) {
        return dir.resolve(name + ".p12");
    }

    /** A client's key and certificate chain as PEM files (kazoo's keyfile and certfile), and the CA's. */
    Path pemKey(String name) {
        return dir.resolve(name + "-key.pem");
    }

    Path pemChain(String name) {
        return dir.resolve(name + "-chain.pem");
    }

    Path caPem() {
        return dir.resolve("ca.pem");
    }

    public static TlsFiles create(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        TlsFiles f = new TlsFiles(dir);
        Path ca = dir.resolve("ca.p12");
        keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=Volery Test CA", "-ext", "bc:c", "-validity", "30", "-keystore", ca.toString());
        keytool(dir, "-exportcert", "-alias", "ca", "-rfc", "-file", f.caPem().toString(), "-keystore", ca.toString());
        keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-file", f.caPem().toString(), "-keystore",
                f.trust().toString());
        signed(f, ca, "server", "CN=localhost,O=Volery Tests");
        signed(f, ca, "alice", ALICE);
        signed(f, ca, "bob", BOB);
        signed(f, ca, "admin", ADMIN);
        // mallory signs her own certificate: a stranger to the CA
        keytool(dir, "-genkeypair", "-alias", "mallory", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", MALLORY,
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "30", "-keystore", f.client("mallory").toString());
        return f;
    }

    private static void signed(TlsFiles f, Path ca, String name, String dn) throws IOException, InterruptedException {
        Path store = f.client(name);
        Path csr = f.dir.resolve(name + ".csr");
        Path cert = f.dir.resolve(name + ".pem");
        keytool(f.dir, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn,
                "-validity", "30", "-keystore", store.toString());
        keytool(f.dir, "-certreq", "-alias", name, "-file", csr.toString(), "-keystore", store.toString());
        keytool(f.dir, "-gencert", "-alias", "ca", "-infile", csr.toString(), "-outfile", cert.toString(), "-rfc",
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "30", "-keystore", ca.toString());
        keytool(f.dir, "-importcert", "-noprompt", "-alias", "ca", "-file", f.caPem().toString(), "-keystore",
                store.toString());
        keytool(f.dir, "-importcert", "-alias", name, "-file", cert.toString(), "-keystore", store.toString());
    }

    /** PEM copies of a client's key and chain, for clients that read no PKCS12 (kazoo). */
    void exportPem(String name) throws IOException, InterruptedException {
        run(dir, List.of("openssl", "pkcs12", "-in", client(name).toString(), "-passin", "pass:" + PASSWORD, "-nodes",
                "-nocerts", "-out", pemKey(name).toString()));
        run(dir, List.of("openssl", "pkcs12", "-in", client(name).toString(), "-passin", "pass:" + PASSWORD,
                "-nokeys", "-out", pemChain(name).toString()));
    }

    private static void keytool(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(KEYTOOL, "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto"));
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD, "-storetype", "PKCS12"));
        run(dir, command);
    }

    private static void run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("failed (" + p.exitValue() + "): " + command + "\n" + out);
        }
    }
}
