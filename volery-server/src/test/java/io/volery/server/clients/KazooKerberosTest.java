package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.config.VoleryConfig;
import io.volery.server.frontend.SaslAuthentication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.volery.server.clients.KerberosScript.ADMIN;
import static io.volery.server.clients.KerberosScript.ALICE;
import static io.volery.server.clients.KerberosScript.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * kazoo (2.11, pure-sasl, the MIT Kerberos library through pykerberos) authenticating by Kerberos, as
 * {@link KerberosSaslTest} does with the Java client: a real KDC, the same keytabs for a real ZooKeeper
 * 3.9.5 and a two-partition Volery, and the same script (one Python process per user, each with its own
 * keytab) printing the same lines against both. Needs the Kerberos headers to build pykerberos
 * ({@code libkrb5-dev}, which .ci/run installs); without them the test is skipped, saying so.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KazooKerberosTest {
    static final String SERVICE = "zookeeper/localhost@" + TestKdc.REALM;

    @TempDir
    Path dir;

    static final List<String> EXPECTED = List.of(
            "bob login, first request ok",
            "bob create k ok k",
            "bob get k ok k",
            "bob acl of k ok [sasl:bob@EXAMPLE.COM=31]",
            "bob create with auth acl ok auth",
            "bob acl of the auth node ok [sasl:bob@EXAMPLE.COM=31]",
            "bob done",
            "alice login, first request ok",
            "alice get k NoAuthError",
            "alice set k NoAuthError",
            "alice done",
            "admin login, first request ok",
            "admin get k ok k",
            "admin acl of the auth node ok [sasl:bob@EXAMPLE.COM=31]",
            "admin done",
            "cleanup login, first request ok",
            "cleanup delete k ok True",
            "cleanup delete auth node ok True",
            "cleanup done");

    @Test
    void sameKazooKerberosSessionOnZooKeeperAndVolery() throws Exception {
        Path python = KazooVenv.python("kazoo, puresasl, kerberos", "kazoo==2.11.*", "pure-sasl==0.6.*",
                "kerberos==1.3.*");
        Path script = dir.resolve("kazoo_kerberos.py");
        try (var in = KazooKerberosTest.class.getResourceAsStream("/clients/kazoo_kerberos.py")) {
            Files.write(script, in.readAllBytes());
        }
        try (TestKdc kdc = TestKdc.start(dir.resolve("kdc"), SERVICE, BOB, ALICE, ADMIN)) {
            System.setProperty("java.security.krb5.conf", kdc.krb5Conf().toString());
            Path jaas = dir.resolve("jaas.conf");
            Files.writeString(jaas, kdc.jaasSection("Server", SERVICE));
            List<String> oracle;
            try (SaslZooKeeper zookeeper = SaslZooKeeper.start(dir.resolve("zk"), jaas,
                    "-Djava.security.krb5.conf=" + kdc.krb5Conf(), "-Dzookeeper.superUser=" + ADMIN)) {
                oracle = session(python, script, kdc, "localhost:" + zookeeper.port(), "/kk-");
            }
            VoleryConfig.Sasl sasl = new VoleryConfig.Sasl(SaslAuthentication.fromJaas(jaas, "Server"), Set.of(ADMIN));
            List<String> volery;
            try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withSasl(sasl))) {
                volery = session(python, script, kdc, cluster.connectString().replace("127.0.0.1", "localhost"), "/kk-");
            }
            assertEquals(oracle, volery, "kazoo's Kerberos sessions on Volery against ZooKeeper's");
            assertEquals(EXPECTED.stream().map(KazooKerberosTest::comparable).toList(), oracle, "ZooKeeper's");
        }
    }

    /** Runs the script as bob, alice, admin, then bob again (cleanup), each with that user's keytab. */
    private static List<String> session(Path python, Path script, TestKdc kdc, String hosts, String prefix)
            throws InterruptedException {
        List<String> lines = new ArrayList<>();
        for (String who : List.of("bob", "alice", "admin", "cleanup")) {
            String principal = switch (who) {
                case "alice" -> ALICE;
                case "admin" -> ADMIN;
                default -> BOB;
            };
            Outcome o = ExternalProcess.run(List.of(python.toString(), script.toString(), hosts, prefix, who), null,
                    Map.of("KRB5_CONFIG", kdc.krb5Conf().toString(),
                            "KRB5_CLIENT_KTNAME", kdc.keytab(principal).toString(),
                            "KRB5CCNAME", "MEMORY:kazoo-" + who), 100);
            assertEquals(0, o.exit(), who + " against " + hosts + ":\n" + o.output());
            o.stdout().lines().map(KazooKerberosTest::comparable).forEach(lines::add);
        }
        return lines;
    }

    /** A line without what differs between servers and runs: the root's stat and the session's states. */
    private static String comparable(String line) {
        return line.replaceAll("first request ok ZnodeStat\\(.*\\)", "first request ok")
                .replaceAll(" states \\S*$", "");
    }
}
