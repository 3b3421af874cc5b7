package io.volery.server.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.volery.server.CuttableProxy;
import io.volery.server.VoleryCluster;
import io.volery.server.admin.FourLetterWordClient;
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
 * A replica killed with kill -9 replays the order from its last checkpoint when it restarts, and so
 * executes again the reconnects of sessions that moved between front ends in the meantime. Every
 * replica executing such a reconnect tells the session's previous front end that it moved (ADR 017);
 * the replayed copies come late, possibly long after the session came back to that front end. A late
 * copy must not take the session's mailbox away from the front end it is connected to again (ADR 098):
 * here a real ZooKeeper client moves node 1 -> node 4 -> node 1, a replica of the other partition is
 * killed and replays both moves, and the client's persistent watch must go on firing.
 */
class ReplayedMovesProcessTest {

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
                String reached = lastPosition(cluster, 4);
                cluster.kill(5);
                cluster.start(5);
                ProcessCluster.await("node 5 replayed up to position " + reached + ", where node 4 was before the kill",
                        60_000, () -> replayedTo(cluster, 5, reached));

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

    /** The position of the last command node {@code node} executed ({@code dgst} lists them oldest first). */
    private static String lastPosition(ProcessCluster cluster, int node) throws java.io.IOException {
        String[] lines = FourLetterWordClient.ask(cluster.clientAddress(node), "dgst", 15_000).strip().split("\n");
        return lines[lines.length - 1].strip().split(" ")[0];
    }

    private static boolean replayedTo(ProcessCluster cluster, int node, String position) {
        try {
            return cluster.digests(node).containsKey(position);
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
