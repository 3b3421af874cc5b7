package io.volery.server.durability;

import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Durability end to end: a 2 x 3 Volery cluster as six processes, every one of them killed with
 * kill -9 and restarted; every write the service acknowledged must be there afterwards, and the
 * replicas of each partition must hold the same state (equal digests at the same zxid).
 */
class CrashRecoveryProcessTest {
    private static final String CLASSPATH = System.getProperty("java.class.path");
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @Test
    void everyAcknowledgedWriteSurvivesKillingEveryProcessWithDurableStorage(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 20)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString())) {
                writes.run(zk, 120);
            }
            assertEquals(120, writes.acknowledged(), "with every node up, every write should be acknowledged; failures: "
                    + writes.failures());
            assertTrue(cluster.snapshots(1).size() > 0, "node 1 should have taken a snapshot with snapCount=20");

            cluster.killAll();
            cluster.startAll();

            for (int id : ProcessCluster.NODES) {
                Map<String, String> m = cluster.mntr(id);
                assertNotEquals("-1", m.get("volery_checkpoint_position"),
                        "node " + id + " should have recovered from a snapshot; mntr: " + m);
                assertEquals("0", m.get("volery_checkpoints_corrupt"), "node " + id + ": no damaged snapshot expected");
            }
            for (int id : ProcessCluster.NODES) {
                try (ZooKeeper reader = cluster.session(id)) {
                    assertEquals(List.of(), writes.lostWrites(reader),
                            "acknowledged writes lost, as read through node " + id);
                }
            }
            cluster.assertReplicasAgree(1);
            cluster.assertReplicasAgree(2);

            String status = status(cluster);
            for (int id : ProcessCluster.NODES) {
                assertTrue(status.lines().anyMatch(l -> l.matches(id + "\\s+" + ProcessCluster.partitionOf(id) + "\\s+.*")),
                        "volery status should list node " + id + " in partition " + ProcessCluster.partitionOf(id)
                                + ":\n" + status);
            }
        }
    }

    /** The same crash with in-memory acceptors: the check above must see the loss, or it proves nothing. */
    @Test
    void withInMemoryStorageTheSameCrashLosesAcknowledgedWrites(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "memory", 40)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString())) {
                writes.run(zk, 60);
            }
            assertEquals(60, writes.acknowledged(), "with every node up, every write should be acknowledged; failures: "
                    + writes.failures());
            assertTrue(cluster.snapshots(1).isEmpty(), "memory storage takes no snapshots");
            cluster.killAll();
            cluster.startAll();
            try (ZooKeeper reader = AcknowledgedWrites.connect(cluster.connectString())) {
                List<String> lost = writes.lostWrites(reader);
                assertFalse(lost.isEmpty(), "in-memory acceptors cannot keep writes across kill -9 of every process, "
                        + "yet the check found all " + writes.acknowledged() + " acknowledged writes");
                assertTrue(lost.size() >= writes.acknowledgedCreates(), "expected every create lost, got " + lost);
            }
        }
    }

    /**
     * In-memory acceptors, one process killed at a time (ADR 074): node 2 comes back with nothing, so its
     * acceptors of ring 1 (1,2,3) and the ALL ring (1,4,2) must rejoin, reading the others above their
     * promises, before they vote again, and its replica takes its state from a peer. Then node 1 is killed:
     * both rings then decide only with node 2's votes. Every acknowledged write must be there, read through
     * node 2, and node 1, restarted from nothing in turn, must end with the same state as the others.
     */
    @Test
    void withInMemoryStorageNodesKilledOneAtATimeLoseNothing(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "memory", 40)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(3))) {
                writes.run(zk, 40);
            }
            assertEquals(40, writes.acknowledged(), "failures: " + writes.failures());

            cluster.kill(2);
            long before = rejoins(cluster, 2);
            cluster.start(2);
            ProcessCluster.await("node 2's acceptors rejoining rings 1 and 0", 60_000, () ->
                    cluster.acceptorJoined(2, 1) && cluster.acceptorJoined(2, 0) && rejoins(cluster, 2) >= before + 2);

            cluster.kill(1);
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(3))) {
                writes.run(zk, 40);
            }
            assertEquals(80, writes.acknowledged(), "with node 1 down, rings 1 and 0 need node 2's votes; failures: "
                    + writes.failures() + "\nnode 2:\n" + cluster.tail(2));
            for (int id : new int[] {2, 3, 5}) {
                try (ZooKeeper reader = cluster.session(id)) {
                    assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, as read through node " + id);
                }
            }
            cluster.start(1);
            cluster.assertReplicasAgree(1);

            // Two of ring 1's three in-memory acceptors down at once: node 2, restarted while node 3 is still
            // down, cannot read node 3 and must not vote; mntr and volery status say so. Once node 3 is back
            // both rejoin from node 1, which holds every decided value, and nothing is lost.
            cluster.kill(3);
            cluster.kill(2);
            cluster.start(2);
            Thread.sleep(2_000);
            assertEquals("1", cluster.mntr(2).get("volery_ring_1_acceptor_rejoining"),
                    "node 2 cannot have read node 3, which is down");
            assertTrue(status(cluster, 3).lines().anyMatch(l -> l.startsWith("2 ") && l.contains("ring 1: ")
                    && l.contains("(acceptor rejoining)")), "volery status should show node 2 rejoining ring 1");
            cluster.start(3);
            ProcessCluster.await("nodes 2 and 3 rejoining ring 1", 60_000, () ->
                    cluster.acceptorJoined(2, 1) && cluster.acceptorJoined(3, 1));
            try (ZooKeeper reader = cluster.session(2)) {
                assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, as read through node 2");
            }
        }
    }

    /** How many times node {@code id}'s processes logged an acceptor's rejoin. */
    private static long rejoins(ProcessCluster cluster, int id) {
        try {
            return Files.readAllLines(cluster.log(id), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains("acceptor rejoined")).count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** {@code volery status --config F} in its own process; its exit status must say every node answered. */
    private static String status(ProcessCluster cluster) throws Exception {
        return status(cluster, 0);
    }

    /** As above, expecting exit status {@code expected} (3: a node did not answer). */
    private static String status(ProcessCluster cluster, int expected) throws Exception {
        Process p = new ProcessBuilder(JAVA, "-Xmx96m", "-XX:TieredStopAtLevel=1", "-cp", CLASSPATH,
                "io.volery.server.VoleryMain", "status", "--config", cluster.config().toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "volery status did not finish");
        assertEquals(expected, p.exitValue(), (expected == 0 ? "volery status should find every node up:\n"
                : "volery status should exit with " + expected + ":\n") + out);
        return out;
    }
}
