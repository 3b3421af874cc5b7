package io.eyrie.multicast;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a throwaway certificate authority and PKCS12 stores signed by it with the JDK's own
 * {@code keytool}, for trying TLS on one machine and for the tests (never for production keys): the CA
 * ({@code ca.p12}, {@code ca.pem}), a trust store holding only the CA ({@code trust.p12}), and per name a
 * key store ({@code NAME.p12}) with a key, its certificate (valid for localhost and 127.0.0.1) and the CA.
 * Every store has the same password. {@code java -cp multiring-paxos.jar io.eyrie.multicast.DevCertificates
 * DIR PASSWORD NAME[=SANS]...} makes the CA and one store per name ({@code CN=NAME}), for localhost and
 * 127.0.0.1 or for the subject alternative names {@code SANS} in keytool's syntax ({@code dns:n1.example,ip:10.0.0.1}):
 * with host name verification between nodes (ADR 065) a node's certificate must name its host in the cluster file.
 */
public final class DevCertificates {
    private static final String KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();

    private final Path dir;
    private final String password;

    private DevCertificates(Path dir, String password) {
        this.dir = dir;
        this.password = password;
    }

    /** A new CA in {@code dir} (created if missing). */
    public static DevCertificates create(Path dir, String password) throws IOException, InterruptedException {
        if (password.length() < 6) {
            throw new IllegalArgumentException("keytool wants a store password of at least 6 characters");
        }
        Files.createDirectories(dir);
        DevCertificates c = new DevCertificates(dir, password);
        Path ca = dir.resolve("ca.p12");
        c.keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=Eyrie Dev CA", "-ext", "bc:c", "-validity", "30", "-keystore", ca.toString());
        c.keytool("-exportcert", "-alias", "ca", "-rfc", "-file", c.caPem().toString(), "-keystore", ca.toString());
        c.keytool("-importcert", "-noprompt", "-alias", "ca", "-file", c.caPem().toString(), "-keystore",
                c.trustStore().toString());
        return c;
    }

    public Path dir() {
        return dir;
    }

    /** The CA's certificate, PEM. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** A store that trusts the CA and nothing else. */
    public Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /** {@code name}'s key store. */
    public Path store(String name) {
        return dir.resolve(name + ".p12");
    }

    /** A key store for {@code name} whose certificate, for subject {@code dn}, the CA signed. */
    public Path signed(String name, String dn) throws IOException, InterruptedException {
        return signed(name, dn, "dns:localhost,ip:127.0.0.1");
    }

    /** The same with the certificate's subject alternative names, keytool's syntax ({@code dns:x,ip:1.2.3.4}). */
    public Path signed(String name, String dn, String subjectAlternativeNames) throws IOException, InterruptedException {
        return signed(name, dn, subjectAlternativeNames, null);
    }

    /**
     * The same, the certificate naming {@code crlUri} as its CRL distribution point (null for none), where a
     * trust store that checks revocation (ADR 067) fetches the CA's revocation list ({@link #writeCrl}).
     */
    public Path signed(String name, String dn, String subjectAlternativeNames, String crlUri)
            throws IOException, InterruptedException {
        return signed(name, dn, subjectAlternativeNames, crlUri, null);
    }

    /**
     * The same, the certificate also naming {@code ocspUri} as its OCSP responder (null for none): see
     * {@link #ocspResponder}, which answers for the certificates {@link #revoke}d or {@link #valid}ated.
     */
    public Path signed(String name, String dn, String subjectAlternativeNames, String crlUri, String ocspUri)
            throws IOException, InterruptedException {
        Path store = store(name);
        Path csr = dir.resolve(name + ".csr");
        Path cert = dir.resolve(name + ".pem");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn,
                "-validity", "30", "-keystore", store.toString());
        keytool("-certreq", "-alias", name, "-file", csr.toString(), "-keystore", store.toString());
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-infile", csr.toString(), "-outfile",
                cert.toString(), "-rfc", "-ext", "SAN=" + subjectAlternativeNames, "-validity", "30", "-keystore",
                dir.resolve("ca.p12").toString()));
        if (crlUri != null) {
            gencert.addAll(List.of("-ext", "2.5.29.31=" + hex(crlDistributionPoint(crlUri))));
        }
        if (ocspUri != null) {
            gencert.addAll(List.of("-ext", "AIA=ocsp:uri:" + ocspUri));
        }
        keytool(gencert.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", caPem().toString(), "-keystore", store.toString());
        keytool("-importcert", "-alias", name, "-file", cert.toString(), "-keystore", store.toString());
        return store;
    }

    /** A key store for {@code name} whose certificate signs itself: nothing that trusts only the CA trusts it. */
    public Path selfSigned(String name, String dn) throws IOException, InterruptedException {
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn,
                "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "30", "-keystore", store(name).toString());
        return store(name);
    }

    /** Adds the certificate of {@code name}'s store to the CA's revoked ones ({@code openssl ca}). */
    public void revoke(String name) throws IOException, InterruptedException {
        openssl("ca", "-config", caConfig().toString(), "-revoke", dir.resolve(name + ".pem").toString(),
                "-keyfile", caKey().toString(), "-cert", caPem().toString());
    }

    /** Records the certificate of {@code name}'s store as valid, for the OCSP responder ({@code openssl ca -valid}). */
    public void valid(String name) throws IOException, InterruptedException {
        openssl("ca", "-config", caConfig().toString(), "-valid", dir.resolve(name + ".pem").toString(),
                "-keyfile", caKey().toString(), "-cert", caPem().toString());
    }

    /**
     * An OCSP responder on {@code port} ({@code openssl ocsp}), signing with the CA's key: good for the
     * certificates {@link #valid}ated, revoked for those {@link #revoke}d, unknown for the rest; four worker
     * processes, so that a client keeping its connection open does not hold the others up. The caller
     * destroys the process and its {@link Process#descendants() descendants}.
     */
    public Process ocspResponder(int port) throws IOException, InterruptedException {
        Path log = dir.resolve("ocsp-" + port + ".log");
        Process p = new ProcessBuilder("openssl", "ocsp", "-index", "index.txt", "-port", Integer.toString(port),
                "-rsigner", caPem().toString(), "-rkey", caKey().toString(), "-CA", caPem().toString(), "-ndays", "1",
                "-multi", "4", "-timeout", "5")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && p.isAlive()) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                return p;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new IOException("openssl ocsp did not listen on " + port + ": " + Files.readString(log));
    }

    /** Writes the CA's revocation list (DER), naming what {@link #revoke} revoked, valid for 30 days. */
    public void writeCrl(Path out) throws IOException, InterruptedException {
        Path pem = dir.resolve("crl.pem");
        openssl("ca", "-config", caConfig().toString(), "-gencrl", "-keyfile", caKey().toString(), "-cert",
                caPem().toString(), "-out", pem.toString());
        openssl("crl", "-in", pem.toString(), "-outform", "DER", "-out", out.toString());
    }

    /** The CA's key as PEM and {@code openssl ca}'s files, made on first use. */
    private Path caKey() throws IOException, InterruptedException {
        Path key = dir.resolve("ca-key.pem");
        if (!Files.exists(key)) {
            openssl("pkcs12", "-in", dir.resolve("ca.p12").toString(), "-passin", "pass:" + password, "-nodes",
                    "-nocerts", "-out", key.toString());
        }
        return key;
    }

    private Path caConfig() throws IOException {
        Path config = dir.resolve("ca.cnf");
        if (!Files.exists(config)) {
            Files.writeString(dir.resolve("index.txt"), "");
            Files.writeString(dir.resolve("crlnumber"), "01\n");
            Files.writeString(config, "[ca]\ndefault_ca = dev\n[dev]\ndatabase = index.txt\ncrlnumber = crlnumber\n"
                    + "default_md = sha256\ndefault_crl_days = 30\n");
        }
        return config;
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        run(dir, command);
    }

    /** The DER value of a CRL distribution points extension naming one URI (RFC 5280, 4.2.1.13). */
    static byte[] crlDistributionPoint(String uri) {
        byte[] name = der(0x86, uri.getBytes(java.nio.charset.StandardCharsets.US_ASCII)); // uniformResourceIdentifier [6]
        byte[] fullName = der(0xa0, name);        // fullName [0] GeneralNames
        byte[] point = der(0xa0, fullName);       // distributionPoint [0] DistributionPointName
        return der(0x30, der(0x30, point));       // SEQUENCE OF DistributionPoint
    }

    private static byte[] der(int tag, byte[] content) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(tag);
        int n = content.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : 3;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(n >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    private void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(KEYTOOL, "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto"));
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", password, "-storetype", "PKCS12"));
        run(dir, command);
    }

    /** Runs {@code command} in {@code dir}; its output goes into the exception when it fails. */
    public static void run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("failed (" + p.exitValue() + "): " + command + "\n" + out);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: DevCertificates DIR PASSWORD [NAME[=dns:HOST,ip:ADDRESS...]...]");
            System.exit(2);
        }
        DevCertificates c = create(Path.of(args[0]), args[1]);
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            String name = eq < 0 ? args[i] : args[i].substring(0, eq);
            System.out.println(eq < 0 ? c.signed(name, "CN=" + name) : c.signed(name, "CN=" + name, args[i].substring(eq + 1)));
        }
        System.out.println(c.trustStore());
    }
}
