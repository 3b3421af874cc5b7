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
        Path store = store(name);
        Path csr = dir.resolve(name + ".csr");
        Path cert = dir.resolve(name + ".pem");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dn,
                "-validity", "30", "-keystore", store.toString());
        keytool("-certreq", "-alias", name, "-file", csr.toString(), "-keystore", store.toString());
        keytool("-gencert", "-alias", "ca", "-infile", csr.toString(), "-outfile", cert.toString(), "-rfc",
                "-ext", "SAN=" + subjectAlternativeNames, "-validity", "30", "-keystore", dir.resolve("ca.p12").toString());
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
