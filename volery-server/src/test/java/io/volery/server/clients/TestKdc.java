package io.volery.server.clients;

import org.apache.kerby.kerberos.kerb.KrbException;
import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real Kerberos KDC (Apache Kerby's, as in ZooKeeper's own tests) on a loopback TCP port the test picks,
 * realm {@link #REALM}, with a krb5.conf that sends every client to it over TCP. Principals get random keys,
 * exported to a keytab each ({@link #keytab}).
 */
final class TestKdc implements AutoCloseable {
    static final String REALM = "EXAMPLE.COM";

    private final SimpleKdcServer kdc;
    private final Path dir;
    private final Path krb5Conf;

    private TestKdc(SimpleKdcServer kdc, Path dir, Path krb5Conf) {
        this.kdc = kdc;
        this.dir = dir;
        this.krb5Conf = krb5Conf;
    }

    /** Starts a KDC with its database and files in {@code dir} and these principals (name/host@REALM). */
    static TestKdc start(Path dir, String... principals) throws KrbException, IOException {
        Files.createDirectories(dir);
        int port = io.eyrie.multicast.LoopbackPorts.free();
        SimpleKdcServer kdc = new SimpleKdcServer();
        kdc.setWorkDir(dir.toFile());
        kdc.setKdcHost("127.0.0.1");
        kdc.setKdcRealm(REALM);
        kdc.setAllowUdp(false);
        kdc.setKdcTcpPort(port);
        kdc.init();
        kdc.start();
        Path conf = dir.resolve("krb5.conf");
        Files.writeString(conf, "[libdefaults]\n default_realm = " + REALM + "\n udp_preference_limit = 1\n"
                + " dns_lookup_kdc = false\n dns_lookup_realm = false\n rdns = false\n dns_canonicalize_hostname = false\n"
                + " ticket_lifetime = 24h\n forwardable = true\n"
                + "[realms]\n " + REALM + " = {\n  kdc = 127.0.0.1:" + port + "\n }\n"
                + "[domain_realm]\n localhost = " + REALM + "\n");
        TestKdc k = new TestKdc(kdc, dir, conf);
        for (String p : principals) {
            kdc.createPrincipal(p); // a random key
            kdc.exportPrincipal(p, k.keytab(p).toFile()); // its keytab holds its key alone
        }
        return k;
    }

    /** The keytab with {@code principal}'s key. */
    Path keytab(String principal) {
        return dir.resolve(principal.replaceAll("[^A-Za-z0-9.]", "_") + ".keytab");
    }

    Path krb5Conf() {
        return krb5Conf;
    }

    /** A JAAS section that logs {@code principal} in from its keytab. */
    String jaasSection(String section, String principal) {
        return section + " {\n  com.sun.security.auth.module.Krb5LoginModule required\n  useKeyTab=true\n"
                + "  keyTab=\"" + keytab(principal) + "\"\n  storeKey=true\n  useTicketCache=false\n"
                + "  refreshKrb5Config=true\n  principal=\"" + principal + "\";\n};\n";
    }

    @Override
    public void close() throws KrbException {
        kdc.stop();
    }
}
