package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.config.VoleryConfig;
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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SASL DIGEST-MD5, as ZooKeeper 3.9.5 does it: the same JAAS file configures a real ZooKeeper (its
 * {@code Server} section, the SASL provider, {@code zookeeper.superUser=admin}) and a Volery cluster of two
 * partitions ({@code sasl.jaasFile}, {@code sasl.superUsers = admin}); {@link SaslScript} runs the same
 * session of real Java clients against each, in JVMs of their own, and both must print the same lines,
 * which are also the expected ones: identities, sasl and auth ACLs across partitions, super users,
 * wrong passwords, unknown users, plain clients, and a client claiming a SASL identity with addAuth.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SaslDigestTest {
    @TempDir
    static Path dir;
    private static Path jaas;
    private static SaslZooKeeper zookeeper;

    static final List<String> EXPECTED = List.of(
            "bob sasl SaslAuthenticated",
            "bob whoAmI [ip:127.0.0.1, sasl:bob]",
            "bob create ok /sasl-a",
            "bob create with auth ok /sasl-auth",
            "acl of the auth node ok [sasl:bob=31]",
            "bob create shared ok /sasl-shared",
            "bob get own ok a",
            "bob malformed principal INVALIDACL",
            "bob kerberos principal ok /sasl-krb",
            "bob multi ok 2",
            "alice sasl SaslAuthenticated",
            "alice whoAmI [ip:127.0.0.1, sasl:alice]",
            "alice get bob's NOAUTH",
            "alice get shared ok s",
            "alice set shared NOAUTH",
            "alice delete bob's ephemeral child ok deleted", // DELETE is the parent's (open) ACL's business
            "alice adds digest ok [digest:carol, ip:127.0.0.1, sasl:alice]",
            "alice create with auth, two ids ok /sasl-two",
            "acl of the two-id node ok [sasl:alice=31, digest:carol:RffyCdXXV1Js0ywLAoP5/l25yKs==31]",
            "admin sasl SaslAuthenticated",
            "admin whoAmI [ip:127.0.0.1, sasl:admin, super:]",
            "admin get bob's ok a",
            "admin set acl ok 1",
            "alice get bob's after ok a",
            "plain whoAmI [ip:127.0.0.1]",
            "plain get shared ok s",
            "plain set shared NOAUTH",
            "wrong sasl AuthFailed",
            "wrong get shared AUTHFAILED",
            "nobody sasl AuthFailed",
            "nobody get shared AUTHFAILED",
            "addAuth sasl bob AuthFailed",
            "bob get after all ok s",
            "done");

    @BeforeAll
    static void zooKeeperWithSasl() throws Exception {
        jaas = dir.resolve("jaas.conf");
        Files.writeString(jaas, SaslZooKeeper.serverSection(Map.of("bob", "bobsecret", "alice", "alicesecret",
                        "admin", "adminsecret"))
                + client("Bob", "bob", "bobsecret") + client("Alice", "alice", "alicesecret")
                + client("Admin", "admin", "adminsecret") + client("Wrong", "bob", "guess")
                + client("Nobody", "carol", "carolsecret"));
        zookeeper = SaslZooKeeper.start(dir, jaas);
    }

    @AfterAll
    static void stopZooKeeper() throws InterruptedException {
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    private static String client(String section, String user, String password) {
        return section + " {\n  " + SaslZooKeeper.MODULE + "\n  username=\"" + user + "\"\n  password=\"" + password
                + "\";\n};\n";
    }

    private static Outcome script(String connect, String... mode) throws InterruptedException {
        List<String> command = new ArrayList<>(List.of(SaslZooKeeper.JAVA, "-cp", SaslZooKeeper.CLASSPATH,
                SaslZooKeeper.NO_FIPS, "-Djava.security.auth.login.config=" + jaas,
                SaslScript.class.getName(), connect, "/sasl-"));
        command.addAll(List.of(mode));
        return ExternalProcess.run(command, 150);
    }

    /**
     * A client set up for SASL, against a server without it: ZooKeeper answers the client's first token
     * with none and keeps the connection; the client gives up (AuthFailed) and so must it on Volery.
     */
    @Test
    void saslClientAgainstServersWithoutSasl() throws Exception {
        io.volery.server.backtoback.EmbeddedZooKeeper plainZooKeeper = null;
        VoleryCluster cluster = null;
        try {
            plainZooKeeper = Clients.listeningZooKeeper(Files.createDirectories(dir.resolve("plain-zk")));
            Outcome oracle = script(plainZooKeeper.connectString(), "server-without-sasl");
            cluster = new VoleryCluster(1, 1, 0, 2000);
            Outcome volery = script(cluster.connectString(), "server-without-sasl");
            assertEquals(0, oracle.exit(), "the script against ZooKeeper; its output:\n" + oracle.output());
            assertEquals(0, volery.exit(), "the script against Volery; its output:\n" + volery.output());
            assertEquals(List.of("bob sasl AuthFailed", "bob exists / AUTHFAILED", "plain exists / ok true", "done"),
                    oracle.stdout().lines().toList(), "ZooKeeper's session; its output:\n" + oracle.output());
            assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                    "Volery's session differs from ZooKeeper's; Volery's output:\n" + volery.output());
        } finally {
            Clients.stop(cluster, plainZooKeeper);
        }
    }

    @Test
    void sameSaslSessionOnZooKeeperAndVolery() throws Exception {
        Outcome oracle = script(zookeeper.connectString());
        assertEquals(0, oracle.exit(), "the script against ZooKeeper; its output:\n" + oracle.output());
        VoleryConfig.Sasl sasl = new VoleryConfig.Sasl(SaslAuthentication.fromJaas(jaas, "Server"), Set.of(SaslZooKeeper.SUPER_USER));
        Outcome volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withSasl(sasl))) {
            volery = script(cluster.connectString());
        }
        assertEquals(0, volery.exit(), "the script against Volery; its output:\n" + volery.output());
        assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                "Volery's session differs from ZooKeeper's; Volery's output:\n" + volery.output()
                        + "\nZooKeeper's:\n" + oracle.output());
        assertEquals(EXPECTED, oracle.stdout().lines().toList(), "ZooKeeper's session; its output:\n" + oracle.output());
    }
}
