package io.volery.server;

import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under hash partitioning a node's data lives in its owner only (ADR 092): every partition lists the node, and
 * whichever answers its create answers with the node's Stat, but only the owner's replicas keep the bytes, so a
 * cluster's memory for data does not grow with its partitions.
 */
class HashDataPlacementTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void onlyTheOwnersReplicasKeepANodesData() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 2, 0, 2000, o -> o.withPartitioning(VoleryConfig.Partitioning.HASH))) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions(), VoleryConfig.Partitioning.HASH);
            List<ZooKeeper> sessions = new ArrayList<>();
            for (VoleryNode n : c.nodes()) {
                sessions.add(VolerySmokeTest.connect("127.0.0.1:" + n.clientAddress().getPort()));
            }
            try {
                ZooKeeper any = sessions.get(0);
                any.create("/dir", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                List<String> paths = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    ZooKeeper zk = sessions.get(i % sessions.size()); // front ends of both partitions answer
                    byte[] data = new byte[1000];
                    Arrays.fill(data, (byte) i);
                    Stat stat = new Stat();
                    String path = zk.create("/dir/n" + i, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, stat);
                    assertEquals(1000, stat.getDataLength(), "create2's Stat of " + path + " through node "
                            + c.nodes().get(i % sessions.size()).nodeId());
                    paths.add(path);
                }
                int[] owned = new int[c.partitions().length];
                for (String path : paths) {
                    int owner = partitioner.ownerOf(path);
                    owned[owner == c.partitions()[0] ? 0 : 1]++;
                    for (VoleryNode n : c.nodes()) {
                        byte[] held = n.replica().probe().inspect(t -> t.data(path)).get(20, TimeUnit.SECONDS);
                        if (n.replica().getLocalPartition().getId() == owner) {
                            assertEquals(1000, held.length, "node " + n.nodeId() + " owns " + path);
                        } else {
                            assertNull(held, "node " + n.nodeId() + " lists " + path + " but keeps no data");
                        }
                    }
                }
                assertTrue(owned[0] > 0 && owned[1] > 0, "the nodes spread over both partitions: " + Arrays.toString(owned));
                // every session reads every node's data and Stat, and sees every node listed
                for (ZooKeeper zk : sessions) {
                    assertEquals(40, zk.getChildren("/dir", false).size());
                    for (int i = 0; i < paths.size(); i++) {
                        Stat stat = new Stat();
                        byte[] data = zk.getData(paths.get(i), false, stat);
                        assertEquals(1000, data.length);
                        assertEquals((byte) i, data[999]);
                        assertEquals(1000, stat.getDataLength());
                    }
                }
                sessions.get(1).setData(paths.get(0), new byte[] {7}, 0);
                assertArrayEquals(new byte[] {7}, sessions.get(2).getData(paths.get(0), false, null));
                sessions.get(3).delete(paths.get(1), -1);
                assertNull(sessions.get(0).exists(paths.get(1), false));
            } finally {
                for (ZooKeeper zk : sessions) {
                    zk.close();
                }
            }
        }
    }
}
