package io.volery.client;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Watches, per-session order and the session's life (close, expiry) through the native client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VoleryClientWatchesAndSessionsTest {
    private static final List<ACL> OPEN = Ids.OPEN_ACL_UNSAFE;

    private ClusterWithClientNodes cluster;
    private Subtrees subtrees;
    private RingAccess shared;

    @BeforeAll
    void start() throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 3, 500);
        subtrees = new Subtrees(new int[] {1, 2});
        shared = RingAccess.open(cluster.config(), RingAccess.Options.defaults().withSessionTimeouts(1_000, 60_000));
    }

    @AfterAll
    void stop() {
        if (shared != null) {
            shared.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A last event every earlier one is delivered before: events reach a session's watchers in order. */
    private static void fence(VoleryClient c, EventLog log, String top) throws Exception {
        String fence = top + "/fence-" + System.nanoTime();
        c.exists(fence, log);
        c.create(fence, null, OPEN, CreateMode.PERSISTENT);
        log.await(EventType.NodeCreated, fence);
    }

    @Test
    void oneShotWatchesFireOnceWithTheTriggeringZxid() throws Exception {
        EventLog log = new EventLog();
        try (VoleryClient c = VoleryClient.connect(shared, 30_000, log)) {
            log.await(KeeperState.SyncConnected);
            String top = subtrees.in(1, "watch");
            c.create(top, new byte[0], OPEN, CreateMode.PERSISTENT);

            c.getData(top, true, null);
            Stat first = c.setData(top, new byte[] {1}, -1);
            c.setData(top, new byte[] {2}, -1);
            c.exists(top + "/kid", true);
            c.getChildren(top, true);
            c.create(top + "/kid", null, OPEN, CreateMode.PERSISTENT);
            c.getData(top + "/kid", true, null);
            c.delete(top + "/kid", -1);
            fence(c, log, top);

            List<String> seen = log.nodeEvents();
            assertEquals(List.of("NodeDataChanged " + top, "NodeCreated " + top + "/kid",
                            "NodeChildrenChanged " + top, "NodeDeleted " + top + "/kid"),
                    seen.subList(0, 4), "each one-shot watch fires once, in order");
            assertEquals(5, seen.size(), "nothing else but the fence: " + seen);
            WatchedEvent changed = log.events().stream().filter(e -> e.getType() == EventType.NodeDataChanged)
                    .findFirst().orElseThrow();
            assertEquals(first.getMzxid(), changed.getZxid(), "the event carries the zxid of the write that fired it");
        }
    }

    @Test
    void severalWatchersOnOnePathEachGetTheEventAndPersistentWatchesStay() throws Exception {
        try (VoleryClient c = VoleryClient.connect(shared, 30_000, e -> { })) {
            String top = subtrees.in(2, "persist");
            c.create(top, null, OPEN, CreateMode.PERSISTENT);
            EventLog a = new EventLog();
            EventLog b = new EventLog();
            c.getData(top, a, null);
            c.exists(top, b);
            EventLog recursive = new EventLog();
            c.addWatch(top, recursive, AddWatchMode.PERSISTENT_RECURSIVE);
            EventLog persistent = new EventLog();
            c.addWatchAsync(top, persistent, AddWatchMode.PERSISTENT).get();

            c.setData(top, new byte[] {1}, -1);
            c.create(top + "/x", null, OPEN, CreateMode.PERSISTENT);
            c.setData(top + "/x", new byte[] {1}, -1);
            c.delete(top + "/x", -1);
            c.setData(top, new byte[] {2}, -1);
            fence(c, recursive, top);

            assertEquals(List.of("NodeDataChanged " + top), a.nodeEvents(), "getData watcher, once");
            assertEquals(List.of("NodeDataChanged " + top), b.nodeEvents(), "exists watcher, once");
            assertEquals(List.of("NodeDataChanged " + top, "NodeCreated " + top + "/x", "NodeDataChanged " + top + "/x",
                            "NodeDeleted " + top + "/x", "NodeDataChanged " + top),
                    recursive.nodeEvents().subList(0, 5), "a recursive watch sees the subtree, without child-list events");
            assertEquals(List.of("NodeDataChanged " + top, "NodeChildrenChanged " + top, "NodeChildrenChanged " + top,
                            "NodeDataChanged " + top),
                    persistent.nodeEvents().subList(0, 4), "a persistent watch sees the node and its child list");
        }
    }

    @Test
    void removedWatchesAreToldAndFireNoMore() throws Exception {
        try (VoleryClient c = VoleryClient.connect(shared, 30_000, e -> { })) {
            String top = subtrees.in(1, "remove");
            c.create(top, null, OPEN, CreateMode.PERSISTENT);
            EventLog data = new EventLog();
            EventLog children = new EventLog();
            c.getData(top, data, null);
            c.getChildren(top, children);

            c.removeAllWatches(top, Watcher.WatcherType.Data, false);
            data.await(EventType.DataWatchRemoved, top);
            KeeperException none = assertThrows(KeeperException.class,
                    () -> c.removeAllWatches(top, Watcher.WatcherType.Data, false));
            assertEquals(KeeperException.Code.NOWATCHER, none.code(), "no data watch is left to remove");

            c.setData(top, new byte[] {1}, -1);
            c.create(top + "/kid", null, OPEN, CreateMode.PERSISTENT);
            children.await(EventType.NodeChildrenChanged, top);
            fence(c, children, top);
            assertEquals(List.of("DataWatchRemoved " + top), data.nodeEvents(),
                    "a removed data watch does not fire on setData");

            c.getChildren(top, children);
            c.removeAllWatchesAsync(top, Watcher.WatcherType.Children, true).get();
            children.await(EventType.ChildWatchRemoved, top);
        }
    }

    @Test
    void requestsOfASessionRunInSubmissionOrderAcrossPartitions() throws Exception {
        try (VoleryClient c = VoleryClient.connect(shared, 30_000, e -> { })) {
            String a = subtrees.in(1, "fifoA");
            String b = subtrees.in(2, "fifoB");
            c.create(a, null, OPEN, CreateMode.PERSISTENT);
            c.create(b, null, OPEN, CreateMode.PERSISTENT);
            List<Integer> completed = Collections.synchronizedList(new ArrayList<>());
            List<CompletableFuture<Stat>> all = new ArrayList<>();
            // Versions only match if every setData runs after the one issued before it.
            for (int i = 0; i < 40; i++) {
                String path = (i / 3) % 2 == 0 ? a : b;
                int expectedVersion = countBefore(i, path.equals(a));
                int n = i;
                all.add(c.setDataAsync(path, new byte[] {(byte) i}, expectedVersion).whenComplete((s, e) -> completed.add(n)));
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                expected.add(i);
            }
            assertEquals(expected, completed, "completions come back in submission order");
        }
    }

    /** How many of requests 0..i-1 went to the same node as request i (groups of three alternate). */
    private static int countBefore(int i, boolean toA) {
        int n = 0;
        for (int j = 0; j < i; j++) {
            if (((j / 3) % 2 == 0) == toA) {
                n++;
            }
        }
        return n;
    }

    @Test
    void closingASessionDeletesItsEphemeralsInEveryPartition() throws Exception {
        EventLog observerLog = new EventLog();
        try (VoleryClient observer = VoleryClient.connect(shared, 30_000, observerLog)) {
            String a = subtrees.in(1, "closeA");
            String b = subtrees.in(2, "closeB");
            EventLog log = new EventLog();
            VoleryClient owner = VoleryClient.connect(shared, 30_000, log);
            owner.create(a, null, OPEN, CreateMode.EPHEMERAL);
            owner.create(b, null, OPEN, CreateMode.EPHEMERAL);
            observer.exists(a, true);
            observer.exists(b, true);
            owner.close();

            observerLog.await(EventType.NodeDeleted, a);
            observerLog.await(EventType.NodeDeleted, b);
            assertNull(observer.exists(a, false));
            assertNull(observer.exists(b, false));
            log.await(KeeperState.Closed);
            assertEquals(VoleryClient.State.CLOSED, owner.getState());
            KeeperException after = assertThrows(KeeperException.class, () -> owner.exists(a, false));
            assertEquals(KeeperException.Code.SESSIONEXPIRED, after.code(), "a closed session's calls fail as in ZooKeeper");
        }
    }

    @Test
    void aSessionThatStopsTouchingExpiresAndItsClientIsTold() throws Exception {
        EventLog observerLog = new EventLog();
        // Touches every minute cannot keep a one-second session alive.
        RingAccess.Options lazy = RingAccess.Options.defaults().withSessionTimeouts(1_000, 60_000).withKeepAlive(60_000);
        try (VoleryClient observer = VoleryClient.connect(shared, 30_000, observerLog);
             RingAccess own = RingAccess.open(cluster.config(), lazy)) {
            EventLog log = new EventLog();
            VoleryClient doomed = VoleryClient.connect(own, 1_000, log);
            assertEquals(1_000, doomed.getSessionTimeout());
            String a = subtrees.in(1, "expA");
            String b = subtrees.in(2, "expB");
            doomed.create(a, null, OPEN, CreateMode.EPHEMERAL);
            doomed.create(b, null, OPEN, CreateMode.EPHEMERAL);
            EventLog dataWatch = new EventLog();
            doomed.getData(a, dataWatch, null);
            observer.getData(a, true, null);
            observer.exists(b, true);

            log.await(KeeperState.Expired);
            dataWatch.await(KeeperState.Expired);
            assertEquals(VoleryClient.State.EXPIRED, doomed.getState());
            observerLog.await(EventType.NodeDeleted, a);
            observerLog.await(EventType.NodeDeleted, b);
            assertNull(observer.exists(a, false), "the ephemeral in partition 1 is gone");
            assertNull(observer.exists(b, false), "the ephemeral in partition 2 is gone");
            assertThrows(KeeperException.SessionExpiredException.class, () -> doomed.getData(a, false, null));
            doomed.close();
        }
    }

    @Test
    void sessionsSharingOneAccessAreDistinct() throws Exception {
        try (VoleryClient one = VoleryClient.connect(shared, 30_000, e -> { });
             VoleryClient two = VoleryClient.connect(shared, 30_000, e -> { })) {
            assertNotEquals(one.getSessionId(), two.getSessionId());
            assertEquals(one.clientNodeId(), two.clientNodeId());
            String p = one.create(subtrees.in(1, "mine"), null, OPEN, CreateMode.EPHEMERAL);
            assertEquals(one.getSessionId(), two.exists(p, false).getEphemeralOwner());
            assertEquals(List.of(p), one.getEphemerals("/"));
            assertTrue(two.getEphemerals("/").isEmpty(), "the other session owns no ephemerals");
        }
    }
}
