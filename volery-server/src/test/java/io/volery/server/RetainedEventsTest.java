package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.config.VoleryConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Events fired while a session is away reach it when it reconnects, within its timeout, through
 * another server: a real ZooKeeper client loses its connection to node 1 (a cut proxy), changes fire
 * its one-shot and persistent-recursive watches while no server can reach it, then it reconnects
 * through node 2. ZooKeeper keeps such events only for one-shot watches (setWatches compares zxids);
 * Volery's front end keeps the session's events and hands them to the new front end.
 */
class RetainedEventsTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void eventsFiredWhileAwayArriveAfterReconnectingElsewhere(VoleryConfig.Partitioning partitioning) throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 1, 0, 2000, o -> o.withPartitioning(partitioning));
             CuttableProxy toNode1 = new CuttableProxy(c.nodes().get(0).clientAddress())) {
            int laterPort = VoleryCluster.freePort(); // nothing listens there until the proxy to node 2 opens
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
            Watcher watcher = e -> {
                if (e.getType() == Watcher.Event.EventType.None) {
                    states.add(e.getState());
                } else {
                    events.add(e);
                }
            };
            ZooKeeper away = new ZooKeeper(toNode1.connectString() + ",127.0.0.1:" + laterPort, 20_000, watcher);
            ZooKeeper writer = VolerySmokeTest.connect("127.0.0.1:" + c.nodes().get(1).clientAddress().getPort());
            CuttableProxy toNode2 = null;
            try {
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "first connection (through node 1)");
                writer.create("/x", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                writer.create("/r", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                away.getData("/x", true, null);
                away.addWatch("/r", AddWatchMode.PERSISTENT_RECURSIVE);
                long session = away.getSessionId();

                toNode1.cut();
                assertEquals(KeeperState.Disconnected, states.poll(20, TimeUnit.SECONDS), "after the cut");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (c.nodes().get(0).service().connectedSessions().contains(session)) {
                    assertTrue(System.nanoTime() < deadline, "node 1 noticed the lost connection within 10 s");
                    Thread.sleep(10);
                }
                writer.setData("/x", new byte[] {1}, -1);
                writer.create("/r/child", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertNull(events.poll(), "no event can reach a session no server is connected to");

                toNode2 = new CuttableProxy(c.nodes().get(1).clientAddress(), laterPort);
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "reconnected through node 2");
                List<String> got = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
                    assertNotNull(e, "the events fired while away, so far " + got);
                    got.add(e.getType() + " " + e.getPath());
                }
                assertEquals(List.of("NodeDataChanged /x", "NodeCreated /r/child"), got,
                        "the events fired while the session was away, in order");
                away.exists("/", false);
                WatchedEvent extra = events.poll();
                assertNull(extra, "no event twice, got " + (extra == null ? "" : extra.getType() + " " + extra.getPath()));
                writer.create("/r/after", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                WatchedEvent after = events.poll(10, TimeUnit.SECONDS);
                assertNotNull(after, "the persistent watch still fires after the move");
                assertEquals("NodeCreated /r/after", after.getType() + " " + after.getPath());
            } finally {
                away.close();
                writer.close();
                if (toNode2 != null) {
                    toNode2.close();
                }
            }
        }
    }

    /**
     * ADR 039: the network between the client and node 1 goes dark without closing anything, so node 1
     * hands a watch event to a connection that still looks open and the event is lost. The client times
     * out, reconnects through node 2 and must get that event once, before the one fired while it was away.
     * Node 1's hand-off names it as lost, and setWatches usually fires it again as well (unless the client's
     * last zxid, from the other partition, exceeds the change's: not something a test can arrange); either
     * way it must come once and first. (It passes with the hand-off's log ignored, as setWatches covers that
     * run; SessionMailboxesTest shows the log's part.)
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void anEventHandedToAConnectionThatWentDarkArrivesOnceAfterReconnectingElsewhere(VoleryConfig.Partitioning partitioning)
            throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 1, 0, 2000, o -> o.withPartitioning(partitioning));
             CuttableProxy toNode1 = new CuttableProxy(c.nodes().get(0).clientAddress())) {
            int laterPort = VoleryCluster.freePort();
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
            Watcher watcher = e -> {
                if (e.getType() == Watcher.Event.EventType.None) {
                    states.add(e.getState());
                } else {
                    events.add(e);
                }
            };
            ZooKeeper away = new ZooKeeper(toNode1.connectString() + ",127.0.0.1:" + laterPort, 6_000, watcher);
            ZooKeeper writer = VolerySmokeTest.connect("127.0.0.1:" + c.nodes().get(1).clientAddress().getPort());
            CuttableProxy toNode2 = null;
            try {
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "first connection (through node 1)");
                writer.create("/x", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                writer.create("/y", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                away.getData("/x", true, null);
                away.exists("/y/child", true);
                long session = away.getSessionId();

                toNode1.silence();
                writer.setData("/x", new byte[] {1}, -1);
                assertTrue(c.nodes().get(0).service().connectedSessions().contains(session),
                        "node 1 handed the event to a connection it still took for open");
                assertEquals(KeeperState.Disconnected, states.poll(20, TimeUnit.SECONDS), "the client gave up on node 1");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (c.nodes().get(0).service().connectedSessions().contains(session)) {
                    assertTrue(System.nanoTime() < deadline, "node 1 saw the connection close within 10 s");
                    Thread.sleep(10);
                }
                writer.create("/y/child", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                assertNull(events.poll(), "nothing reached the client so far");

                toNode2 = new CuttableProxy(c.nodes().get(1).clientAddress(), laterPort);
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "reconnected through node 2");
                List<String> got = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
                    assertNotNull(e, "the lost event and the one fired while away, so far " + got);
                    got.add(e.getType() + " " + e.getPath());
                }
                assertEquals(List.of("NodeDataChanged /x", "NodeCreated /y/child"), got, "in the order of the changes");
                away.exists("/", false);
                WatchedEvent extra = events.poll(500, TimeUnit.MILLISECONDS);
                assertNull(extra, "no event twice, got " + (extra == null ? "" : extra.getType() + " " + extra.getPath()));
            } finally {
                away.close();
                writer.close();
                if (toNode2 != null) {
                    toNode2.close();
                }
            }
        }
    }
}
