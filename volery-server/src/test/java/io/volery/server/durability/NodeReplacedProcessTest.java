package io.volery.server.durability;

import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failed machine replaced at another address without restarting the rest (ADR 102): a 2 x 3 Volery cluster as six
 * processes with in-memory acceptors. Node 3 is killed with kill -9 and its entry in the cluster file moved to other
 * ports; the running nodes read the file again and dial node 3 there. The replacement starts empty at the new
 * address, rejoins ring 1 (which needs its peers to reach it), and then carries the ring's votes with node 1 killed.
 * A file that changes anything else is refused while every node goes on serving.
 */
class NodeReplacedProcessTest {

    private static final int[] SURVIVORS = {1, 2, 4, 5, 6};

    @Test
    void aDeadNodeIsReplacedAtAnotherAddressAndTheOthersTakeItUpWithoutARestart(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "memory", 100_000)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(3))) {
                writes.run(zk, 40);
            }
            assertEquals(40, writes.acknowledged(), "failures: " + writes.failures());

            // the machine of node 3 dies; its replacement has another address and nothing on disk
            cluster.kill(3);
            if (Files.exists(cluster.nodeData(3))) {
                org.apache.commons.io.file.PathUtils.deleteDirectory(cluster.nodeData(3));
            }
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(1))) {
                writes.run(zk, 20);
            }
            int newClientPort = cluster.moveNode(3);
            for (int id : SURVIVORS) {
                ProcessCluster.await("node " + id + " taking up the new cluster file", 30_000,
                        () -> cluster.counter(id, "volery_cluster_file_reloads") >= 1);
                assertEquals(0, cluster.counter(id, "volery_cluster_file_refused"), "node " + id + ": " + cluster.tail(id));
            }
            assertTrue(Files.readString(cluster.log(1)).contains("nodes [3] are dialled at"), cluster.tail(1));

            cluster.start(3);
            ProcessCluster.await("the replacement of node 3 rejoining ring 1 (its peers reach it at its new address)",
                    60_000, () -> cluster.acceptorJoined(3, 1));

            // ring 1 (acceptors 1, 2, 3) now decides only with the replacement's votes
            cluster.kill(1);
            try (ZooKeeper zk = cluster.session(3)) {
                assertEquals(newClientPort, io.volery.server.ServerOfClient.port(zk));
                writes.run(zk, 40);
                String ensemble = new String(zk.getConfig(false, null), StandardCharsets.UTF_8);
                assertTrue(ensemble.contains("server.3=127.0.0.1:") && ensemble.contains(";127.0.0.1:" + newClientPort + "\n"),
                        "/zookeeper/config should list node 3's new client address:\n" + ensemble);
            }
            assertEquals(100, writes.acknowledged(), "with node 1 down, ring 1 needs the replacement's votes; failures: "
                    + writes.failures() + "\nnode 3:\n" + cluster.tail(3));
            for (int id : new int[] {2, 3, 5}) {
                try (ZooKeeper reader = cluster.session(id)) {
                    assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, as read through node " + id);
                }
            }
            try (ZooKeeper zk = cluster.session(4)) {
                String ensemble = new String(zk.getConfig(false, null), StandardCharsets.UTF_8);
                assertTrue(ensemble.contains(";127.0.0.1:" + newClientPort + "\n"),
                        "node 4's /zookeeper/config should list node 3's new client address:\n" + ensemble);
            }
            cluster.start(1);
            cluster.assertReplicasAgree(1);

            // anything else changed while the nodes run is refused, and they go on serving with the file they run with
            String moved = Files.readString(cluster.config());
            assertTrue(moved.contains("snapCount = 100000\n"), moved);
            cluster.rewriteConfig(moved.replace("snapCount = 100000", "snapCount = 5000"));
            for (int id : ProcessCluster.NODES) {
                ProcessCluster.await("node " + id + " refusing a new snapCount", 30_000,
                        () -> cluster.counter(id, "volery_cluster_file_refused") >= 1);
            }
            assertTrue(Files.readString(cluster.log(2)).contains("snapCount: '100000' becomes '5000'"), cluster.tail(2));
            try (ZooKeeper zk = cluster.session(2)) {
                writes.run(zk, 10);
            }
            assertEquals(110, writes.acknowledged(), "failures: " + writes.failures());
        }
    }

    /**
     * The same machine replaced behind its host name instead (a Kubernetes pod rescheduled, a DNS record moved): the
     * file names nodes by host names and does not change; node 3's name points elsewhere when its replacement starts,
     * with durable storage and an empty disk. The others dial the name's new address once their lookups expire, and
     * answer the replacement's snapshot request from its new address: a node resolves the names again when a side
     * request comes from an address that is not among them.
     */
    @Test
    void aNodeWhoseNameMovesToAnotherAddressIsFoundThereWithTheSameFile(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = ProcessCluster.named(dir, "durable", 20)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(3))) {
                writes.run(zk, 60);
            }
            assertEquals(60, writes.acknowledged(), "failures: " + writes.failures());
            assertTrue(cluster.snapshots(1).size() > 0, "node 1 should have taken a snapshot with snapCount=20");

            cluster.kill(3);
            if (Files.exists(cluster.nodeData(3))) {
                org.apache.commons.io.file.PathUtils.deleteDirectory(cluster.nodeData(3));
            }
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(1))) {
                writes.run(zk, 20);
            }
            // the replacement's address: no node was there before, so only a fresh lookup admits its side requests
            cluster.pointName(3, "127.0.0.1");
            String file = Files.readString(cluster.config());
            cluster.start(3);
            ProcessCluster.await("the replacement of node 3 rejoining ring 1 (its peers dial its name's new address)",
                    60_000, () -> cluster.acceptorJoined(3, 1));
            assertEquals(1, cluster.counter(3, "volery_snapshots_fetched"),
                    "the replacement should have restored a peer's snapshot; node 3:\n" + cluster.tail(3));

            cluster.kill(1);
            try (ZooKeeper zk = cluster.session(3)) {
                writes.run(zk, 40);
            }
            assertEquals(120, writes.acknowledged(), "with node 1 down, ring 1 needs the replacement's votes; failures: "
                    + writes.failures() + "\nnode 3:\n" + cluster.tail(3));
            for (int id : new int[] {2, 3, 5}) {
                try (ZooKeeper reader = cluster.session(id)) {
                    assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, as read through node " + id);
                }
            }
            cluster.start(1);
            cluster.assertReplicasAgree(1);
            assertEquals(file, Files.readString(cluster.config()), "the cluster file did not change");
            for (int id : SURVIVORS) {
                assertEquals(0, cluster.counter(id, "volery_cluster_file_reloads"), "node " + id);
            }
        }
    }
}
