package io.volery.server.clients;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volery.server.VoleryCluster;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import io.volery.server.config.VoleryConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * node-zookeeper-client 1.1.3, Node.js's pure-JavaScript ZooKeeper client (npm installs it into
 * target/nodejs-client), runs one scripted session (src/test/resources/clients/zk_node_session.js) against
 * ZooKeeper 3.9.5 and against a 2x3 Volery partitioned by subtree and by hash: creates of every mode and their
 * errors, null data, data, exists and child watches, versioned writes and removes, a transaction across both
 * top-level nodes committed and rolled back with per-operation results, digest ACLs and refusals, pipelined reads,
 * and a second session seeing the first one's ephemeral go when it closes. The transcripts must be equal. A machine
 * without node and npm (Debian: nodejs, npm; {@code .ci/run} installs them) skips it, saying so, as does one whose
 * npm registry is unreachable.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NodeJsClientTest {
    private static final Path WORK = Path.of("target", "nodejs-client").toAbsolutePath();
    private static final Path SESSION = Path.of("src", "test", "resources", "clients", "zk_node_session.js")
            .toAbsolutePath();

    private static EmbeddedZooKeeper zookeeper;
    /** Why the client could not be installed; null once it is. */
    private static String unavailable;

    @BeforeAll
    static void install(@TempDir Path dir) throws Exception {
        ExternalProcess.Outcome node = run(List.of("node", "--version"), 30);
        ExternalProcess.Outcome npm = run(List.of("npm", "--version"), 30);
        if (node.exit() != 0 || npm.exit() != 0) {
            unavailable = "Node.js client test skipped: no node and npm on PATH (Debian: nodejs, npm)";
            return;
        }
        if (!Files.isDirectory(WORK.resolve("node_modules").resolve("node-zookeeper-client"))) {
            Files.createDirectories(WORK);
            ExternalProcess.Outcome install = run(List.of("npm", "install", "--no-audit", "--no-fund", "--prefix",
                    WORK.toString(), "node-zookeeper-client@1.1.3"), 240);
            if (install.exit() != 0) {
                unavailable = "Node.js client test skipped: npm could not install node-zookeeper-client@1.1.3:\n"
                        + install.output();
                return;
            }
        }
        zookeeper = Clients.listeningZooKeeper(dir);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        Clients.stop(null, zookeeper);
    }

    private static ExternalProcess.Outcome session(String connect) throws InterruptedException {
        return run(List.of("node", SESSION.toString(), connect), null,
                Map.of("NODE_PATH", WORK.resolve("node_modules").toString()), 120);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void scriptedSessionMatchesZooKeeper(VoleryConfig.Partitioning partitioning) throws Exception {
        assumeTrue(unavailable == null, unavailable);
        ExternalProcess.Outcome oracle = session(zookeeper.connectString());
        try (VoleryCluster cluster = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning))) {
            ExternalProcess.Outcome volery = session(cluster.connectString());
            Files.writeString(WORK.resolve("session-" + partitioning + "-volery.out"), volery.output());
            Files.writeString(WORK.resolve("session-zookeeper.out"), oracle.output());
            ExternalProcess.assertSameTranscript(oracle, volery, "session B closed");
        }
    }
}
