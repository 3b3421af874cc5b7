package io.volery.server.durability;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server process holding a ZooKeeper session is killed with kill -9: the unmodified ZooKeeper
 * client reconnects to another server within its session timeout and finds its session, its
 * ephemeral znode and its watches intact (a watch set before the kill fires after it), and the server it
 * moved to goes on without the dead one's hand-off at once, not after the hand-off timeout (ADR 082). The cluster
 * file's {@code snapMaxAgeSeconds = 1} makes the replicas snapshot by age, far below {@code snapCount}
 * (ADR 055).
 */
class SessionServerKilledProcessTest {

    @Test
    void theClientMovesToAnotherServerWithSessionEphemeralsAndWatches(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 1_000_000, "snapMaxAgeSeconds = 1\n")) {
            cluster.startAll();
            LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
            Watcher watcher = e -> {
                if (e.getType() == EventType.None) {
                    states.add(e.getState());
                } else {
                    events.add(e);
                }
            };
            try (ZooKeeper holder = new ZooKeeper(cluster.connectString(), 15_000, watcher)) {
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS), "first connection");
                long session = holder.getSessionId();
                // /zookeeper/config lists every node's client address, as an ensemble's lists its servers (ADR 097)
                java.util.Properties config = new java.util.Properties();
                config.load(new java.io.ByteArrayInputStream(holder.getConfig(false, null)));
                assertEquals(new java.util.TreeSet<>(java.util.List.of(cluster.connectString().split(","))),
                        new java.util.TreeSet<>(java.util.List.of(org.apache.curator.framework.imps.EnsembleTracker
                                .configToConnectionString(new org.apache.zookeeper.server.quorum.flexible.QuorumMaj(config))
                                .split(","))), "the configuration: " + config);
                holder.create("/kept", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holder.create("/kept/eph", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                holder.create("/watched", "v0".getBytes(StandardCharsets.UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holder.getData("/watched", true, null);
                holder.getChildren("/kept", true);

                int victim = cluster.nodeServing(holder);
                cluster.kill(victim);

                assertEquals(KeeperState.Disconnected, states.poll(30, TimeUnit.SECONDS),
                        "the client notices that node " + victim + " is gone");
                assertEquals(KeeperState.SyncConnected, states.poll(30, TimeUnit.SECONDS),
                        "the client reconnects to another server within its session timeout");
                assertEquals(session, holder.getSessionId(), "the same session");
                int now = cluster.nodeServing(holder);
                assertTrue(now != victim, "connected to a live server, not the killed node " + victim);
                // ADR 082: the new front end did not wait out the hand-off timeout for a node that refuses connections
                int serving = now;
                ProcessCluster.await("node " + now + " went on without the killed node's hand-off", 30_000, () -> {
                    try {
                        Map<String, String> v = cluster.mntr(serving);
                        return Long.parseLong(v.get("volery_handoffs_from_dead_front_ends"))
                                + Long.parseLong(v.get("volery_handoffs_timed_out")) > 0;
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                Map<String, String> m = cluster.mntr(now);
                assertEquals("1", m.get("volery_handoffs_from_dead_front_ends"),
                        "node " + now + " went on without the killed node's hand-off at once: " + m);
                assertEquals("0", m.get("volery_handoffs_timed_out"), "node " + now + " waited out the hand-off: " + m);

                int other = 1;
                while (other == victim || other == now) {
                    other++;
                }
                try (ZooKeeper observer = cluster.session(other)) {
                    Stat eph = observer.exists("/kept/eph", false);
                    assertNotNull(eph, "the ephemeral of the moved session is still there");
                    assertEquals(session, eph.getEphemeralOwner(), "and still owned by it");
                    observer.setData("/watched", "v1".getBytes(StandardCharsets.UTF_8), -1);
                    observer.create("/kept/child", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }
                WatchedEvent first = events.poll(20, TimeUnit.SECONDS);
                WatchedEvent second = events.poll(20, TimeUnit.SECONDS);
                assertNotNull(first, "the data watch set before the kill fired after it");
                assertNotNull(second, "the child watch set before the kill fired after it");
                assertEquals(EventType.NodeDataChanged, first.getType(), "event on " + first.getPath());
                assertEquals("/watched", first.getPath());
                assertEquals(EventType.NodeChildrenChanged, second.getType(), "event on " + second.getPath());
                assertEquals("/kept", second.getPath());
                for (int id : ProcessCluster.NODES) {
                    if (id == victim) {
                        continue;
                    }
                    // session touches are deliveries too: the first one a second after the start tags a snapshot
                    ProcessCluster.await("node " + id + " snapshots by age", 30_000, () -> {
                        try {
                            return !cluster.snapshots(id).isEmpty();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
                }
            }
        }
    }
}
