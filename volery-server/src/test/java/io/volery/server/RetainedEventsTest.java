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

    /**
     * A client whose session starts through a proxy to node 1 of a 2 x 1 cluster and whose second address
     * is a port nothing listens on until {@link #openNode2()}, plus a writer connected to node 2.
     */
    private static final class Away implements AutoCloseable {
        final VoleryCluster cluster;
        final CuttableProxy toNode1;
        final int laterPort = VoleryCluster.freePort();
        final LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
        final ZooKeeper zk;
        final ZooKeeper writer;
        CuttableProxy toNode2;

        Away(VoleryConfig.Partitioning partitioning, int sessionTimeoutMillis) throws Exception {
            cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withPartitioning(partitioning));
            toNode1 = new CuttableProxy(cluster.nodes().get(0).clientAddress());
            Watcher watcher = e -> {
                if (e.getType() == Watcher.Event.EventType.None) {
                    states.add(e.getState());
                } else {
                    events.add(e);
                }
            };
            zk = new ZooKeeper(toNode1.connectString() + ",127.0.0.1:" + laterPort, sessionTimeoutMillis, watcher);
            writer = VolerySmokeTest.connect("127.0.0.1:" + cluster.nodes().get(1).clientAddress().getPort());
        }

        void awaitConnected() throws InterruptedException {
            assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "first connection (through node 1)");
        }

        boolean node1Holds() {
            return cluster.nodes().get(0).service().connectedSessions().contains(zk.getSessionId());
        }

        void awaitNode1Lost() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (node1Holds()) {
                assertTrue(System.nanoTime() < deadline, "node 1 noticed the lost connection within 10 s");
                Thread.sleep(10);
            }
        }

        void openNode2() throws Exception {
            toNode2 = new CuttableProxy(cluster.nodes().get(1).clientAddress(), laterPort);
            assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "reconnected through node 2");
        }

        List<String> next(int n, String what) throws InterruptedException {
            List<String> got = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
                assertNotNull(e, what + ", so far " + got);
                got.add(e.getType() + " " + e.getPath());
            }
            return got;
        }

        void assertNothingTwice() throws Exception {
            zk.exists("/", false);
            WatchedEvent extra = events.poll(500, TimeUnit.MILLISECONDS);
            assertNull(extra, "no event twice, got " + (extra == null ? "" : extra.getType() + " " + extra.getPath()));
        }

        @Override
        public void close() throws Exception {
            zk.close();
            writer.close();
            if (toNode2 != null) {
                toNode2.close();
            }
            toNode1.close();
            cluster.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void eventsFiredWhileAwayArriveAfterReconnectingElsewhere(VoleryConfig.Partitioning partitioning) throws Exception {
        try (Away a = new Away(partitioning, 20_000)) {
            a.awaitConnected();
            a.writer.create("/x", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            a.writer.create("/r", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            a.zk.getData("/x", true, null);
            a.zk.addWatch("/r", AddWatchMode.PERSISTENT_RECURSIVE);

            a.toNode1.cut();
            assertEquals(KeeperState.Disconnected, a.states.poll(20, TimeUnit.SECONDS), "after the cut");
            a.awaitNode1Lost();
            a.writer.setData("/x", new byte[] {1}, -1);
            a.writer.create("/r/child", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertNull(a.events.poll(), "no event can reach a session no server is connected to");

            a.openNode2();
            assertEquals(List.of("NodeDataChanged /x", "NodeCreated /r/child"), a.next(2, "the events fired while away"),
                    "the events fired while the session was away, in order");
            a.assertNothingTwice();
            a.writer.create("/r/after", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals(List.of("NodeCreated /r/after"), a.next(1, "the persistent watch still fires after the move"));
        }
    }

    /**
     * ADR 039: the network between the client and node 1 goes dark without closing anything, so node 1
     * hands a watch event to a connection that still looks open and the event is lost. The client times
     * out, reconnects through node 2 and must get that event once, before the one fired while it was away.
     * Node 1's hand-off names it as lost, and setWatches usually fires it again as well (unless the client's
     * last zxid, from the other partition, exceeds the change's: see the last test); either way it must come
     * once and first. It fails (the kept event first) if the kept events do not wait for
     * the setWatches reply; it passes with the hand-off's log ignored, as setWatches covers that run
     * (SessionMailboxesTest shows the log's part).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void anEventHandedToAConnectionThatWentDarkArrivesOnceAfterReconnectingElsewhere(VoleryConfig.Partitioning partitioning)
            throws Exception {
        try (Away a = new Away(partitioning, 6_000)) {
            a.awaitConnected();
            a.writer.create("/x", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            a.writer.create("/y", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            a.zk.getData("/x", true, null);
            a.zk.exists("/y/child", true);

            a.toNode1.silence();
            a.writer.setData("/x", new byte[] {1}, -1);
            assertTrue(a.node1Holds(), "node 1 handed the event to a connection it still took for open");
            assertEquals(KeeperState.Disconnected, a.states.poll(20, TimeUnit.SECONDS), "the client gave up on node 1");
            a.awaitNode1Lost();
            a.writer.create("/y/child", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertNull(a.events.poll(), "nothing reached the client so far");

            a.openNode2();
            assertEquals(List.of("NodeDataChanged /x", "NodeCreated /y/child"),
                    a.next(2, "the lost event and the one fired while away"), "in the order of the changes");
            a.assertNothingTwice();
        }
    }

    /**
     * Trace 2 of ADR 039, arranged: the client's last reply comes from partition B with a position above
     * that of a change of partition A which A executes only later (A's replica is held meanwhile: positions of
     * different partitions say nothing about real-time order). The change's event is handed to a connection
     * that went dark, so it is lost; on reconnecting through node 2, ZooKeeper's zxid comparison would not
     * see the change as newer than the client's last zxid. Node 1's log of what it handed the connection
     * brings the event back, and so does setWatches, which asks the watch registry rather than the zxids
     * (ADR 079): without the log this failed before ADR 079, and fails with neither.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void anEventLostInTheDarkBelowTheClientsLastZxidArrivesAfterReconnectingElsewhere(
            VoleryConfig.Partitioning partitioning) throws Exception {
        try (Away a = new Away(partitioning, 6_000)) {
            a.awaitConnected();
            io.volery.server.internal.PathPartitioner partitioner =
                    new io.volery.server.internal.PathPartitioner(a.cluster.partitions(), partitioning);
            int[] partitions = a.cluster.partitions();
            String x = EventBeforeLaterResponseTest.nameOn(partitioner, partitions[0], "/lagging-");
            String y = EventBeforeLaterResponseTest.nameOn(partitioner, partitions[1], "/ahead-");
            String held = EventBeforeLaterResponseTest.nameOn(partitioner, partitions[0], "/held-");
            a.writer.create(x, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            a.writer.create(y, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            a.zk.getData(x, true, null);

            ZooKeeper trigger = VolerySmokeTest.connect(a.cluster.connectString());
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            try {
                DeferredTopLevelTest.Split split = DeferredTopLevelTest.split(a.cluster, partitions[0]);
                DeferredTopLevelTest.holdAfterNextCommand(split.in(), trigger, held, release);
                java.util.concurrent.CompletableFuture<org.apache.zookeeper.data.Stat> change =
                        new java.util.concurrent.CompletableFuture<>();
                a.writer.setData(x, new byte[] {1}, -1, (rc, p, ctx, stat) -> change.complete(stat), null);
                Thread.sleep(100); // the change is ordered
                long lastZxid = 0;
                for (int i = 0; i < 50; i++) {
                    // partition B's ring goes on to later rounds (an idle ring's slots lag a busy ring's, ADR 002)
                    lastZxid = a.zk.setData(y, new byte[] {(byte) i}, -1).getMzxid(); // the client's last reply
                }
                a.toNode1.silence();
                release.countDown();
                org.apache.zookeeper.data.Stat changed = change.get(20, TimeUnit.SECONDS);
                assertTrue(changed.getMzxid() < lastZxid, "the change's zxid " + changed.getMzxid()
                        + " is below the client's last " + lastZxid + " though it was executed after it");
                assertTrue(a.node1Holds(), "node 1 handed the event to a connection it still took for open");
            } finally {
                release.countDown();
                trigger.close();
            }
            assertEquals(KeeperState.Disconnected, a.states.poll(20, TimeUnit.SECONDS), "the client gave up on node 1");
            a.awaitNode1Lost();
            assertNull(a.events.poll(), "nothing reached the client so far");

            a.openNode2();
            assertEquals(List.of("NodeDataChanged " + x), a.next(1, "the event lost in the dark"));
            a.assertNothingTwice();
        }
    }
}
