package io.volery.server;

import io.volery.server.admin.FourLetterWordClient;
import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A recursive watch on a node whose subtree spans partitions (the root; /zookeeper and /zookeeper/quota since
 * ADR 072) is kept by every partition, so removing it must reach every partition: before, removeWatches went
 * to the node's owner alone, and the other partitions kept the watch (and sent its events) for the rest of the
 * session. Checked on the nodes' own watch counts (the Java client drops events it no longer has a watcher
 * for), and by NoWatcher on a second removal, as ZooKeeper answers it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecursiveWatchRemovalTest {

    @Test
    void removingARecursiveWatchOnTheRootReachesEveryPartition() throws Exception {
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 2000, c -> c, o -> o)) {
            PathPartitioner p = new PathPartitioner(cluster.partitions());
            ZooKeeper zk = new ZooKeeper("127.0.0.1:" + cluster.nodes().get(0).clientAddress().getPort(), 10_000, e -> { });
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (zk.getState() != ZooKeeper.States.CONNECTED && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                Set<Integer> owners = new HashSet<>();
                for (char c = 'a'; c <= 'h'; c++) {
                    zk.create("/w" + c, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    owners.add(p.ownerOf("/w" + c));
                }
                assertEquals(2, owners.size(), "the nodes live in both partitions");
                for (String path : new String[] {"/", "/zookeeper", "/zookeeper/quota"}) {
                    zk.addWatch(path, e -> { }, AddWatchMode.PERSISTENT_RECURSIVE);
                    assertEquals(2, watches(cluster, 2), "the recursive watch on " + path + " is kept by both partitions");
                    zk.removeAllWatches(path, Watcher.WatcherType.Any, false);
                    assertEquals(0, watches(cluster, 0), "removing the recursive watch on " + path + " reaches both partitions");
                    assertThrows(KeeperException.NoWatcherException.class,
                            () -> zk.removeAllWatches(path, Watcher.WatcherType.Any, false), "and it is gone");
                }
            } finally {
                zk.close();
            }
        }
    }

    /** zk_watch_count summed over the nodes, once it is {@code expected} or after 5 s (a partition may apply later). */
    private static int watches(VoleryCluster cluster, int expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int sum = watches(cluster);
        while (sum != expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
            sum = watches(cluster);
        }
        return sum;
    }

    private static int watches(VoleryCluster cluster) throws Exception {
        int sum = 0;
        for (VoleryNode n : cluster.nodes()) {
            for (String line : FourLetterWordClient.ask(n.clientAddress(), "mntr", 5000).split("\n")) {
                if (line.startsWith("zk_watch_count\t")) {
                    sum += Integer.parseInt(line.substring("zk_watch_count\t".length()).strip());
                }
            }
        }
        return sum;
    }
}
