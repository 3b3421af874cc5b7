package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.config.VoleryConfig;
import io.volery.server.frontend.KerberosNames;
import io.volery.server.frontend.SaslAuthentication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.volery.server.clients.KerberosScript.ADMIN;
import static io.volery.server.clients.KerberosScript.ALICE;
import static io.volery.server.clients.KerberosScript.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SASL GSSAPI (Kerberos) on the client port, as ZooKeeper 3.9.5 does it (ADR 069): a real KDC (Apache
 * Kerby) issues the tickets; the same JAAS file and keytabs configure a real ZooKeeper (its {@code Server}
 * section, the SASL provider, a super user) and a Volery cluster of two partitions; {@link KerberosScript}
 * runs the same session of real Java clients, each in a JVM of its own, against each, and both must print
 * the same lines, which are also the expected ones: identities, sasl ACLs across partitions, a super user
 * with a host in its principal, a ticket for another service, a DIGEST-MD5 client against a Kerberos-only
 * server. Then the principal-to-identity settings against ZooKeeper's, and a Volery that takes DIGEST-MD5
 * and Kerberos at once.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KerberosSaslTest {
    static final String SERVICE = "zookeeper/localhost@" + TestKdc.REALM;

    @TempDir
    static Path dir;
    private static TestKdc kdc;
    private static Path jaas;

    static final List<String> EXPECTED = List.of(
            "bob sasl SaslAuthenticated",
            "bob whoAmI [ip:127.0.0.1, sasl:bob@EXAMPLE.COM]",
            "bob create ok /krb-a",
            "bob create with auth ok /krb-auth",
            "acl of the auth node ok [sasl:bob@EXAMPLE.COM=31]",
            "bob create shared ok /krb-shared",
            "bob get own ok a",
            "alice sasl SaslAuthenticated",
            "alice whoAmI [ip:127.0.0.1, sasl:alice@EXAMPLE.COM]",
            "alice get bob's NOAUTH",
            "alice get shared ok s",
            "alice set shared NOAUTH",
            "admin sasl SaslAuthenticated",
            "admin whoAmI [ip:127.0.0.1, sasl:admin/ops.example.com@EXAMPLE.COM, super:]",
            "admin get bob's ok a",
            "admin set acl ok 1",
            "alice get bob's after ok a",
            "misdirected sasl AuthFailed",
            "misdirected get shared AUTHFAILED",
            "digest sasl AuthFailed",
            "digest get shared AUTHFAILED",
            "bob get after all ok s",
            "done");

    @BeforeAll
    static void kdcAndKeytabs() throws Exception {
        kdc = TestKdc.start(dir.resolve("kdc"), SERVICE, "zookeeper/elsewhere@" + TestKdc.REALM, BOB, ALICE, ADMIN);
        // the Volery nodes of these tests run in this JVM: their Kerberos configuration is the KDC's
        System.setProperty("java.security.krb5.conf", kdc.krb5Conf().toString());
        jaas = dir.resolve("jaas.conf");
        String digestModule = "org.apache.zookeeper.server.auth.DigestLoginModule required";
        String both = kdc.jaasSection("Both", SERVICE).replace(";\n};\n", ";\n  " + digestModule
                + "\n  user_dora=\"dorasecret\";\n};\n");
        Files.writeString(jaas, kdc.jaasSection("Server", SERVICE) + both
                + kdc.jaasSection("Bob", BOB) + kdc.jaasSection("Alice", ALICE) + kdc.jaasSection("Admin", ADMIN)
                + "Digest {\n  " + digestModule + "\n  username=\"dora\"\n  password=\"dorasecret\";\n};\n");
    }

    @AfterAll
    static void stopKdc() throws Exception {
        if (kdc != null) {
            kdc.close();
        }
    }

    private static Outcome script(String connect, String prefix, String... mode) throws InterruptedException {
        List<String> command = new ArrayList<>(List.of(SaslZooKeeper.JAVA, "-cp", SaslZooKeeper.CLASSPATH,
                SaslZooKeeper.NO_FIPS, "-Djava.security.auth.login.config=" + jaas,
                "-Djava.security.krb5.conf=" + kdc.krb5Conf(), KerberosScript.class.getName(), connect, prefix, SERVICE));
        command.addAll(List.of(mode));
        return ExternalProcess.run(command, 150);
    }

    private static SaslZooKeeper zooKeeper(String name, String... properties) throws Exception {
        List<String> props = new ArrayList<>(List.of("-Djava.security.krb5.conf=" + kdc.krb5Conf(),
                "-Dzookeeper.superUser=" + ADMIN));
        props.addAll(List.of(properties));
        return SaslZooKeeper.start(dir.resolve(name), jaas, props.toArray(String[]::new));
    }

    private static VoleryConfig.Sasl sasl(String section, KerberosNames names) {
        return new VoleryConfig.Sasl(SaslAuthentication.fromJaas(jaas, section, names), Set.of(ADMIN));
    }

    @Test
    void sameKerberosSessionOnZooKeeperAndVolery() throws Exception {
        Outcome oracle;
        try (SaslZooKeeper zookeeper = zooKeeper("zk")) {
            oracle = script(zookeeper.connectString(), "/krb-");
        }
        assertEquals(0, oracle.exit(), "the script against ZooKeeper; its output:\n" + oracle.output());
        VoleryConfig.Sasl sasl = sasl("Server", KerberosNames.defaults());
        assertEquals(SERVICE, sasl.users().servicePrincipal());
        Outcome volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withSasl(sasl))) {
            volery = script(cluster.connectString(), "/krb-");
        }
        assertEquals(0, volery.exit(), "the script against Volery; its output:\n" + volery.output());
        assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                "Volery's session differs from ZooKeeper's; Volery's output:\n" + volery.output()
                        + "\nZooKeeper's:\n" + oracle.output());
        assertEquals(EXPECTED, oracle.stdout().lines().toList(), "ZooKeeper's session; its output:\n" + oracle.output());
    }

    /**
     * What a principal becomes: host and realm dropped, and auth_to_local rules (one that renames the admin,
     * one that does not match the plain principal, which then keeps its full name), on both servers.
     */
    @Test
    void principalNamesAsZooKeeper() throws Exception {
        String rules = "RULE:[2:$1@$0](admin@EXAMPLE.COM)s/.*/root/ RULE:[1:$1@$0](nobody@.*)s/.*/x/";
        record Variant(List<String> zooKeeperProperties, KerberosNames names, List<String> expected) {
        }
        List<Variant> variants = List.of(
                new Variant(List.of("-Dzookeeper.kerberos.removeHostFromPrincipal=true",
                        "-Dzookeeper.kerberos.removeRealmFromPrincipal=true"),
                        new KerberosNames(KerberosNames.DEFAULT_RULES, true, true, null),
                        List.of("bob whoAmI [ip:127.0.0.1, sasl:bob]", "admin whoAmI [ip:127.0.0.1, sasl:admin]")),
                new Variant(List.of("-Dzookeeper.security.auth_to_local=" + rules),
                        new KerberosNames(rules, false, false, null),
                        List.of("bob whoAmI [ip:127.0.0.1, sasl:bob@EXAMPLE.COM]",
                                "admin whoAmI [ip:127.0.0.1, sasl:root/ops.example.com@EXAMPLE.COM]")));
        int n = 0;
        for (Variant v : variants) {
            n++;
            Outcome oracle;
            try (SaslZooKeeper zookeeper = zooKeeper("zk-names-" + n, v.zooKeeperProperties().toArray(String[]::new))) {
                oracle = script(zookeeper.connectString(), "/n-", "names");
            }
            Outcome volery;
            VoleryConfig.Sasl sasl = sasl("Server", v.names());
            try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000, o -> o.withSasl(sasl))) {
                volery = script(cluster.connectString(), "/n-", "names");
            }
            assertEquals(0, oracle.exit(), "against ZooKeeper: " + oracle.output());
            assertEquals(0, volery.exit(), "against Volery: " + volery.output());
            List<String> said = oracle.stdout().lines().filter(l -> l.contains("whoAmI")).toList();
            assertEquals(v.expected(), said, "ZooKeeper, " + v + ":\n" + oracle.output());
            assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                    "Volery differs from ZooKeeper, " + v + ":\n" + volery.output() + "\nZooKeeper's:\n" + oracle.output());
        }
    }

    /**
     * A section with a Kerberos login and DIGEST-MD5 users takes both (ZooKeeper takes only Kerberos): each
     * client gets its own identity, and the ACLs tell them apart.
     */
    @Test
    void oneVoleryTakesKerberosAndDigestClients() throws Exception {
        VoleryConfig.Sasl sasl = sasl("Both", KerberosNames.defaults());
        assertEquals(Set.of("dora"), sasl.users().users());
        Outcome volery;
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000, o -> o.withSasl(sasl))) {
            volery = script(cluster.connectString(), "/m-", "mixed");
        }
        assertEquals(0, volery.exit(), "against Volery: " + volery.output());
        assertEquals(List.of("bob sasl SaslAuthenticated", "bob whoAmI [ip:127.0.0.1, sasl:bob@EXAMPLE.COM]",
                "digest sasl SaslAuthenticated", "digest whoAmI [ip:127.0.0.1, sasl:dora]", "bob create ok /m-mixed",
                "digest get ok 0", "digest set NOAUTH", "bob set ok 1", "done"),
                volery.stdout().lines().toList(), volery.output());
    }

    /** zkCli (ZooKeeper 3.9.5's shell) set up for Kerberos: the same identities and ACLs on both servers. */
    @Test
    void zkCliAuthenticatesByKerberosAsAgainstZooKeeper() throws Exception {
        String script = String.join("\n", "whoami", "create /krb-cli x sasl:" + BOB + ":cdrwa", "getAcl /krb-cli",
                "get /krb-cli", "delete /krb-cli", "quit", "");
        List<String> options = List.of("-Djava.security.auth.login.config=" + jaas,
                "-Djava.security.krb5.conf=" + kdc.krb5Conf(), "-Dzookeeper.sasl.clientconfig=Bob",
                "-Dzookeeper.server.principal=" + SERVICE);
        List<String> oracle;
        try (SaslZooKeeper zookeeper = zooKeeper("zk-cli")) {
            oracle = said(ZkCliSessionTest.zkCli(zookeeper.connectString(), script, 90, options));
        }
        List<String> volery;
        VoleryConfig.Sasl sasl = sasl("Server", KerberosNames.defaults());
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withSasl(sasl))) {
            volery = said(ZkCliSessionTest.zkCli(cluster.connectString(), script, 90, options));
        }
        assertEquals(List.of("Auth scheme: User", "ip: 127.0.0.1", "sasl: bob@EXAMPLE.COM", "Created /krb-cli",
                "'sasl,'bob@EXAMPLE.COM", ": cdrwa", "x"), oracle, "zkCli against ZooKeeper");
        assertEquals(oracle, volery, "zkCli against Volery");
    }

    /** What zkCli printed of its commands' results, prompts and log lines aside. */
    private static List<String> said(ZkCliSessionTest.Result r) {
        assertEquals(0, r.exit(), r.describe());
        List<String> out = new ArrayList<>();
        for (String line : r.stdout().lines().toList()) {
            String l = line.replaceAll("^(\\[zk: [^\\]]*\\] ?)+", "").strip();
            if (l.matches("Auth scheme: User|ip: .*|sasl: .*|Created .*|'sasl,.*|: [cdrwa]+|x")) {
                out.add(l);
            }
        }
        return out;
    }

    /**
     * A Volery configuration file sets it all up as an operator would: the JAAS file and the Kerberos
     * configuration relative to it, the principal rules; the server logs in when the file is read.
     */
    @Test
    void aConfigurationFileSetsUpKerberos() throws Exception {
        Path conf = dir.resolve("conf");
        Files.createDirectories(conf);
        Files.copy(jaas, conf.resolve("jaas.conf"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(kdc.krb5Conf(), conf.resolve("krb5.conf"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path cfg = conf.resolve("volery.cfg");
        Files.writeString(cfg, io.volery.server.config.VoleryConfigTest.GOOD + "sasl.jaasFile = jaas.conf\n"
                + "sasl.krb5Conf = krb5.conf\nsasl.superUsers = " + ADMIN + "\nkerberos.removeRealmFromPrincipal = true\n");
        VoleryConfig config = VoleryConfig.load(cfg);
        assertEquals(conf.resolve("krb5.conf").toString(), System.getProperty("java.security.krb5.conf"));
        assertEquals(SERVICE, config.sasl().users().servicePrincipal());
        assertEquals("bob", config.sasl().users().names().identity(BOB));
        assertEquals(Set.of(ADMIN), config.sasl().superUsers());
        System.setProperty("java.security.krb5.conf", kdc.krb5Conf().toString());
    }

    /** A Kerberos section the server cannot log in with is a configuration error that says why. */
    @Test
    void aServerLoginThatFailsSaysWhy() throws Exception {
        Path bad = dir.resolve("bad-jaas.conf");
        Files.writeString(bad, kdc.jaasSection("WrongKey", SERVICE).replace(kdc.keytab(SERVICE).toString(),
                kdc.keytab(BOB).toString()) + kdc.jaasSection("NoHost", BOB));
        IllegalArgumentException wrongKey = assertThrows(IllegalArgumentException.class,
                () -> SaslAuthentication.fromJaas(bad, "WrongKey"));
        assertTrue(wrongKey.getMessage().contains("Kerberos login of section 'WrongKey'"), wrongKey.getMessage());
        IllegalArgumentException noHost = assertThrows(IllegalArgumentException.class,
                () -> SaslAuthentication.fromJaas(bad, "NoHost"));
        assertTrue(noHost.getMessage().contains("must be service/host@REALM"), noHost.getMessage());
    }
}
