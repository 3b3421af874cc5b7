package io.volery.server.durability;

import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One replica at a time fails while the others serve: killed (kill -9) during load and restarted,
 * or restarted on a damaged disk. Nothing acknowledged may be lost, the replica must catch up to
 * the same state as its peers and serve clients, and damage must be detected, never used.
 */
class ReplicaFaultProcessTest {

    @Test
    void aReplicaPerPartitionKilledRepeatedlyDuringLoadCatchesUpAndServes(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 20)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> loadFailure = new AtomicReference<>();
            Thread load = new Thread(() -> {
                try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString())) {
                    while (!stop.get()) {
                        writes.writeOne(zk);
                    }
                } catch (Throwable t) {
                    loadFailure.set(t);
                }
            }, "load");
            load.start();
            try {
                awaitMoreAcknowledged(writes, 20);
                int[][] rounds = {{2, 5}, {3, 6}};
                for (int[] victims : rounds) {
                    for (int v : victims) {
                        cluster.kill(v);
                    }
                    awaitMoreAcknowledged(writes, 15); // the service goes on without them
                    for (int v : victims) {
                        cluster.start(v);
                    }
                    awaitMoreAcknowledged(writes, 15);
                }
            } finally {
                stop.set(true);
                load.join(60_000);
            }
            assertNull(loadFailure.get(), "the load thread failed: " + loadFailure.get());
            for (int v : new int[] {2, 3, 5, 6}) {
                try (ZooKeeper reader = cluster.session(v)) {
                    assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, read through restarted node " + v);
                }
            }
            cluster.assertReplicasAgree(1);
            cluster.assertReplicasAgree(2);
            // Each restart's front-end client retired the killed process's one (ADR 058): the replicas
            // that ran throughout retired four clients and hold entries of the six live ones alone
            // (per destination set: {1}, {2}, {1,2}), not of the four dead ones as well.
            for (int v : new int[] {1, 4}) {
                ProcessCluster.await("node " + v + " retires the four killed front ends' clients", 30_000, () -> {
                    try {
                        return "4".equals(cluster.mntr(v).get("volery_clients_retired"));
                    } catch (java.io.IOException e) {
                        return false;
                    }
                });
                Map<String, String> m = cluster.mntr(v);
                assertTrue(Long.parseLong(m.get("volery_reply_table_clients")) <= 6 * 3, "node " + v + ": " + m);
            }
        }
    }

    @Test
    void corruptSnapshotsAndATornAcceptorLogAreDetectedAndRepairedFromOlderSnapshotsOrPeers(@TempDir Path dir)
            throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 15)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString())) {
                writes.run(zk, 60);
                ProcessCluster.await("nodes 2 and 5 keep two snapshots", 30_000,
                        () -> snapshotCount(cluster, 2) == 2 && snapshotCount(cluster, 5) == 2);
                cluster.kill(2);
                cluster.kill(5);
                for (Path p : cluster.snapshots(5)) {
                    flipBytes(p, Files.size(p) - 10, 1); // every snapshot of node 5: only a peer can help
                }
                List<Path> snapshots = cluster.snapshots(2);
                Path newest = snapshots.get(snapshots.size() - 1);
                flipBytes(newest, Files.size(newest) / 2, 4);
                Path segment = newestSegment(cluster.nodeData(2).resolve("ring-1"));
                long before = Files.size(segment);
                try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
                    f.setLength(before - 3); // inside the last record: a torn tail
                }
                writes.run(zk, 30); // the partition goes on with two replicas

                cluster.start(2);
                cluster.start(5);
                Map<String, String> m5 = cluster.mntr(5);
                assertEquals("2", m5.get("volery_checkpoints_corrupt"), "both snapshots of node 5 are damaged; mntr: " + m5);
                assertEquals("1", m5.get("volery_snapshots_fetched"), "node 5 should restore a peer's snapshot; mntr: " + m5);
                // from a peer's ring port (ADR 063): answered to the cluster's hosts without TLS
                assertTrue(Long.parseLong(cluster.mntr(4).get("volery_side_requests_served"))
                        + Long.parseLong(cluster.mntr(6).get("volery_side_requests_served")) >= 1, "no peer served node 5");
                Map<String, String> m = cluster.mntr(2);
                assertEquals("1", m.get("volery_checkpoints_corrupt"), "the flipped snapshot should be found damaged; mntr: " + m);
                assertNotEquals("-1", m.get("volery_checkpoint_position"),
                        "node 2 should have recovered from its older snapshot; mntr: " + m);
                assertTrue(Long.parseLong(m.get("volery_acceptor_torn_bytes")) > 0,
                        "the torn record should be cut off and counted; mntr: " + m);
                assertTrue(Files.exists(newest.resolveSibling(newest.getFileName() + ".corrupt")),
                        "the damaged snapshot should be set aside as " + newest.getFileName() + ".corrupt");
                String log = Files.readString(cluster.log(2));
                assertTrue(log.contains("is damaged and will not be used"), "the damage should be logged:\n" + cluster.tail(2));
                assertTrue(log.contains("discarding torn tail"), "the torn tail should be logged:\n" + cluster.tail(2));
                assertEquals("0", m.get("volery_snapshots_fetched"), "node 2 had an intact older snapshot; mntr: " + m);

                writes.run(zk, 20);
            }
            for (int repaired : new int[] {2, 5}) {
                try (ZooKeeper reader = cluster.session(repaired)) {
                    assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, read through repaired node "
                            + repaired);
                }
            }
            cluster.assertReplicasAgree(1);
            cluster.assertReplicasAgree(2);
        }
    }

    /**
     * Damage in the middle of an acceptor log (not a torn tail) stops the node rather than be used; the
     * message says how to rebuild the acceptor, and doing so (moving the ring's directory aside) makes it
     * rejoin from the other acceptors before it votes (ADR 074). Then node 1 is killed, so that ring 1
     * decides only with the rebuilt acceptor's votes, and nothing acknowledged is lost.
     */
    @Test
    void aCorruptAcceptorLogStopsTheNode_andTheAcceptorRebuiltAsItSaysRejoins(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 1000)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(3))) {
                writes.run(zk, 60);
            }
            cluster.kill(2);
            Path ringDir = cluster.nodeData(2).resolve("ring-1");
            Path segment = newestSegment(ringDir);
            flipBytes(segment, Files.size(segment) / 2, 4); // valid records follow: damage, not a torn write
            AssertionError refused = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> cluster.start(2));
            String log = Files.readString(cluster.log(2));
            assertTrue(log.contains("corrupt acceptor log"), "node 2 should stop on the damage: " + refused.getMessage());
            assertTrue(log.contains("move " + ringDir + " aside"), "the message should say how to rebuild the acceptor:\n"
                    + cluster.tail(2));

            Files.move(ringDir, ringDir.resolveSibling("ring-1.damaged"));
            cluster.start(2);
            ProcessCluster.await("node 2's acceptor of ring 1 rejoining", 60_000, () -> cluster.acceptorJoined(2, 1));
            assertTrue(Files.readString(cluster.log(2)).contains("ring=1: acceptor rejoined"), cluster.tail(2));
            cluster.kill(1);
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(3))) {
                writes.run(zk, 30);
            }
            assertEquals(90, writes.acknowledged(), "with node 1 down ring 1 needs node 2's votes; failures: "
                    + writes.failures() + "\nnode 2:\n" + cluster.tail(2));
            try (ZooKeeper reader = cluster.session(2)) {
                assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, read through node 2");
            }
        }
    }

    private static void awaitMoreAcknowledged(AcknowledgedWrites writes, int more) throws InterruptedException {
        long target = writes.acknowledged() + more;
        ProcessCluster.await(more + " more writes acknowledged (at " + writes.acknowledged() + ", failed "
                + writes.failed() + ")", 60_000, () -> writes.acknowledged() >= target);
    }

    private static int snapshotCount(ProcessCluster cluster, int id) {
        try {
            return cluster.snapshots(id).size();
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private static void flipBytes(Path file, long offset, int count) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            for (int i = 0; i < count; i++) {
                f.seek(offset + i);
                int b = f.read();
                f.seek(offset + i);
                f.write(b ^ 0xff);
            }
        }
    }

    private static Path newestSegment(Path ringDir) throws Exception {
        try (Stream<Path> s = Files.list(ringDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted()
                    .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("no segment in " + ringDir));
        }
    }
}
