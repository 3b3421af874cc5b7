package io.volery.server.durability;

import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica that starts without a snapshot while no peer can give it one, after its rings' acceptors trimmed their
 * logs, takes a peer's snapshot as soon as one is offered and goes on without a restart (ADR 103). A 2 x 3 durable
 * Volery cluster as six processes with snapCount 20: every process is killed with kill -9, node 3's disk is lost,
 * and node 3 starts first and alone, so it starts from the beginning of its rings. When the others are back, the
 * acceptors tell its learner that they keep nothing below their checkpoints. Before: it logged an error and its
 * replica never executed again (no digest, nothing on disk); the partition ran on two replicas while node 3 looked
 * healthy (its clients were answered by the others), one failure away from unavailability.
 */
class LearnerBehindTrimProcessTest {

    @Test
    void aReplicaBehindTheTrimmedLogsTakesAPeersSnapshotWhileRunning(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 20)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(1))) {
                writes.run(zk, 120);
            }
            assertEquals(120, writes.acknowledged(), "failures: " + writes.failures());
            for (int id : ProcessCluster.replicasOf(1)) {
                ProcessCluster.await("node " + id + " keeping two snapshots (the acceptors trim below the older)", 30_000,
                        () -> snapshots(cluster, id) >= 2);
            }

            cluster.killAll();
            org.apache.commons.io.file.PathUtils.deleteDirectory(cluster.nodeData(3));
            cluster.start(3); // alone: no peer answers its snapshot request, so it starts from the beginning
            assertTrue(Files.readString(cluster.log(3)).contains("no peer offered one: starting from the beginning"),
                    cluster.tail(3));
            for (int id : new int[] {1, 2, 4, 5, 6}) {
                cluster.start(id);
            }

            ProcessCluster.await("node 3 taking a peer's snapshot in place of its empty state", 90_000,
                    () -> cluster.counter(3, "volery_learner_repositions") >= 1);
            String log3 = Files.readString(cluster.log(3));
            assertTrue(log3.contains("trimmed its log below"), "the premise: the acceptors trimmed what node 3 needs\n"
                    + cluster.tail(3));
            assertTrue(log3.contains("took a peer's checkpoint of position="), cluster.tail(3));
            assertEquals(1, cluster.counter(3, "volery_learner_repositions"), "once");

            try (ZooKeeper zk = cluster.session(3)) {
                writes.run(zk, 30);
                assertEquals(150, writes.acknowledged(), "writes through node 3 after it moved; failures: "
                        + writes.failures() + "\nnode 3:\n" + cluster.tail(3));
                assertEquals(List.of(), writes.lostWrites(zk), "acknowledged writes lost, as read through node 3");
            }
            cluster.assertReplicasAgree(1);

            // its state is durable again: a kill -9 restarts it from the snapshot it took, not from the beginning
            cluster.kill(3);
            cluster.start(3);
            try (ZooKeeper zk = cluster.session(3)) {
                assertEquals(List.of(), writes.lostWrites(zk), "acknowledged writes lost after node 3's restart");
            }
            assertEquals(0, cluster.counter(3, "volery_learner_repositions"), "a restart that needs no peer");
            assertEquals(0, cluster.counter(3, "volery_snapshots_fetched"), "it restarts from its own snapshot");
        }
    }

    private static int snapshots(ProcessCluster cluster, int id) {
        try {
            return cluster.snapshots(id).size();
        } catch (IOException e) {
            return 0;
        }
    }
}
