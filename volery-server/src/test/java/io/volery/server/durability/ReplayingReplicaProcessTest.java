package io.volery.server.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.volery.server.CuttableProxy;
import io.volery.server.VoleryCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica killed with kill -9 replays the order from its last checkpoint when it restarts, and tells the front
 * ends again what the commands it replays did: the watch events they fired, the sessions that moved. Its peers told
 * them long before; none of it may reach a session a second time or undo what happened since.
 */
class ReplayingReplicaProcessTest {

    /**
     * Every replica executing a reconnect through another front end tells the session's previous front end that
     * it moved (ADR 017); the replayed copies come late, possibly long after the session came back to that front
     * end, and must not take the session's mailbox away from the front end it is connected to again (ADR 098):
     * here a real ZooKeeper client moves node 1 -> node 4 -> node 1, a replica of the other partition is killed and
     * replays both moves, and the client's persistent watch must go on firing.
     */
    @Test
    void aReplicaReplayingASessionsOldMovesLeavesItsEventsWithTheFrontEndItIsBackOn(@TempDir Path dir)
            throws Exception {
        // no snapshot: the restarted replica replays from the start of the acceptor logs
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 100_000)) {
            cluster.startAll();
            int[] ports = {VoleryCluster.freePort(), VoleryCluster.freePort(), VoleryCluster.freePort()};
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
            Watcher watcher = e -> {
                if (e.getType() == Watcher.Event.EventType.None) {
                    states.add(e.getState());
                } else {
                    events.add(e);
                }
            };
            List<CuttableProxy> proxies = new ArrayList<>();
            // the client knows three addresses; only one relays at a time, so it goes where the test sends it
            proxies.add(new CuttableProxy(cluster.clientAddress(1), ports[0]));
            try (ZooKeeper zk = new ZooKeeper("127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2],
                    20_000, watcher); ZooKeeper writer = cluster.session(2)) {
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "connected through node 1");
                writer.create("/w", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.addWatch("/w", AddWatchMode.PERSISTENT);
                int changes = 0;
                writer.setData("/w", new byte[] {(byte) ++changes}, -1);
                assertEquals("NodeDataChanged /w", next(events, "on node 1"));

                proxies.add(moveTo(cluster, 4, ports[1], proxies.get(0), states));
                writer.setData("/w", new byte[] {(byte) ++changes}, -1);
                assertEquals("NodeDataChanged /w", next(events, "after the move to node 4"));

                proxies.add(moveTo(cluster, 1, ports[2], proxies.get(1), states));
                writer.setData("/w", new byte[] {(byte) ++changes}, -1);
                assertEquals("NodeDataChanged /w", next(events, "back on node 1"));

                // a replica of partition 2 (which runs every reconnect too) replays both moves
                long reached = cluster.position(4);
                cluster.kill(5);
                cluster.start(5);
                cluster.awaitExecuted(5, reached);

                for (int i = 0; i < 3; i++) {
                    writer.setData("/w", new byte[] {(byte) ++changes}, -1);
                    assertEquals("NodeDataChanged /w", next(events, "change " + changes + " after node 5 replayed the moves"
                            + " (node 1 log:\n" + cluster.tail(1) + ")"));
                }
                assertEquals(List.of(), List.copyOf(events), "no event twice");
            } finally {
                proxies.forEach(CuttableProxy::close);
            }
        }
    }

    /**
     * ADR 099: a front end drops a replica's events of commands older than ones whose events that replica sent it
     * already. Front ends also drop copies of events they delivered, but remember only so many (100,000; here 16):
     * the replays of the older ones would reach the session again. A client's persistent watch fires 40 times; one
     * replica of each partition is killed and replays all 40 changes; the client must hear nothing more until the
     * next change, once.
     */
    @Test
    void aReplicaReplayingOldCommandsSendsTheirEventsToNoSessionAgain(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 100_000)) {
            cluster.jvmOption("-Dvolery.eventKeysRemembered=16");
            cluster.startAll();
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            try (ZooKeeper zk = new ZooKeeper(cluster.connectString(1), 20_000, e -> {
                if (e.getType() != Watcher.Event.EventType.None) {
                    events.add(e);
                }
            }); ZooKeeper writer = cluster.session(2)) {
                fortyChangesHeard(writer, zk, events);

                // whichever partition owns /w, one of its replicas (not the client's node 1) replays every change
                replay(cluster, 3, 2, 5, 4);
                onlyTheNextChangeHeard(writer, events);
                long dropped = Long.parseLong(cluster.mntr(1).get("volery_replayed_events_dropped"));
                org.junit.jupiter.api.Assertions.assertTrue(dropped > 0,
                        "node 1 heard the replayed events (and dropped them): " + dropped);
            }
        }
    }

    /**
     * ADR 100: a node that restarted knows nothing of what its previous run heard. A session moves away when node 1
     * is killed and comes back to node 1's new run; replicas that replay the changes fired while the session was on
     * node 1's previous run send their events to node 1 again, whose new run has heard nothing from them yet. Those
     * events belong to the session's stay at the previous run, which delivered them: none may reach it again.
     */
    @Test
    void aSessionBackOnARestartedNodeGetsNoReplayedEventOfItsStayAtThePreviousRun(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 100_000)) {
            // node 1's own replica replays the changes too, to node 1: their copies stay in its memory of events
            // delivered unless that is shorter than the replay (as under load)
            cluster.jvmOption("-Dvolery.eventKeysRemembered=16");
            cluster.startAll();
            int[] ports = {VoleryCluster.freePort(), VoleryCluster.freePort(), VoleryCluster.freePort()};
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
            List<CuttableProxy> proxies = new ArrayList<>();
            proxies.add(new CuttableProxy(cluster.clientAddress(1), ports[0]));
            try (ZooKeeper zk = new ZooKeeper("127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1] + ",127.0.0.1:" + ports[2],
                    20_000, e -> {
                        if (e.getType() == Watcher.Event.EventType.None) {
                            states.add(e.getState());
                        } else {
                            events.add(e);
                        }
                    }); ZooKeeper writer = cluster.session(3)) {
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "connected through node 1");
                fortyChangesHeard(writer, zk, events);

                cluster.kill(1);
                assertEquals(KeeperState.Disconnected, states.poll(20, TimeUnit.SECONDS), "node 1 killed");
                proxies.get(0).cut();
                proxies.add(new CuttableProxy(cluster.clientAddress(2), ports[1]));
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "moved to node 2");
                long reached1 = cluster.position(3);
                cluster.start(1);
                cluster.awaitExecuted(1, reached1);
                proxies.add(moveTo(cluster, 1, ports[2], proxies.get(1), states));

                // whichever partition owns /w, one of its replicas other than the writer's node replays every change
                replay(cluster, 2, 3, 5, 4);
                onlyTheNextChangeHeard(writer, events);
            } finally {
                proxies.forEach(CuttableProxy::close);
            }
        }
    }

    /** A persistent watch on a new /w, and 40 changes of /w, each heard once. */
    private static void fortyChangesHeard(ZooKeeper writer, ZooKeeper zk, LinkedBlockingQueue<WatchedEvent> events)
            throws Exception {
        writer.create("/w", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        zk.addWatch("/w", AddWatchMode.PERSISTENT);
        int changes = 40;
        for (int i = 1; i <= changes; i++) {
            writer.setData("/w", new byte[] {(byte) i}, -1);
        }
        for (int i = 1; i <= changes; i++) {
            assertEquals("NodeDataChanged /w", next(events, "for change " + i));
        }
    }

    /**
     * Kills nodes {@code a} and {@code b} with kill -9 and restarts them; waits until each has replayed what its peer
     * ({@code peerOfA}, {@code peerOfB}) had executed before.
     */
    private static void replay(ProcessCluster cluster, int a, int peerOfA, int b, int peerOfB) throws Exception {
        long reachedA = cluster.position(peerOfA);
        long reachedB = cluster.position(peerOfB);
        cluster.kill(a);
        cluster.kill(b);
        cluster.start(a);
        cluster.start(b);
        cluster.awaitExecuted(a, reachedA);
        cluster.awaitExecuted(b, reachedB);
    }

    /** One more change of /w: its event comes, and nothing else (no replayed event before or after it). */
    private static void onlyTheNextChangeHeard(ZooKeeper writer, LinkedBlockingQueue<WatchedEvent> events)
            throws Exception {
        writer.setData("/w", new byte[] {0}, -1);
        assertEquals("NodeDataChanged /w", next(events, "for the change after the replay"));
        Thread.sleep(500);
        assertEquals(List.of(), events.stream().map(e -> e.getType() + " " + e.getPath()).toList(),
                "nothing else: no replayed event");
    }

    /** Cuts the client's relay {@code from} and opens one to node {@code node} on {@code port}; awaits the reconnect. */
    private static CuttableProxy moveTo(ProcessCluster cluster, int node, int port, CuttableProxy from,
            LinkedBlockingQueue<KeeperState> states) throws Exception {
        from.cut();
        assertEquals(KeeperState.Disconnected, states.poll(20, TimeUnit.SECONDS), "disconnected by the cut");
        CuttableProxy to = new CuttableProxy(cluster.clientAddress(node), port);
        assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "reconnected through node " + node);
        return to;
    }

    private static String next(LinkedBlockingQueue<WatchedEvent> events, String when) throws InterruptedException {
        WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
        assertNotNull(e, "the persistent watch fired " + when);
        return e.getType() + " " + e.getPath();
    }
}
