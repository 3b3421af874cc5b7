package io.volery.client;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Native clients come and go without the replicas' reply tables growing (ADR 058): each one retires
 * its replies when it closes, so after any number of them the tables hold what they held before.
 */
class NativeClientRetireTest {

    private static final int TICK_MILLIS = 2000;

    @Test
    void nativeClientsThatCameAndWentLeaveNoRepliesBehind() throws Exception {
        try (ClusterWithClientNodes cluster = new ClusterWithClientNodes(2, 3, 1, TICK_MILLIS)) {
            Subtrees subtrees = new Subtrees(new int[] {1, 2});
            String one = subtrees.in(1, "retire");
            String two = subtrees.in(2, "retire");
            CountDownLatch connected = new CountDownLatch(1);
            try (ZooKeeper zk = new ZooKeeper(cluster.connectString(), 30_000, e -> {
                if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            })) {
                assertTrue(connected.await(30, TimeUnit.SECONDS), "a ZooKeeper session through the front ends");
                zk.create(one, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create(two, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                long before = entries(cluster, zk, one, two);
                for (int i = 0; i < 3; i++) {
                    try (VoleryClient c = VoleryClient.connect(cluster.config(), 30_000, e -> { })) {
                        c.create(one + "/n" + i, new byte[] {1}, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                        c.create(two + "/n" + i, new byte[] {2}, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                        c.setData(one, new byte[] {(byte) i}, -1);
                    }
                }
                assertEquals(3, zk.getChildren(one, false).size(), "the native clients' writes are there");
                long after = entries(cluster, zk, one, two);
                assertTrue(after <= before, "three native clients opened, wrote to both partitions and closed: "
                        + "their replies are gone (" + before + " client entries before them, " + after + " after)");
                long retired = cluster.servers().stream().mapToLong(n -> n.replica().clientsRetired()).sum();
                assertTrue(retired >= 3 * 2 * 3, "each closed client retired from a set at both partitions' replicas: " + retired);
            }
        }
    }

    /**
     * The reply-table clients summed over the replicas once the sum has held still for longer than a
     * tick (a front end's first tick or touch adds its entry when it comes): writes to each partition
     * every 100 ms keep every replica's gauge, which is set at its deliveries, fresh.
     */
    private static long entries(ClusterWithClientNodes cluster, ZooKeeper zk, String one, String two) throws Exception {
        long last = -1;
        long steadySince = System.nanoTime();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            zk.setData(one, new byte[0], -1);
            zk.setData(two, new byte[0], -1);
            Thread.sleep(100);
            long now = cluster.servers().stream().mapToLong(n -> n.replica().replyTableClients()).sum();
            if (now != last) {
                last = now;
                steadySince = System.nanoTime();
            } else if (System.nanoTime() - steadySince > TimeUnit.MILLISECONDS.toNanos(3 * TICK_MILLIS / 2)) {
                return now;
            }
        }
        throw new AssertionError("the reply tables never held still; last sum " + last);
    }
}
