package io.volery.server;

import static io.volery.server.EventBeforeLaterResponseTest.nameOn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Watch delivery as ZooKeeper's clients rely on it, checked over a random history: sessions pipeline
 * reads of nodes of both partitions through both front ends, setting a one-shot data watch on a node
 * whenever they hold none there, while two writers keep changing the nodes. Every session's client
 * runs its callbacks and watch events on one thread in the order they reached it; from that order the
 * test checks ZooKeeper's promises:
 * <ul>
 *   <li>no watch is lost: a watch set at version v of a node that was later written fires;</li>
 *   <li>a client sees a watch event before data that reflects the change: no read of a node returns a
 *       version above the one its pending watch was set at;</li>
 *   <li>a session never reads a node's version older than one it has seen.</li>
 * </ul>
 * The replies of one session come from two partitions whose zxids say nothing about real-time order
 * (ADR 077); an event let out by comparing them overtakes the reply that set its watch and the client
 * drops it. Two writers change single nodes; a third changes a node of each partition together in
 * multis, whose events are ordered by the ALL ring; a fourth creates and deletes top-level nodes (every
 * partition lists them: ALL ring too), on which the sessions set exists watches, a node's state being its
 * creation zxid (or absent), and children of a directory in each partition, on which they set child
 * watches, a directory's state being its cversion; the root's cversion moves with the top-level nodes and
 * the sessions set child watches on it too. Two more sessions hold persistent watches on every data node
 * and the root and recursive ones on the directories (a {@link PersistentSession}): every change must reach
 * them exactly once, before any read that shows it. The root's watches sit in one partition while its
 * top-level changes run in all, and under hash a recursive watch is held everywhere: a front end that
 * guessed the partition that fired an event from its position let reads show such changes before their
 * events (ADR 078).
 */
class WatchDeliveryTest {
    private static final int NODES_PER_PARTITION = 3;
    private static final int IN_FLIGHT = 8;
    private static final long RUN_MILLIS = 4_000;

    /** One watching session: what its client has seen, in its event thread's order. */
    private static final class WatchingSession implements Watcher {
        final String name;
        final ZooKeeper zk;
        final Semaphore inFlight = new Semaphore(IN_FLIGHT);
        /** path -> the version the pending watch was set at (registered when its reply arrived) */
        final Map<String, Integer> armed = new ConcurrentHashMap<>();
        final Set<String> arming = ConcurrentHashMap.newKeySet();
        final Map<String, Integer> seen = new ConcurrentHashMap<>();
        /** Nodes created and deleted: exists watches, state = czxid or -1 when absent. */
        final Set<String> churned;
        final Map<String, Long> armedExists = new ConcurrentHashMap<>();
        final Map<String, Long> seenCzxid = new ConcurrentHashMap<>();
        /** Directories whose children change: child watches, state = cversion. */
        final Set<String> dirs;
        final Map<String, Integer> armedChildren = new ConcurrentHashMap<>();
        final Map<String, Integer> seenCversion = new ConcurrentHashMap<>();
        final List<String> violations;
        final AtomicInteger watchesSet = new AtomicInteger();
        final AtomicInteger eventsSeen = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger connectionLosses = new AtomicInteger();
        /** The last things the client saw of each path ("" for its connection's states), for a failure's message. */
        private final Map<String, java.util.ArrayDeque<String>> trace = new ConcurrentHashMap<>();
        private final long started = System.nanoTime();

        WatchingSession(String name, String connect, List<String> violations, Set<String> churned, Set<String> dirs)
                throws Exception {
            this.name = name;
            this.churned = churned;
            this.dirs = dirs;
            this.violations = violations;
            this.zk = VolerySmokeTest.connect(connect);
            zk.register(this);
        }

        @Override
        public void process(org.apache.zookeeper.WatchedEvent e) {
            note(e.getPath() == null ? "" : e.getPath(), e.getType() + " " + e.getState());
            if (e.getType() == Event.EventType.NodeDataChanged && !churned.contains(e.getPath())) {
                eventsSeen.incrementAndGet();
                armed.remove(e.getPath());
            } else if ((e.getType() == Event.EventType.NodeCreated || e.getType() == Event.EventType.NodeDeleted
                    // setWatches' answer for a node deleted and created again since the client's last zxid
                    || e.getType() == Event.EventType.NodeDataChanged) && churned.contains(e.getPath())) {
                eventsSeen.incrementAndGet();
                armedExists.remove(e.getPath());
            } else if (e.getType() == Event.EventType.NodeChildrenChanged && dirs.contains(e.getPath())) {
                eventsSeen.incrementAndGet();
                armedChildren.remove(e.getPath());
            } else if (e.getType() != Event.EventType.None) {
                violation("unexpected event " + e);
            }
        }

        void next(String path) throws InterruptedException {
            inFlight.acquire();
            if (dirs.contains(path)) {
                boolean watch = !armedChildren.containsKey(path) && arming.add(path);
                zk.getChildren(path, watch ? this : null, (rc, p, ctx, children, stat) -> {
                    if (rc == KeeperException.Code.OK.intValue()) {
                        int state = stat.getCversion();
                        Integer before = seenCversion.merge(p, state, Math::max);
                        if (before > state) {
                            violation("getChildren " + p + " returned cversion " + state + " after " + before);
                        }
                        if (watch) {
                            armedChildren.put(p, state);
                            watchesSet.incrementAndGet();
                        } else {
                            reads.incrementAndGet();
                            Integer watchedAt = armedChildren.get(p);
                            if (watchedAt != null && state > watchedAt) {
                                violation("getChildren " + p + " returned cversion " + state
                                        + " before the event of the child watch set at " + watchedAt);
                            }
                        }
                    } else {
                        failed("getChildren " + p, rc);
                    }
                    if (watch) {
                        arming.remove(p);
                    }
                    inFlight.release();
                }, null);
            } else if (churned.contains(path)) {
                boolean watch = !armedExists.containsKey(path) && arming.add(path);
                zk.exists(path, watch ? this : null, (rc, p, ctx, stat) -> {
                    if (rc == KeeperException.Code.OK.intValue() || rc == KeeperException.Code.NONODE.intValue()) {
                        long state = stat == null ? -1 : stat.getCzxid();
                        if (state >= 0) {
                            Long before = seenCzxid.merge(p, state, Math::max);
                            if (before > state) {
                                violation("exists " + p + " returned the node created at " + state + " after " + before);
                            }
                        }
                        if (watch) {
                            armedExists.put(p, state);
                            watchesSet.incrementAndGet();
                        } else {
                            reads.incrementAndGet();
                            Long watchedAt = armedExists.get(p);
                            if (watchedAt != null && watchedAt != state) {
                                violation("exists " + p + " returned " + state + " before the event of the watch set at "
                                        + watchedAt);
                            }
                        }
                    } else {
                        failed("exists " + p, rc);
                    }
                    if (watch) {
                        arming.remove(p);
                    }
                    inFlight.release();
                }, null);
            } else if (!armed.containsKey(path) && arming.add(path)) {
                zk.getData(path, this, (rc, p, ctx, data, stat) -> {
                    note(p, "watch set: " + (stat == null ? KeeperException.Code.get(rc) : "version " + stat.getVersion()
                            + " mzxid 0x" + Long.toHexString(stat.getMzxid())));
                    if (rc == KeeperException.Code.OK.intValue()) {
                        saw(p, stat, "watch-setting read");
                        armed.put(p, stat.getVersion());
                        watchesSet.incrementAndGet();
                    } else {
                        failed("getData " + p + " with a watch", rc);
                    }
                    arming.remove(p);
                    inFlight.release();
                }, null);
            } else {
                zk.getData(path, false, (rc, p, ctx, data, stat) -> {
                    note(p, "read: " + (stat == null ? KeeperException.Code.get(rc) : "version " + stat.getVersion()
                            + " mzxid 0x" + Long.toHexString(stat.getMzxid())));
                    if (rc == KeeperException.Code.OK.intValue()) {
                        reads.incrementAndGet();
                        Integer watchedAt = armed.get(p);
                        if (watchedAt != null && stat.getVersion() > watchedAt) {
                            violation("read version " + stat.getVersion() + " of " + p
                                    + " before the event of the watch set at version " + watchedAt + "; what the client saw of "
                                    + p + ": " + traceOf(p) + "; of its connection: " + traceOf(""));
                        }
                        saw(p, stat, "read");
                    } else {
                        failed("getData " + p, rc);
                    }
                    inFlight.release();
                }, null);
            }
        }

        /** A read failed: with the connection (the test drops connections) or a violation. */
        void failed(String what, int rc) {
            if (rc == KeeperException.Code.CONNECTIONLOSS.intValue()) {
                connectionLosses.incrementAndGet();
            } else {
                violation(what + ": " + KeeperException.Code.get(rc));
            }
        }

        private void saw(String path, Stat stat, String what) {
            Integer before = seen.merge(path, stat.getVersion(), Math::max);
            if (before > stat.getVersion()) {
                violation(what + " of " + path + " returned version " + stat.getVersion() + " after " + before);
            }
        }

        void violation(String what) {
            WatchDeliveryTest.violation(violations, name, what);
        }

        /** Keeps the last 24 lines of {@code key}'s trace, with the milliseconds since the session began. */
        private void note(String key, String what) {
            java.util.ArrayDeque<String> lines = trace.computeIfAbsent(key, k -> new java.util.ArrayDeque<>());
            synchronized (lines) {
                if (lines.size() == 24) {
                    lines.removeFirst();
                }
                lines.addLast(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms " + what);
            }
        }

        private String traceOf(String key) {
            java.util.ArrayDeque<String> lines = trace.getOrDefault(key, new java.util.ArrayDeque<>());
            synchronized (lines) {
                return String.join(" | ", lines);
            }
        }
    }

    /**
     * A session with persistent watches: a PERSISTENT watch on each data node and on the root, a
     * PERSISTENT_RECURSIVE one on each directory. After a baseline read of a path (its version, or its
     * cversion), every change of it must reach the client exactly once, before any read that shows it and
     * after any read that does not: a read's state is the baseline plus the events counted since.
     */
    private static final class PersistentSession implements Watcher {
        final String name;
        final ZooKeeper zk;
        final Semaphore inFlight = new Semaphore(IN_FLIGHT);
        final Set<String> dirs;
        /** path -> its state at the baseline read; written and read on the client's event thread only */
        final Map<String, Integer> baseline = new ConcurrentHashMap<>();
        /** path -> events counted since its baseline */
        final Map<String, Integer> counted = new ConcurrentHashMap<>();
        final List<String> violations;
        final AtomicInteger eventsSeen = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();

        PersistentSession(String name, String connect, List<String> violations, Set<String> dirs) throws Exception {
            this.name = name;
            this.dirs = dirs;
            this.violations = violations;
            this.zk = VolerySmokeTest.connect(connect);
        }

        /** Sets the watches, then reads each path's baseline. */
        void watch(List<String> dataPaths) throws Exception {
            for (String path : dataPaths) {
                zk.addWatch(path, this, org.apache.zookeeper.AddWatchMode.PERSISTENT);
            }
            for (String dir : dirs) {
                zk.addWatch(dir, this, "/".equals(dir) ? org.apache.zookeeper.AddWatchMode.PERSISTENT
                        : org.apache.zookeeper.AddWatchMode.PERSISTENT_RECURSIVE);
            }
            List<String> all = new ArrayList<>(dataPaths);
            all.addAll(dirs);
            for (String path : all) {
                read(path, true);
            }
            assertTrue(inFlight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS), name + "'s baselines read");
            inFlight.release(IN_FLIGHT);
        }

        @Override
        public void process(org.apache.zookeeper.WatchedEvent e) {
            String path = e.getPath();
            String counts = switch (e.getType()) {
                case NodeDataChanged -> dirs.contains(path) ? null : path;
                case NodeChildrenChanged -> "/".equals(path) ? path : null;
                case NodeCreated, NodeDeleted -> {
                    String parent = path.substring(0, Math.max(1, path.lastIndexOf('/')));
                    yield dirs.contains(parent) && !"/".equals(parent) ? parent : null;
                }
                default -> null;
            };
            if (counts == null) {
                violation("unexpected event " + e);
            } else if (baseline.containsKey(counts)) {
                eventsSeen.incrementAndGet();
                counted.merge(counts, 1, Integer::sum);
            }
        }

        void read(String path, boolean first) throws InterruptedException {
            inFlight.acquire();
            if (dirs.contains(path)) {
                zk.getChildren(path, false, (rc, p, ctx, children, stat) -> {
                    answered(p, rc, stat == null ? 0 : stat.getCversion(), "cversion", first);
                }, null);
            } else {
                zk.getData(path, false, (rc, p, ctx, data, stat) -> {
                    answered(p, rc, stat == null ? 0 : stat.getVersion(), "version", first);
                }, null);
            }
        }

        private void answered(String path, int rc, int state, String what, boolean first) {
            if (rc != KeeperException.Code.OK.intValue()) {
                violation("read " + path + ": " + KeeperException.Code.get(rc));
            } else if (first) {
                baseline.put(path, state);
                counted.put(path, 0);
            } else {
                reads.incrementAndGet();
                int known = baseline.get(path) + counted.get(path);
                if (state > known) {
                    violation("read " + what + " " + state + " of " + path + " with only " + known
                            + " announced by its persistent watch");
                } else if (state < known) {
                    violation("read " + what + " " + state + " of " + path + " after its persistent watch announced "
                            + known);
                }
            }
            inFlight.release();
        }

        /** Paths whose events, counted, do not (yet) add up to their final state. */
        void unannounced(Map<String, Long> last, List<String> out) {
            baseline.forEach((path, base) -> {
                long known = base + counted.get(path);
                if (known != last.get(path)) {
                    out.add(name + ": the persistent watch on " + path + " announced " + (known - base)
                            + " changes after the baseline " + base + ", but it reached " + last.get(path));
                }
            });
        }

        void violation(String what) {
            WatchDeliveryTest.violation(violations, name, what);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void everyWatchFiresAndBeforeTheNewDataOverARandomPipelinedHistory(VoleryConfig.Partitioning partitioning)
            throws Exception {
        run(partitioning, Fault.NONE);
    }

    /**
     * The same with the watching sessions' connections dropped at random (a relay per session and node
     * closes both ends, losing whatever was in flight), so their clients reconnect, through either node,
     * and set their watches again with the last zxid they saw (ZooKeeper's setWatches): watches whose event
     * was lost with the connection must fire all the same, and still before any read that shows the change
     * (ADR 039). Persistent watches are left out: ZooKeeper does not promise their events across a
     * reconnect.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void theSameWithConnectionsDroppedAtRandom(VoleryConfig.Partitioning partitioning) throws Exception {
        run(partitioning, Fault.DROPS);
    }

    /**
     * The same on three replicas a partition, where the node two of the watchers are connected to dies
     * midway (it closes): they reconnect through another node, which waits in vain for the dead front end's
     * kept events; its replies must wait with them (ADR 079), or reads show changes before the events that
     * setWatches fired again.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void theSameWithAFrontEndDying(VoleryConfig.Partitioning partitioning) throws Exception {
        run(partitioning, Fault.FRONT_END_DIES);
    }

    private enum Fault { NONE, DROPS, FRONT_END_DIES }

    private static void run(VoleryConfig.Partitioning partitioning, Fault fault) throws Exception {
        boolean drops = fault == Fault.DROPS;
        boolean dies = fault == Fault.FRONT_END_DIES;
        try (VoleryCluster c = new VoleryCluster(2, dies ? 3 : 1, 0, 2000, o -> o.withPartitioning(partitioning))) {
            // (dies: the first node dies; the rest serve the writers, and its watchers after it)
            List<VoleryNode> living = dies ? c.nodes().subList(1, c.nodes().size()) : c.nodes();
            PathPartitioner partitioner = new PathPartitioner(c.partitions(), partitioning);
            List<String> single = new ArrayList<>();
            List<List<String>> together = new ArrayList<>();
            for (int p : c.partitions()) {
                for (int i = 0; i < NODES_PER_PARTITION; i++) {
                    single.add(nameOn(partitioner, p, "/watched" + p + "x" + i + "-"));
                }
                List<String> mine = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    mine.add(nameOn(partitioner, p, "/multi" + p + "x" + i + "-"));
                }
                together.add(mine);
            }
            List<String> churned = new ArrayList<>();
            for (int p : c.partitions()) {
                for (int i = 0; i < 2; i++) {
                    churned.add(nameOn(partitioner, p, "/churned" + p + "x" + i + "-"));
                }
            }
            List<String> dirs = new ArrayList<>();
            List<String> children = new ArrayList<>();
            for (int p : c.partitions()) {
                String dir = nameOn(partitioner, p, "/dir" + p + "-");
                dirs.add(dir);
                for (int i = 0; i < 3; i++) {
                    children.add(dir + "/child" + i);
                }
            }
            List<String> paths = new ArrayList<>(single);
            together.forEach(paths::addAll);
            paths.addAll(churned);
            paths.addAll(dirs);
            List<String> watchedDirs = new ArrayList<>(dirs);
            watchedDirs.add("/"); // top-level creates and deletes change its children
            List<String> readPaths = new ArrayList<>(paths);
            readPaths.add("/");
            List<String> dataPaths = new ArrayList<>(single);
            together.forEach(dataPaths::addAll);
            List<String> churning = new ArrayList<>(churned);
            churning.addAll(children);
            List<String> violations = new ArrayList<>();
            List<ZooKeeper> writers = new ArrayList<>();
            List<WatchingSession> sessions = new ArrayList<>();
            List<PersistentSession> persistent = new ArrayList<>();
            List<List<CuttableProxy>> relays = new ArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            try {
                for (VoleryNode n : dies ? living.subList(0, 2) : c.nodes()) {
                    writers.add(VolerySmokeTest.connect("127.0.0.1:" + n.clientAddress().getPort()));
                }
                for (String path : paths) {
                    writers.get(0).create(path, "0".getBytes(StandardCharsets.UTF_8), Ids.OPEN_ACL_UNSAFE,
                            CreateMode.PERSISTENT);
                }
                for (int i = 0; i < 4; i++) {
                    VoleryNode n = c.nodes().get(i % c.nodes().size());
                    String connect = "127.0.0.1:" + n.clientAddress().getPort();
                    if (dies && i < 2) {
                        // on the dying node, with another to go to (see below)
                        connect = "127.0.0.1:" + c.nodes().get(0).clientAddress().getPort() + ",127.0.0.1:"
                                + living.get(living.size() - 1 - i).clientAddress().getPort();
                    } else if (dies) {
                        connect = "127.0.0.1:" + living.get(i % living.size()).clientAddress().getPort();
                    } else if (drops) {
                        List<CuttableProxy> mine = new ArrayList<>();
                        for (VoleryNode any : c.nodes()) {
                            mine.add(new CuttableProxy(any.clientAddress()));
                        }
                        relays.add(mine);
                        connect = String.join(",", mine.stream().map(CuttableProxy::connectString).toList());
                    }
                    WatchingSession session = new WatchingSession("watcher " + i + (fault != Fault.NONE ? "" : " at node "
                            + n.nodeId()), connect, violations, Set.copyOf(churned), Set.copyOf(watchedDirs));
                    // the client picks one of its servers at random; a session's id names the node that made it
                    for (int tries = 0; dies && i < 2 && session.zk.getSessionId() >>> 48 != c.nodes().get(0).nodeId(); tries++) {
                        assertTrue(tries < 50, "a session on the node that will die");
                        session.zk.close();
                        session = new WatchingSession(session.name, connect, violations, Set.copyOf(churned),
                                Set.copyOf(watchedDirs));
                    }
                    sessions.add(session);
                }
                for (VoleryNode n : fault != Fault.NONE ? List.<VoleryNode>of() : c.nodes()) {
                    PersistentSession s = new PersistentSession("persistent watcher at node " + n.nodeId(),
                            "127.0.0.1:" + n.clientAddress().getPort(), violations, Set.copyOf(watchedDirs));
                    persistent.add(s);
                    s.watch(dataPaths);
                }
                List<String> persistentPaths = new ArrayList<>(dataPaths);
                persistentPaths.addAll(watchedDirs);
                AtomicInteger writes = new AtomicInteger();
                for (int w = 0; w < writers.size(); w++) {
                    ZooKeeper writer = writers.get(w);
                    Random rnd = new Random(100 + w);
                    threads.add(repeat("writer-" + w, stop, violations, () -> {
                        String path = single.get(rnd.nextInt(single.size()));
                        writer.setData(path, String.valueOf(writes.incrementAndGet()).getBytes(StandardCharsets.UTF_8), -1);
                    }));
                }
                ZooKeeper multiWriter = writers.get(0);
                AtomicInteger multis = new AtomicInteger();
                Random multiRnd = new Random(300);
                threads.add(repeat("multi-writer", stop, violations, () -> {
                    List<org.apache.zookeeper.Op> ops = new ArrayList<>();
                    for (List<String> mine : together) {
                        ops.add(org.apache.zookeeper.Op.setData(mine.get(multiRnd.nextInt(mine.size())),
                                String.valueOf(multis.get()).getBytes(StandardCharsets.UTF_8), -1));
                    }
                    multiWriter.multi(ops);
                    multis.incrementAndGet();
                }));
                ZooKeeper churner = writers.get(writers.size() - 1);
                AtomicInteger churns = new AtomicInteger();
                Random churnRnd = new Random(400);
                threads.add(repeat("churner", stop, violations, () -> {
                    String path = churning.get(churnRnd.nextInt(churning.size()));
                    if (churner.exists(path, false) == null) {
                        churner.create(path, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    } else {
                        churner.delete(path, -1);
                    }
                    churns.incrementAndGet();
                }));
                for (int s = 0; s < sessions.size(); s++) {
                    WatchingSession session = sessions.get(s);
                    Random rnd = new Random(200 + s);
                    threads.add(repeat("reader-" + s, stop, violations,
                            () -> session.next(readPaths.get(rnd.nextInt(readPaths.size())))));
                }
                for (int s = 0; s < persistent.size(); s++) {
                    PersistentSession session = persistent.get(s);
                    Random rnd = new Random(500 + s);
                    threads.add(repeat("persistent-reader-" + s, stop, violations,
                            () -> session.read(persistentPaths.get(rnd.nextInt(persistentPaths.size())), false)));
                }
                // one partition at a time falls behind for a while (its executor sleeps after a command): the
                // others execute later merge rounds meanwhile, so positions of different partitions are out of
                // step with real time
                Random lagRnd = new Random(700);
                threads.add(repeat("lagger", stop, violations, () -> {
                    VoleryNode n = living.get(lagRnd.nextInt(living.size()));
                    TopLevelLinearizabilityTest.fallBehind(n, 10 + lagRnd.nextInt(90));
                    Thread.sleep(100 + lagRnd.nextInt(200));
                }));
                AtomicInteger dropped = new AtomicInteger();
                if (drops) {
                    Random dropRnd = new Random(600);
                    threads.add(repeat("dropper", stop, violations, () -> {
                        Thread.sleep(100 + dropRnd.nextInt(200));
                        int victim = dropRnd.nextInt(relays.size());
                        List<CuttableProxy> mine = relays.get(victim);
                        // dark for a while first: what the server writes meanwhile is lost
                        mine.forEach(CuttableProxy::silence);
                        sessions.get(victim).note("", "(the test silences the connection)");
                        Thread.sleep(dropRnd.nextInt(200));
                        mine.forEach(CuttableProxy::drop);
                        sessions.get(victim).note("", "(the test drops the connection)");
                        dropped.incrementAndGet();
                    }));
                }
                if (dies) {
                    threads.add(new Thread(() -> {
                        try {
                            Thread.sleep(RUN_MILLIS / 2);
                        } catch (InterruptedException e) {
                            return;
                        }
                        c.nodes().get(0).close();
                        dropped.incrementAndGet();
                    }, "killer"));
                }
                threads.forEach(Thread::start);
                Thread.sleep(RUN_MILLIS);
                // a slow machine (CI's two cores shared with other builds) runs on until the history has
                // exercised the promises that the assertion below demands; a stuck cluster still fails it
                java.util.function.BooleanSupplier exercised = () -> writes.get() >= 50 && multis.get() >= 20
                        && churns.get() >= 20 && sessions.stream().mapToInt(x -> x.watchesSet.get()).sum() >= 50
                        && sessions.stream().mapToInt(x -> x.eventsSeen.get()).sum() >= 25
                        && sessions.stream().mapToInt(x -> x.reads.get()).sum() >= 50
                        && (fault != Fault.NONE || persistent.stream().mapToInt(x -> x.eventsSeen.get()).sum() >= 100
                        && persistent.stream().mapToInt(x -> x.reads.get()).sum() >= 50);
                long runUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5 * RUN_MILLIS);
                while (!exercised.getAsBoolean() && System.nanoTime() < runUntil) {
                    Thread.sleep(50);
                }
                stop.set(true);
                for (Thread t : threads) {
                    t.join(30_000);
                }
                for (WatchingSession s : sessions) {
                    assertTrue(s.inFlight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS), s.name + "'s reads answered");
                }
                for (PersistentSession s : persistent) {
                    assertTrue(s.inFlight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS), s.name + "'s reads answered");
                }
                Map<String, Long> last = new java.util.HashMap<>();
                for (String path : readPaths) {
                    Stat stat = writers.get(0).exists(path, false);
                    last.put(path, churned.contains(path) ? (stat == null ? -1 : stat.getCzxid())
                            : watchedDirs.contains(path) ? stat.getCversion() : stat.getVersion());
                }
                // every watch set below a node's last version must fire
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                List<String> lost = lostWatches(sessions, persistent, last);
                while (!lost.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                    lost = lostWatches(sessions, persistent, last);
                }
                synchronized (violations) {
                    violations.addAll(lost);
                    assertEquals(List.of(), violations);
                }
                int set = sessions.stream().mapToInt(s -> s.watchesSet.get()).sum();
                int fired = sessions.stream().mapToInt(s -> s.eventsSeen.get()).sum();
                int reads = sessions.stream().mapToInt(s -> s.reads.get()).sum();
                int persistentEvents = persistent.stream().mapToInt(s -> s.eventsSeen.get()).sum();
                int persistentReads = persistent.stream().mapToInt(s -> s.reads.get()).sum();
                int losses = sessions.stream().mapToInt(s -> s.connectionLosses.get()).sum();
                System.out.println(partitioning + (drops ? " with " + dropped + " drops (" + losses + " replies lost)"
                        : dies ? " with a front end dying (" + losses + " replies lost)" : "")
                        + ": writes " + writes + ", multis " + multis + ", creates and deletes "
                        + churns + ", watches set " + set
                        + ", fired " + fired + ", plain reads " + reads + (fault != Fault.NONE ? "" : "; persistent watches' events "
                        + persistentEvents + ", their sessions' reads " + persistentReads));
                // a history that exercised the promises
                assertTrue(exercised.getAsBoolean() && (drops ? dropped.get() >= 5 : !dies || dropped.get() == 1),
                        "writes " + writes + ", multis " + multis + ", creates and deletes " + churns + ", watches set " + set
                                + ", fired " + fired
                                + ", plain reads " + reads + ", persistent events " + persistentEvents
                                + ", persistent reads " + persistentReads);
            } finally {
                stop.set(true);
                for (WatchingSession s : sessions) {
                    s.zk.close();
                }
                for (PersistentSession s : persistent) {
                    s.zk.close();
                }
                for (ZooKeeper w : writers) {
                    w.close();
                }
                relays.forEach(mine -> mine.forEach(CuttableProxy::close));
            }
        }
    }

    /** Records a broken promise (the first 20). */
    static void violation(List<String> violations, String who, String what) {
        synchronized (violations) {
            if (violations.size() < 20) {
                violations.add(who + ": " + what);
            }
        }
    }

    interface Step {
        void run() throws Exception;
    }

    /** A thread that runs {@code step} until {@code stop}; a failure is a violation. */
    private static Thread repeat(String name, AtomicBoolean stop, List<String> violations, Step step) {
        return new Thread(() -> {
            try {
                while (!stop.get()) {
                    step.run();
                }
            } catch (Exception e) {
                synchronized (violations) {
                    violations.add(name + ": " + e);
                }
            }
        }, name);
    }

    private static List<String> lostWatches(List<WatchingSession> sessions, List<PersistentSession> persistent,
            Map<String, Long> last) {
        List<String> lost = new ArrayList<>();
        for (PersistentSession s : persistent) {
            s.unannounced(last, lost);
        }
        for (WatchingSession s : sessions) {
            s.armed.forEach((path, version) -> {
                if (last.get(path) > version) {
                    lost.add(s.name + ": the watch set on " + path + " at version " + version
                            + " never fired (the node reached version " + last.get(path) + ")");
                }
            });
            s.armedChildren.forEach((path, cversion) -> {
                if (last.get(path) > cversion) {
                    lost.add(s.name + ": the child watch set on " + path + " at cversion " + cversion
                            + " never fired (the cversion reached " + last.get(path) + ")");
                }
            });
            s.armedExists.forEach((path, state) -> {
                if (last.get(path) != (long) state) {
                    lost.add(s.name + ": the exists watch set on " + path + " at " + state
                            + " never fired (the node is now " + last.get(path) + ")");
                }
            });
        }
        return lost;
    }
}
