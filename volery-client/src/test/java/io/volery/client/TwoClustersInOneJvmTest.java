package io.volery.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * A JVM that runs the nodes of one Volery cluster and then starts (or connects a native client to) another with
 * fewer partitions: the partition list of the paper's API is per JVM and the last cluster installed wins, so the
 * first cluster's nodes once failed to order their sessions' touches ("no partition 2 in the cluster file") for
 * as long as the second one lived, and their ZooKeeper sessions expired while connected. Both clusters keep
 * serving and the first one's sessions stay alive.
 */
class TwoClustersInOneJvmTest {
    private static final int SESSION_MILLIS = 2_000;

    @Test
    void aSecondClusterInTheJvmDoesNotStopTheFirstOnesTouches() throws Exception {
        try (ClusterWithClientNodes two = new ClusterWithClientNodes(2, 3, 0, 500)) {
            List<Watcher.Event.KeeperState> states = new CopyOnWriteArrayList<>();
            CountDownLatch connected = new CountDownLatch(1);
            // a 2 s session on one node of the two-partition cluster (tickTime 500 ms allows 1..10 s)
            ZooKeeper zk = new ZooKeeper("127.0.0.1:" + two.servers().get(0).clientAddress().getPort(), SESSION_MILLIS, e -> {
                states.add(e.getState());
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                assertTrue(connected.await(30, TimeUnit.SECONDS), "connected");
                long session = zk.getSessionId();
                zk.create("/in-p1", new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                try (ClusterWithClientNodes one = new ClusterWithClientNodes(1, 3, 0, 500)) {
                    ZooKeeper other = ProcessReplicas.connect(one.connectString(), SESSION_MILLIS);
                    other.create("/b", new byte[] {2}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    // four session timeouts with the second cluster up: only touches keep the first session
                    Thread.sleep(8_000);
                    assertArrayEquals(new byte[] {2}, other.getData("/b", false, null), "the second cluster serves");
                    other.close();
                    assertFalse(states.contains(Watcher.Event.KeeperState.Expired),
                            "the first cluster's session expired while connected: " + states);
                    assertEquals(session, zk.getSessionId());
                    assertArrayEquals(new byte[] {1}, zk.getData("/in-p1", false, null), "the first cluster serves");
                    assertNotNull(zk.exists("/in-p1", false));
                    // writes to both partitions of the first cluster (top-level names of each)
                    Subtrees subtrees = new Subtrees(new int[] {1, 2});
                    for (int p = 1; p <= 2; p++) {
                        String top = subtrees.in(p, "second-jvm-cluster");
                        zk.create(top, new byte[] {(byte) p}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                        assertArrayEquals(new byte[] {(byte) p}, zk.getData(top, false, null), top);
                    }
                    // a client that vanishes without closing its session: its ephemeral goes once the session
                    // times out, which takes the touches that advance session time
                    ZooKeeper gone = ProcessReplicas.connect("127.0.0.1:" + two.servers().get(1).clientAddress().getPort(), SESSION_MILLIS);
                    gone.create("/eph", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                    gone.getTestable().injectSessionExpiration(); // the client stops; the server is not told
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (zk.exists("/eph", false) != null && System.nanoTime() < deadline) {
                        Thread.sleep(100);
                    }
                    assertEquals(null, zk.exists("/eph", false), "the vanished client's ephemeral expired");
                    gone.close();
                }
                assertFalse(states.contains(Watcher.Event.KeeperState.Expired), "expired after: " + states);
            } finally {
                zk.close();
            }
        }
    }
}
