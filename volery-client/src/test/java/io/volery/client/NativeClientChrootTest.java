package io.volery.client;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A native client connected with a chroot and a ZooKeeper 3.9.5 client with the same chroot in its
 * connect string ("host:port/app"), on one cluster: both take paths relative to the chroot, see the
 * same paths in results, events and errors, and the cluster sees the paths below the chroot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NativeClientChrootTest {
    private static final List<ACL> OPEN = Ids.OPEN_ACL_UNSAFE;

    private ClusterWithClientNodes cluster;
    private Subtrees subtrees;
    private VoleryClient whole;

    @BeforeAll
    void start() throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 3, 2000);
        subtrees = new Subtrees(new int[] {1, 2});
        whole = VoleryClient.connect(cluster.config(), 30_000, e -> { });
    }

    @AfterAll
    void stop() {
        if (whole != null) {
            whole.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private ZooKeeper zooKeeper(String chroot, EventLog log) throws Exception {
        ZooKeeper zk = new ZooKeeper(cluster.connectString() + chroot, 30_000, log);
        log.await(KeeperState.SyncConnected);
        return zk;
    }

    @Test
    void pathsInResultsEventsAndErrorsAreRelativeToTheChroot() throws Exception {
        String app = subtrees.in(1, "app");
        whole.create(app, null, OPEN, CreateMode.PERSISTENT);
        EventLog nativeLog = new EventLog();
        EventLog zkLog = new EventLog();
        Path file = Files.createTempFile("volery-cluster", ".properties");
        try (VoleryClient n = VoleryClient.connect(writeClusterFile(file), app, 30_000, nativeLog)) {
            ZooKeeper z = zooKeeper(app, zkLog);
            try {
                Stat created = new Stat();
                assertEquals("/a", n.create("/a", "x".getBytes(), OPEN, CreateMode.PERSISTENT, created),
                        "create returns the path relative to the chroot");
                Stat read = new Stat();
                z.getData("/a", false, read);
                assertEquals(created, read, "the ZooKeeper client reads the node the native client created");
                assertTrue(whole.exists(app + "/a", false) != null, "the cluster holds it below the chroot");

                List<String> sequential = new ArrayList<>();
                sequential.add(n.create("/s-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL));
                sequential.add(z.create("/s-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL));
                sequential.add(n.createAsync("/s-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL).get().path());
                assertEquals(List.of("/s-0000000001", "/s-0000000002", "/s-0000000003"), sequential,
                        "sequential names relative to the chroot, sync and async");
                assertEquals(sorted(z.getChildren("/", false)), sorted(n.getChildren("/", false)),
                        "the chroot's children, listed from \"/\"");

                n.getData("/a", nativeLog, null);
                z.getData("/a", zkLog, null);
                n.getChildren("/", nativeLog);
                z.getChildren("/", zkLog);
                n.addWatch("/", nativeLog, AddWatchMode.PERSISTENT_RECURSIVE);
                z.addWatch("/", zkLog, AddWatchMode.PERSISTENT_RECURSIVE);
                z.setData("/a", "y".getBytes(), -1);
                n.create("/b", null, OPEN, CreateMode.PERSISTENT);
                n.create("/b/c", null, OPEN, CreateMode.PERSISTENT);
                for (EventLog log : List.of(nativeLog, zkLog)) {
                    log.await(EventType.NodeCreated, "/b/c");
                }
                // A watcher with a one-shot and a recursive watch on a node is told of a change once.
                assertEquals(List.of("NodeDataChanged /a", "NodeCreated /b", "NodeChildrenChanged /", "NodeCreated /b/c"),
                        nativeLog.nodeEvents(), "one-shot and recursive watches report paths relative to the chroot");
                assertEquals(zkLog.nodeEvents(), nativeLog.nodeEvents(), "the ZooKeeper client's events, then the native");

                assertEquals(failure(() -> z.getData("/none", false, null)), failure(() -> n.getData("/none", false, null)),
                        "an error names the caller's path");
                assertEquals("NONODE /none", failure(() -> n.getData("/none", false, null)));

                n.exists("/x", nativeLog);
                n.removeWatches("/x", nativeLog, WatcherType.Data, false);
                nativeLog.await(EventType.DataWatchRemoved, "/x");
            } finally {
                z.close();
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void multiResultsAndEphemeralsMatchTheZooKeeperClient() throws Exception {
        String app = subtrees.in(2, "app");
        whole.create(app, null, OPEN, CreateMode.PERSISTENT);
        EventLog zkLog = new EventLog();
        try (VoleryClient n = VoleryClient.connect(cluster.config(), app, 30_000, e -> { })) {
            ZooKeeper z = zooKeeper(app, zkLog);
            try {
                n.create("/on", null, OPEN, CreateMode.PERSISTENT);
                z.create("/oz", null, OPEN, CreateMode.PERSISTENT);
                List<OpResult> nativeResults = n.multi(List.of(Op.create("/mn", null, OPEN, CreateMode.PERSISTENT),
                        Op.setData("/on", null, -1), Op.check("/on", 1), Op.delete("/mn", -1)));
                List<OpResult> zkResults = z.multi(List.of(Op.create("/mz", null, OPEN, CreateMode.PERSISTENT),
                        Op.setData("/oz", null, -1), Op.check("/oz", 1), Op.delete("/mz", -1)));
                assertEquals(describe(zkResults).replace("/mz", "/mn"), describe(nativeResults),
                        "the ZooKeeper client's multi results (names swapped), then the native");

                n.create("/en", null, OPEN, CreateMode.EPHEMERAL);
                z.create("/ez", null, OPEN, CreateMode.EPHEMERAL);
                assertEquals(String.valueOf(z.getEphemerals("/")).replace("/ez", "/en"), String.valueOf(n.getEphemerals("/")),
                        "the ZooKeeper client's getEphemerals (names swapped), then the native");
                // ZooKeeper's client 3.9.5 passes these two on as the server sent them, chroot included.
                assertEquals("[create " + app + "/mn, SetDataResult, CheckResult, DeleteResult]", describe(nativeResults),
                        "a multi's create result names the full path, as ZooKeeper's client does");
                assertEquals(List.of(app + "/en"), n.getEphemerals("/"),
                        "getEphemerals names full paths, as ZooKeeper's client does");
            } finally {
                z.close();
            }
        }
    }

    @Test
    void aChrootMustBeAValidAbsolutePath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VoleryClient.connect(cluster.config(), "app/", 30_000, ev -> { }));
        assertTrue(e.getMessage().contains("invalid chroot \"app/\""), "the message names the chroot: " + e.getMessage());
    }

    private Path writeClusterFile(Path file) throws Exception {
        Files.writeString(file, cluster.clusterFileText());
        return file;
    }

    private static String describe(List<OpResult> results) {
        List<String> out = new ArrayList<>();
        for (OpResult r : results) {
            out.add(r instanceof OpResult.CreateResult c ? "create " + c.getPath() : r.getClass().getSimpleName());
        }
        return out.toString();
    }

    private static List<String> sorted(List<String> names) {
        return names.stream().sorted().toList();
    }

    private interface Call {
        void run() throws Exception;
    }

    private static String failure(Call call) {
        KeeperException e = assertThrows(KeeperException.class, call::run);
        return e.code() + " " + e.getPath();
    }
}
