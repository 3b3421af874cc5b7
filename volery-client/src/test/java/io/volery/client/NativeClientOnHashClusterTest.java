package io.volery.client;

import io.volery.server.config.VoleryConfig;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The native client on a hash-partitioned cluster: it learns the strategy from the servers'
 * configuration file and routes each path to the partition that owns it; and, like a front end, it
 * releases a write's reply only after the front ends of sessions watching the changed znode have
 * queued the event.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeClientOnHashClusterTest {

    private ClusterWithClientNodes cluster;
    private VoleryClient nativeClient;
    private final EventLog nativeLog = new EventLog();
    private ZooKeeper zk;
    private final EventLog zkLog = new EventLog();

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 1, 2000, VoleryConfig.Partitioning.HASH);
        Path file = dir.resolve("volery.cfg");
        // the file the servers would be started with: the rings plus Volery's keys
        Files.writeString(file, cluster.clusterFileText() + "partitioning = hash\n", StandardCharsets.UTF_8);
        nativeClient = VoleryClient.connect(file, 30_000, nativeLog);
        // one front end only, so that holding its events holds every event of this session
        zk = new ZooKeeper("127.0.0.1:" + cluster.servers().get(0).clientAddress().getPort(), 30_000, zkLog);
        zkLog.await(KeeperState.SyncConnected);
    }

    @AfterAll
    void stop() throws Exception {
        if (zk != null) {
            zk.close();
        }
        if (nativeClient != null) {
            nativeClient.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyPathIsReadFromThePartitionThatOwnsItsData() throws Exception {
        nativeClient.create("/h", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            String p = "/h/n" + i;
            paths.add(p);
            nativeClient.create(p, ("v" + i).getBytes(StandardCharsets.UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
        for (int i = 0; i < paths.size(); i++) {
            String p = paths.get(i);
            byte[] expected = ("v" + i).getBytes(StandardCharsets.UTF_8);
            Stat viaNative = new Stat();
            assertArrayEquals(expected, nativeClient.getData(p, false, viaNative), "native read of " + p);
            Stat viaZk = new Stat();
            assertArrayEquals(expected, zk.getData(p, false, viaZk), "ZooKeeper client read of " + p);
            assertEquals(viaZk, viaNative, "both clients see the same Stat of " + p);
        }
        assertEquals(paths.size(), nativeClient.getChildren("/h", false).size());
    }

    @Test
    void aWriteIsAnsweredOnlyAfterTheWatchersFrontEndQueuedItsEvent() throws Exception {
        nativeClient.create("/watched", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        CompletableFuture<WatchedEvent> fired = new CompletableFuture<>();
        zk.getData("/watched", fired::complete, null);
        cluster.servers().get(0).service().holdEvents();
        CompletableFuture<Stat> write;
        try {
            write = nativeClient.setDataAsync("/watched", "new".getBytes(StandardCharsets.UTF_8), -1);
            // The replicas answered long before this; the reply must still wait for the front end.
            Thread.sleep(500);
            assertFalse(write.isDone(), "the write was answered while its watch event was still held at the "
                    + "watcher's front end: a third party could read the change before the watcher hears of it");
        } finally {
            cluster.servers().get(0).service().releaseEvents();
        }
        assertEquals(1, write.get(10, TimeUnit.SECONDS).getVersion());
        WatchedEvent e = fired.get(10, TimeUnit.SECONDS);
        assertEquals(EventType.NodeDataChanged, e.getType());
    }
}
