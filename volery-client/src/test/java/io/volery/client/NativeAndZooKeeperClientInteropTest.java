package io.volery.client;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A native client and a ZooKeeper 3.9.5 Java client (through a Volery front end) on the same cluster
 * see each other's writes, the same stats and errors, and each other's watch events.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NativeAndZooKeeperClientInteropTest {
    private static final List<ACL> OPEN = Ids.OPEN_ACL_UNSAFE;

    private ClusterWithClientNodes cluster;
    private Subtrees subtrees;
    private VoleryClient nativeClient;
    private final EventLog nativeLog = new EventLog();
    private ZooKeeper zk;
    private final EventLog zkLog = new EventLog();

    @BeforeAll
    void start() throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 2, 2000);
        subtrees = new Subtrees(new int[] {1, 2});
        nativeClient = VoleryClient.connect(cluster.config(), 30_000, nativeLog);
        zk = new ZooKeeper(cluster.connectString(), 30_000, zkLog);
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
    void eachSeesTheOthersWritesWithIdenticalStats() throws Exception {
        String a = subtrees.in(1, "shareA");
        String b = subtrees.in(2, "shareB");
        Stat nativeStat = new Stat();
        nativeClient.create(a, "from native".getBytes(), OPEN, CreateMode.PERSISTENT, nativeStat);
        Stat zkStat = new Stat();
        assertArrayEquals("from native".getBytes(), zk.getData(a, false, zkStat));
        assertEquals(nativeStat, zkStat, "the ZooKeeper client reads the stat the native create returned");

        Stat zkCreated = new Stat();
        zk.create(b, "from zk".getBytes(), OPEN, CreateMode.PERSISTENT, zkCreated);
        Stat seen = new Stat();
        assertArrayEquals("from zk".getBytes(), nativeClient.getData(b, false, seen));
        assertEquals(zkCreated, seen, "the native client reads the stat the ZooKeeper create returned");

        // Sequential names interleave: both clients' creates share the parent's counter.
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            names.add(nativeClient.create(b + "/q-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL));
            names.add(zk.create(b + "/q-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL));
        }
        for (int i = 0; i < names.size(); i++) {
            assertEquals(String.format("%s/q-%010d", b, i), names.get(i), "sequential name #" + i);
        }
        assertEquals(zk.getChildren(b, false), nativeClient.getChildren(b, false), "same children, same order");
        assertEquals(zk.getAllChildrenNumber(b), nativeClient.getAllChildrenNumber(b));

        List<OpResult> zkMulti = zk.multi(List.of(Op.setData(a, "x".getBytes(), 0), Op.check(b, 0)));
        Stat afterZkMulti = ((OpResult.SetDataResult) zkMulti.get(0)).getStat();
        assertEquals(afterZkMulti, nativeClient.exists(a, false), "a multi through the front end, read natively");
    }

    @Test
    void errorsAreTheSameCodesThroughEitherClient() throws Exception {
        String a = subtrees.in(1, "errs");
        zk.create(a, null, OPEN, CreateMode.PERSISTENT);
        zk.create(a + "/c", null, OPEN, CreateMode.PERSISTENT);
        assertEquals(code(() -> zk.create(a, null, OPEN, CreateMode.PERSISTENT)),
                code(() -> nativeClient.create(a, null, OPEN, CreateMode.PERSISTENT)));
        assertEquals(code(() -> zk.delete(a, -1)), code(() -> nativeClient.delete(a, -1)));
        assertEquals(code(() -> zk.setData(a, null, 5)), code(() -> nativeClient.setData(a, null, 5)));
        assertEquals(code(() -> zk.getData(a + "/none", false, null)), code(() -> nativeClient.getData(a + "/none", false, null)));
        KeeperException zkMulti = assertThrows(KeeperException.class,
                () -> zk.multi(List.of(Op.create(a + "/n", null, OPEN, CreateMode.PERSISTENT), Op.check(a, 3))));
        KeeperException nativeMulti = assertThrows(KeeperException.class,
                () -> nativeClient.multi(List.of(Op.create(a + "/n", null, OPEN, CreateMode.PERSISTENT), Op.check(a, 3))));
        assertEquals(zkMulti.code(), nativeMulti.code());
        assertEquals(zkMulti.getResults(), nativeMulti.getResults(), "the same per-operation results");
    }

    private interface Call {
        void run() throws Exception;
    }

    private static KeeperException.Code code(Call c) {
        try {
            c.run();
        } catch (KeeperException e) {
            return e.code();
        } catch (Exception e) {
            throw new AssertionError("expected a KeeperException, got " + e, e);
        }
        throw new AssertionError("expected a KeeperException, the call succeeded");
    }

    @Test
    void eachGetsTheWatchEventsTheOthersWritesFire() throws Exception {
        String a = subtrees.in(1, "watchA");
        String b = subtrees.in(2, "watchB");
        nativeClient.create(a, null, OPEN, CreateMode.PERSISTENT);
        zk.create(b, null, OPEN, CreateMode.PERSISTENT);

        zk.getData(a, true, null);
        Stat nativeWrite = nativeClient.setData(a, "n".getBytes(), -1);
        WatchedEvent atZk = zkLog.await(EventType.NodeDataChanged, a);
        assertEquals(nativeWrite.getMzxid(), atZk.getZxid(), "the ZooKeeper client's event names the native write's zxid");

        nativeClient.getChildren(b, true);
        zk.create(b + "/kid", null, OPEN, CreateMode.PERSISTENT);
        nativeLog.await(EventType.NodeChildrenChanged, b);

        nativeClient.exists(a + "/e", true);
        try (ZooKeeper other = new ZooKeeper(cluster.connectString(), 30_000, e -> { })) {
            other.create(a + "/e", null, OPEN, CreateMode.EPHEMERAL);
            nativeLog.await(EventType.NodeCreated, a + "/e");
            nativeClient.exists(a + "/e", true);
        }
        nativeLog.await(EventType.NodeDeleted, a + "/e");
        assertNull(nativeClient.exists(a + "/e", false), "the ZooKeeper session's ephemeral went with its close");

        String eph = subtrees.in(2, "nativeEph");
        VoleryClient closing = VoleryClient.connect(cluster.config(), 30_000, e -> { });
        closing.create(eph, null, OPEN, CreateMode.EPHEMERAL);
        zk.exists(eph, true);
        closing.close();
        zkLog.await(EventType.NodeDeleted, eph);
        assertNull(zk.exists(eph, false), "the native session's ephemeral went with its close");
    }
}
