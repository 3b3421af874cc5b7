package io.volery.server;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VolerySmokeTest {

    static ZooKeeper connect(String connect) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 10_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(20, TimeUnit.SECONDS), "connected");
        return zk;
    }

    @Test
    void basicOperationsThroughTheZooKeeperClient() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            ZooKeeper zk = connect(c.connectString());
            assertEquals("/a", zk.create("/a", "x".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            Stat st = new Stat();
            assertArrayEquals("x".getBytes(), zk.getData("/a", false, st));
            assertEquals(0, st.getVersion());
            zk.setData("/a", "y".getBytes(), 0);
            assertEquals("/a/b", zk.create("/a/b", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            assertEquals(java.util.List.of("b"), zk.getChildren("/a", false));
            String seq = zk.create("/a/s-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
            assertEquals("/a/s-0000000001", seq);
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            zk.getData("/a", events::add, null);
            zk.setData("/a", "z".getBytes(), -1);
            WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
            assertEquals(Watcher.Event.EventType.NodeDataChanged, e.getType());
            zk.create("/q", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertTrue(zk.getChildren("/", false).containsAll(java.util.List.of("a", "q")));
            zk.delete("/q", -1);
            zk.close();
        }
    }
}
