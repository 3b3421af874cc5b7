package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.config.VoleryConfig;
import io.volery.server.frontend.AuthEnforcement;
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

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Authentication enforcement as ZooKeeper 3.9.5 does it (ADR 052): a real ZooKeeper with
 * {@code zookeeper.enforce.auth.enabled=true} and {@code zookeeper.enforce.auth.schemes=digest}, or with
 * {@code zookeeper.sessionRequireClientSASLAuth=true}, and a two-partition Volery enforcing the same; the
 * same {@link EnforcedAuthScript} session of real Java clients (own JVMs) must print the same lines on
 * both, which are also the expected ones: requests before authenticating refused with
 * SessionClosedRequireAuth and the connection closed (pings too), the session kept, requests after addAuth
 * or SASL served, a digest identity not enough where SASL is required, a failed SASL negotiation refused.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class EnforcedAuthTest {
    @TempDir
    Path dir;

    static final List<String> DIGEST_EXPECTED = List.of(
            "plain exists / SESSIONCLOSEDREQUIRESASLAUTH",
            "plain after the refusal Disconnected then SyncConnected",
            "plain same session true",
            "plain create after addAuth ok /enf-a",
            "acl of it ok [digest:dave:hVRiCgu1nqnQQQCmeNdNsYvaxAs==31]",
            "plain whoAmI [digest:dave, ip:127.0.0.1]",
            "early ephemeral ok /enf-e",
            "early sees ok [enf-a, enf-e]",
            "early get dave's NOAUTH",
            "idle Disconnected",
            "dave sees the ephemeral after its owner closed ok null",
            "done");

    static final List<String> SASL_EXPECTED = List.of(
            "bob sasl SaslAuthenticated",
            "bob create ok /enf-s",
            "bob whoAmI [ip:127.0.0.1, sasl:bob]",
            "plain get SESSIONCLOSEDREQUIRESASLAUTH",
            "digest get SESSIONCLOSEDREQUIRESASLAUTH",
            "wrong sasl AuthFailed",
            "wrong get AUTHFAILED",
            "bob get ok s",
            "done");

    private Path jaas() throws Exception {
        Path jaas = dir.resolve("jaas.conf");
        Files.writeString(jaas, SaslZooKeeper.serverSection(Map.of("bob", "bobsecret"))
                + client("Bob", "bob", "bobsecret") + client("Wrong", "bob", "guess"));
        return jaas;
    }

    private static String client(String section, String user, String password) {
        return section + " {\n  " + SaslZooKeeper.MODULE + "\n  username=\"" + user + "\"\n  password=\"" + password
                + "\";\n};\n";
    }

    private static Outcome script(Path jaas, String connect, String mode) throws InterruptedException {
        List<String> command = new ArrayList<>(List.of(SaslZooKeeper.JAVA, "-cp", SaslZooKeeper.CLASSPATH,
                SaslZooKeeper.NO_FIPS, "-Djava.security.auth.login.config=" + jaas,
                EnforcedAuthScript.class.getName(), connect, "/enf-", mode));
        return ExternalProcess.run(command, 150);
    }

    private void sameSession(String mode, List<String> expected, AuthEnforcement enforcement, String... zooKeeperProperties)
            throws Exception {
        Path jaas = jaas();
        Outcome oracle;
        try (SaslZooKeeper zookeeper = SaslZooKeeper.start(dir.resolve("zk"), jaas, zooKeeperProperties)) {
            oracle = script(jaas, zookeeper.connectString(), mode);
        }
        assertEquals(0, oracle.exit(), "the script against ZooKeeper; its output:\n" + oracle.output());
        VoleryConfig.Sasl sasl = new VoleryConfig.Sasl(SaslAuthentication.fromJaas(jaas, "Server"), Set.of());
        Outcome volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000,
                o -> o.withSasl(sasl).withAuthEnforcement(enforcement))) {
            volery = script(jaas, cluster.connectString(), mode);
        }
        assertEquals(0, volery.exit(), "the script against Volery; its output:\n" + volery.output());
        assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                "Volery's session differs from ZooKeeper's; Volery's output:\n" + volery.output()
                        + "\nZooKeeper's:\n" + oracle.output());
        assertEquals(expected, oracle.stdout().lines().toList(), "ZooKeeper's session; its output:\n" + oracle.output());
    }

    @Test
    void digestEnforcedOnZooKeeperAndVolery() throws Exception {
        sameSession("digest", DIGEST_EXPECTED, AuthEnforcement.of(List.of("digest")),
                "-Dzookeeper.enforce.auth.enabled=true", "-Dzookeeper.enforce.auth.schemes=digest");
    }

    @Test
    void saslRequiredOnZooKeeperAndVolery() throws Exception {
        sameSession("sasl", SASL_EXPECTED, AuthEnforcement.of(List.of("sasl")),
                "-Dzookeeper.sessionRequireClientSASLAuth=true");
    }
}
