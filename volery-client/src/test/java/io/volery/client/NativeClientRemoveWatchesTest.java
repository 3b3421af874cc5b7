package io.volery.client;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * removeWatches for one given watcher: the same script run through the native client and through the
 * ZooKeeper 3.9.5 Java client on a Volery front end gives the same results, exceptions and events.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NativeClientRemoveWatchesTest {

    private ClusterWithClientNodes cluster;
    private Subtrees subtrees;

    @BeforeAll
    void start() throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 2, 2000);
        subtrees = new Subtrees(new int[] {1, 2});
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The calls of the script, made through either client. */
    private interface Client {
        void create(String path) throws Exception;

        void setData(String path) throws Exception;

        void getData(String path, Watcher w) throws Exception;

        void exists(String path, Watcher w) throws Exception;

        void getChildren(String path, Watcher w) throws Exception;

        void addWatch(String path, Watcher w, AddWatchMode mode) throws Exception;

        void removeWatches(String path, Watcher w, WatcherType type, boolean local) throws Exception;
    }

    private static Client of(VoleryClient c) {
        return new Client() {
            public void create(String path) throws Exception {
                c.create(path, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }

            public void setData(String path) throws Exception {
                c.setData(path, new byte[] {1}, -1);
            }

            public void getData(String path, Watcher w) throws Exception {
                c.getData(path, w, null);
            }

            public void exists(String path, Watcher w) throws Exception {
                c.exists(path, w);
            }

            public void getChildren(String path, Watcher w) throws Exception {
                c.getChildren(path, w);
            }

            public void addWatch(String path, Watcher w, AddWatchMode mode) throws Exception {
                c.addWatch(path, w, mode);
            }

            public void removeWatches(String path, Watcher w, WatcherType type, boolean local) throws Exception {
                c.removeWatches(path, w, type, local);
            }
        };
    }

    private static Client of(ZooKeeper zk) {
        return new Client() {
            public void create(String path) throws Exception {
                zk.create(path, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }

            public void setData(String path) throws Exception {
                zk.setData(path, new byte[] {1}, -1);
            }

            public void getData(String path, Watcher w) throws Exception {
                zk.getData(path, w, null);
            }

            public void exists(String path, Watcher w) throws Exception {
                zk.exists(path, w);
            }

            public void getChildren(String path, Watcher w) throws Exception {
                zk.getChildren(path, w);
            }

            public void addWatch(String path, Watcher w, AddWatchMode mode) throws Exception {
                zk.addWatch(path, w, mode);
            }

            public void removeWatches(String path, Watcher w, WatcherType type, boolean local) throws Exception {
                zk.removeWatches(path, w, type, local);
            }
        };
    }

    /** Node events one named watcher got, with the script's top path written as "T". */
    private static final class Recorder implements Watcher {
        private final String top;
        private final List<String> seen = new ArrayList<>();

        Recorder(String top) {
            this.top = top;
        }

        @Override
        public synchronized void process(WatchedEvent e) {
            if (e.getType() != EventType.None) {
                seen.add(e.getType() + " " + e.getPath().replace(top, "T"));
            }
        }

        /** Sorted: ZooKeeper's client tells one watcher of several removals in no fixed order. */
        synchronized List<String> seen() {
            return seen.stream().sorted().toList();
        }
    }

    /** What the script saw: each removeWatches' outcome, then each watcher's events. */
    private record Observed(List<String> outcomes, Map<String, List<String>> events) {
    }

    private Observed script(Client c, String top) throws Exception {
        Map<String, Recorder> w = new TreeMap<>();
        for (String name : List.of("w1", "w2", "w3", "w4", "w5", "w6", "w7")) {
            w.put(name, new Recorder(top));
        }
        EventLog fence = new EventLog();
        List<String> outcomes = new ArrayList<>();
        String later = top + "/later";
        c.create(top);
        c.getData(top, w.get("w1"));
        c.getData(top, w.get("w2"));
        c.getData(top, w.get("w5"));
        c.exists(later, w.get("w3"));
        c.exists(later, w.get("w6"));

        outcome(outcomes, "w4 has no watch", top, () -> c.removeWatches(top, w.get("w4"), WatcherType.Data, false));
        outcome(outcomes, "w1 has no child watch", top, () -> c.removeWatches(top, w.get("w1"), WatcherType.Children, false));
        outcome(outcomes, "w1 data", top, () -> c.removeWatches(top, w.get("w1"), WatcherType.Data, false));
        outcome(outcomes, "w1 data again", top, () -> c.removeWatches(top, w.get("w1"), WatcherType.Data, false));
        outcome(outcomes, "w3 exist watch", top, () -> c.removeWatches(later, w.get("w3"), WatcherType.Data, false));
        outcome(outcomes, "w2 local", top, () -> c.removeWatches(top, w.get("w2"), WatcherType.Data, true));
        outcome(outcomes, "null watcher", top, () -> c.removeWatches(top, null, WatcherType.Data, false));
        c.setData(top);
        c.create(later);

        c.getChildren(top, w.get("w1"));
        c.getData(top, w.get("w1"));
        c.addWatch(top, w.get("w1"), AddWatchMode.PERSISTENT);
        outcome(outcomes, "w1 any", top, () -> c.removeWatches(top, w.get("w1"), WatcherType.Any, false));
        c.addWatch(top, w.get("w7"), AddWatchMode.PERSISTENT_RECURSIVE);
        outcome(outcomes, "w7 persistent", top, () -> c.removeWatches(top, w.get("w7"), WatcherType.Persistent, false));
        outcome(outcomes, "w7 recursive", top,
                () -> c.removeWatches(top, w.get("w7"), WatcherType.PersistentRecursive, false));
        c.setData(later);

        // Both clients deliver events in order on one thread: once this one is in, all are.
        c.exists(top + "/fence", fence);
        c.create(top + "/fence");
        fence.await(EventType.NodeCreated, top + "/fence");
        Map<String, List<String>> events = new TreeMap<>();
        w.forEach((name, r) -> events.put(name, r.seen()));
        return new Observed(outcomes, events);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void outcome(List<String> out, String label, String top, Call call) {
        try {
            call.run();
            out.add(label + ": ok");
        } catch (KeeperException e) {
            out.add(label + ": " + e.code() + " " + e.getPath().replace(top, "T"));
        } catch (Exception e) {
            out.add(label + ": " + e.getClass().getSimpleName() + " " + e.getMessage());
        }
    }

    @Test
    void removingOneWatcherMatchesTheZooKeeperClient() throws Exception {
        Observed natively;
        try (VoleryClient c = VoleryClient.connect(cluster.config(), 30_000, e -> { })) {
            natively = script(of(c), subtrees.in(1, "rmw-native"));
        }
        Observed throughZooKeeper;
        EventLog connected = new EventLog();
        ZooKeeper zk = new ZooKeeper(cluster.connectString(), 30_000, connected);
        try {
            connected.await(KeeperState.SyncConnected);
            throughZooKeeper = script(of(zk), subtrees.in(1, "rmw-zk"));
        } finally {
            zk.close();
        }

        assertEquals(List.of(
                "w4 has no watch: NOWATCHER T",
                "w1 has no child watch: NOWATCHER T",
                "w1 data: ok",
                "w1 data again: NOWATCHER T",
                "w3 exist watch: ok",
                "w2 local: ok",
                "null watcher: IllegalArgumentException Invalid Watcher, shouldn't be null!",
                "w1 any: ok",
                "w7 persistent: NOWATCHER T",
                "w7 recursive: ok"), natively.outcomes(), "the native client's removeWatches outcomes");
        assertEquals(throughZooKeeper.outcomes(), natively.outcomes(), "the ZooKeeper client's outcomes, then the native");
        assertEquals(Map.of(
                "w1", List.of("ChildWatchRemoved T", "DataWatchRemoved T", "DataWatchRemoved T", "PersistentWatchRemoved T"),
                "w2", List.of("DataWatchRemoved T"),
                "w3", List.of("DataWatchRemoved T/later"),
                "w4", List.of(),
                "w5", List.of("NodeDataChanged T"),
                "w6", List.of("NodeCreated T/later"),
                "w7", List.of("PersistentWatchRemoved T")), natively.events(),
                "removed watchers hear of their removal only; the others still fire");
        assertEquals(throughZooKeeper.events(), natively.events(), "the ZooKeeper client's events, then the native");
    }

    @Test
    void asyncRemovalCompletesOrFailsWithNoWatcher() throws Exception {
        EventLog removed = new EventLog();
        try (VoleryClient c = VoleryClient.connect(cluster.config(), 30_000, e -> { })) {
            String top = subtrees.in(2, "rmw-async");
            c.create(top, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            c.getChildren(top, removed);
            c.removeWatchesAsync(top, removed, WatcherType.Children, false).get(20, TimeUnit.SECONDS);
            removed.await(EventType.ChildWatchRemoved, top);
            ExecutionException again = assertThrows(ExecutionException.class,
                    () -> c.removeWatchesAsync(top, removed, WatcherType.Children, false).get(20, TimeUnit.SECONDS));
            KeeperException cause = assertInstanceOf(KeeperException.class, again.getCause(),
                    "a second removal fails with a KeeperException");
            assertEquals(KeeperException.Code.NOWATCHER, cause.code(), "nothing is left to remove");
        }
    }

    @Test
    void localRemovalWorksWhileTheClusterIsUnreachable() throws Exception {
        EventLog mine = new EventLog();
        EventLog other = new EventLog();
        try (ClusterWithClientNodes alone = new ClusterWithClientNodes(1, 3, 1, 2000);
             // a short request timeout: closing the session once the cluster is gone waits that long
             RingAccess rings = RingAccess.open(alone.config(), RingAccess.Options.defaults().withRequestTimeout(3_000));
             VoleryClient c = VoleryClient.connect(rings, 30_000, e -> { })) {
            String top = "/local-" + System.nanoTime();
            c.create(top, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            c.getData(top, mine, null);
            c.getData(top, other, null);
            alone.close();

            // the cluster is really gone: a removal that asks it fails and removes nothing
            KeeperException unreachable = assertThrows(KeeperException.class,
                    () -> c.removeWatches(top, other, WatcherType.Data, false));
            assertTrue(unreachable.code() == KeeperException.Code.CONNECTIONLOSS
                            || unreachable.code() == KeeperException.Code.OPERATIONTIMEOUT,
                    "a removal that asks the cluster fails for want of it: " + unreachable);
            // a local one does not ask it, so it succeeds
            c.removeWatches(top, mine, WatcherType.Data, true);
            mine.await(EventType.DataWatchRemoved, top);
            KeeperException none = assertThrows(KeeperException.class,
                    () -> c.removeWatches(top, mine, WatcherType.Data, true));
            assertEquals(KeeperException.Code.NOWATCHER, none.code(), "the watcher's watch is gone locally");
            assertEquals(List.of(), other.nodeEvents(), "the other watcher is not told of a removal");
        }
    }
}
