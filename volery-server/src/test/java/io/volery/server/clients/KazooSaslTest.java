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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * kazoo 2.11 (Python) authenticating by SASL DIGEST-MD5 (with pure-sasl, both from PyPI, in the venv of
 * {@link KazooVenv}): the same script (clients/kazoo_sasl.py) runs against a real ZooKeeper 3.9.5 with
 * SASL ({@link SaslZooKeeper}) and against a Volery cluster of two partitions with the same JAAS users and
 * super user; both must print the same lines, which are also the expected ones. The Python-client twin
 * of {@link SaslDigestTest}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KazooSaslTest {

    @TempDir
    static Path dir;
    private Path python;

    /** What the script prints against ZooKeeper 3.9.5 (kazoo 2.11, pure-sasl 0.6). */
    static final List<String> EXPECTED = List.of(
            // kazoo reports CONNECTED before it negotiates SASL: start() returns, the first request waits for the end
            "bob login: start returned, first request ok, states CONNECTED",
            "bob client_id True",
            "bob whoami not in kazoo 2.11",
            "bob create a ok a",
            "bob get a ok a",
            "bob acl of a ok [sasl:bob=31]",
            "bob create with auth acl ok auth",
            "bob acl of the auth node ok [sasl:bob=31]",
            "bob invalid sasl id InvalidACLError",
            "bob bad node exists ok None",
            "alice login: start returned, first request ok, states CONNECTED",
            "alice get a NoAuthError",
            "alice acl of a NoAuthError", // ZooKeeper 3.9 answers getACL only with READ or ADMIN
            "alice set a NoAuthError",
            "alice get auth node NoAuthError",
            "admin login: start returned, first request ok, states CONNECTED",
            "admin get a ok a",
            "admin acl of the auth node ok [sasl:bob=31]",
            "plain get a NoAuthError",
            // a failed negotiation: start() has returned already; the session is lost, its request fails
            "wrong password login: start returned, first request AuthFailedError, states CONNECTED,LOST",
            "unknown user login: start returned, first request AuthFailedError, states CONNECTED,LOST",
            "bob delete a ok True",
            "bob delete auth node ok True",
            "done");

    @Test
    void sameKazooSaslSessionOnZooKeeperAndVolery() throws Exception {
        // here, not in a @BeforeAll: Surefire reports a test skipped there as no test at all, without the reason
        python = KazooVenv.python("kazoo, puresasl", "kazoo==2.11.*", "pure-sasl==0.6.*");
        Path jaas = dir.resolve("jaas.conf");
        Files.writeString(jaas, SaslZooKeeper.serverSection(Map.of("bob", "bobsecret", "alice", "alicesecret",
                SaslZooKeeper.SUPER_USER, "adminsecret")));
        Path script = dir.resolve("kazoo_sasl.py");
        try (var in = KazooSaslTest.class.getResourceAsStream("/clients/kazoo_sasl.py")) {
            Files.write(script, in.readAllBytes());
        }
        Outcome oracle;
        try (SaslZooKeeper zookeeper = SaslZooKeeper.start(dir.resolve("zookeeper"), jaas)) {
            oracle = run(script, zookeeper.connectString(), "/kazoo-sasl-zk-");
        }
        assertEquals(0, oracle.exit(), "the script against ZooKeeper; its output:\n" + oracle.output());
        VoleryConfig.Sasl sasl = new VoleryConfig.Sasl(SaslAuthentication.fromJaas(jaas, "Server"), Set.of(SaslZooKeeper.SUPER_USER));
        Outcome volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withSasl(sasl))) {
            volery = run(script, cluster.connectString(), "/kazoo-sasl-volery-");
        }
        assertEquals(0, volery.exit(), "the script against Volery; its output:\n" + volery.output());
        assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                "kazoo's session on Volery differs from ZooKeeper's; Volery's output:\n" + volery.output()
                        + "\nZooKeeper's:\n" + oracle.output());
        assertEquals(EXPECTED, oracle.stdout().lines().toList(), "ZooKeeper's session; its output:\n" + oracle.output());
    }

    private Outcome run(Path script, String connect, String prefix) throws InterruptedException {
        return ExternalProcess.run(List.of(python.toString(), script.toString(), connect, prefix), 100);
    }
}
