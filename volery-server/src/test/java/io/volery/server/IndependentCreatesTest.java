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
 * (that wait is checked with a partition held in {@link DeferredTopLevelTest}).
 */
class IndependentCreatesTest {

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void topLevelCreatesSendNoSignals_deletesDo_andEveryReplicaAgrees() throws Exception {
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

                // a top-level delete keeps its signals (its owner's verdict is one-way): the counter counts
                long[] beforeDelete = signals(c);
                zk.delete("/independent-0", -1);
                long sent = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                do {
                    long[] now = signals(c);
                    sent = 0;
                    for (int i = 0; i < now.length; i++) {
                        sent += now[i] - beforeDelete[i];
                    }
                } while (sent == 0 && System.nanoTime() < deadline && sleep());
                assertTrue(sent > 0, "the delete was signalled");
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

    private static boolean sleep() throws InterruptedException {
        Thread.sleep(20);
        return true;
    }
}
