package io.volery.server;

import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ADR 037: a create of a top-level node runs in every partition without round-0 signals; the exchange of
 * its watch events, which every partition sends once it executed the create, is what its reply waits for
 * (that wait is checked with a partition held in {@link DeferredTopLevelTest}). ADR 046: so does a delete
 * of one, after its owner's verdict.
 */
class IndependentCreatesTest {

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void topLevelCreatesAndDeletesSendNoSignals_andEveryReplicaAgrees() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            ZooKeeper zk = VolerySmokeTest.connect(c.connectString());
            // a watch on the root's children, held by another session: the events still reach it once
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            ZooKeeper watcher = VolerySmokeTest.connect(c.connectString());
            try {
                watcher.getChildren("/", e -> events.add(e));
                // that read of every partition was signalled; wait until its last signal left
                long[] signals = quiet(c);
                long[] independent = c.nodes().stream().mapToLong(n -> n.replica().independentCommands()).toArray();
                List<String> created = new ArrayList<>();
                int[] owned = new int[c.partitions().length];
                for (int i = 0; i < 12; i++) {
                    String path = "/independent-" + i;
                    CreateMode mode = i % 3 == 2 ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT;
                    assertEquals(path, zk.create(path, new byte[] {(byte) i}, ZooDefs.Ids.OPEN_ACL_UNSAFE, mode));
                    created.add(path.substring(1));
                    owned[java.util.Arrays.binarySearch(c.partitions(), partitioner.ownerOf(path))]++;
                }
                for (int n : owned) {
                    assertTrue(n > 0, "both partitions own some of the new nodes");
                }
                // a refused create is answered too (by every partition alike, from the root's children)
                assertThrows(KeeperException.NodeExistsException.class,
                        () -> zk.create("/independent-0", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                WatchedEvent fired = events.poll(20, TimeUnit.SECONDS);
                assertTrue(fired != null && fired.getType() == Watcher.Event.EventType.NodeChildrenChanged
                        && "/".equals(fired.getPath()), "the root's child watch fired once: " + fired);
                assertEquals(null, events.poll(300, TimeUnit.MILLISECONDS), "and only once");

                long[] after = signals(c);
                for (int i = 0; i < after.length; i++) {
                    assertEquals(signals[i], after[i], "node " + c.nodes().get(i).nodeId()
                            + " sent round-0 signals for top-level creates");
                    long ran = c.nodes().get(i).replica().independentCommands() - independent[i];
                    assertTrue(ran >= created.size(), "node " + c.nodes().get(i).nodeId() + " ran the "
                            + created.size() + " creates without signals: " + ran);
                }
                // every replica of both partitions lists them, and the owners hold their data
                zk.sync("/", (rc, path, ctx) -> { }, null);
                TreeSet<String> expected = new TreeSet<>(zk.getChildren("/", false));
                assertTrue(expected.containsAll(created), expected.toString());
                for (VoleryNode n : c.nodes()) {
                    TreeSet<String> listed = new TreeSet<>(n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS));
                    assertEquals(expected, listed, "node " + n.nodeId());
                }
                assertEquals(5, zk.getData("/independent-5", false, null)[0]);

                // deletes of top-level nodes run without signals too (ADR 046): the owner's verdict and
                // then every partition's event part; a refused delete is answered from the owner's verdict
                long[] beforeDelete = signals(c);
                long[] independentBeforeDelete = c.nodes().stream().mapToLong(n -> n.replica().independentCommands()).toArray();
                int[] deletedOwned = new int[c.partitions().length];
                List<String> deleted = new ArrayList<>();
                zk.create("/independent-0/child", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertThrows(KeeperException.NotEmptyException.class, () -> zk.delete("/independent-0", -1));
                assertThrows(KeeperException.BadVersionException.class, () -> zk.delete("/independent-1", 7));
                assertThrows(KeeperException.NoNodeException.class, () -> zk.delete("/independent-none", -1));
                zk.delete("/independent-0/child", -1);
                for (int i = 0; i < 6; i++) {
                    String path = "/independent-" + i;
                    zk.delete(path, -1);
                    deleted.add(path.substring(1));
                    deletedOwned[java.util.Arrays.binarySearch(c.partitions(), partitioner.ownerOf(path))]++;
                }
                for (int n : deletedOwned) {
                    assertTrue(n > 0, "both partitions own some of the deleted nodes");
                }
                long[] afterDelete = quiet(c);
                for (int i = 0; i < afterDelete.length; i++) {
                    assertEquals(beforeDelete[i], afterDelete[i], "node " + c.nodes().get(i).nodeId()
                            + " sent round-0 signals for top-level deletes");
                    long ran = c.nodes().get(i).replica().independentCommands() - independentBeforeDelete[i];
                    assertTrue(ran >= deleted.size() + 3, "node " + c.nodes().get(i).nodeId() + " ran the "
                            + (deleted.size() + 3) + " deletes without signals: " + ran);
                }
                zk.sync("/", (rc, path, ctx) -> { }, null);
                TreeSet<String> left = new TreeSet<>(zk.getChildren("/", false));
                for (String d : deleted) {
                    assertTrue(!left.contains(d), d + " is gone: " + left);
                }
                assertTrue(left.contains("independent-6"), left.toString());
                for (VoleryNode n : c.nodes()) {
                    TreeSet<String> listed = new TreeSet<>(n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS));
                    assertEquals(left, listed, "node " + n.nodeId());
                }
            } finally {
                zk.close();
                watcher.close();
            }
        }
    }

    private static long[] signals(VoleryCluster c) {
        return c.nodes().stream().mapToLong(n -> n.replica().signalsSentAtDelivery()).toArray();
    }

    /** The signal counters once they stayed put for half a second. */
    private static long[] quiet(VoleryCluster c) throws InterruptedException {
        long[] last = signals(c);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Thread.sleep(500);
            long[] now = signals(c);
            if (java.util.Arrays.equals(now, last)) {
                return now;
            }
            last = now;
        }
        throw new AssertionError("signals kept being sent with no client request in flight");
    }

}
