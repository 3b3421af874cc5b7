package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.HostProvider;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.volery.server.clients.Clients.awaitEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Sessions when something fails: the server holding a session goes away (the client moves to
 * another with its session, ephemerals and watches), and a client goes away without closing its
 * session (after the session timeout its ephemerals are gone everywhere and watchers hear of it).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionFailureTest {
    private static final int TICK_MILLIS = 500;
    private VoleryCluster cluster;
    private final List<ZooKeeper> clients = new ArrayList<>();
    /** Two top-level names that different partitions own. */
    private String inFirst;
    private String inSecond;

    @BeforeEach
    void start() throws Exception {
        cluster = new VoleryCluster(2, 3, 0, TICK_MILLIS);
        PathPartitioner partitioner = new PathPartitioner(new int[]{1, 2});
        List<String> byPartition = new ArrayList<>(List.of("", ""));
        for (int i = 0; byPartition.contains(""); i++) {
            String name = "/sub" + i;
            int p = partitioner.ownerOf(name);
            if (byPartition.get(p - 1).isEmpty()) {
                byPartition.set(p - 1, name);
            }
        }
        inFirst = byPartition.get(0);
        inSecond = byPartition.get(1);
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (ZooKeeper zk : clients) {
            zk.close();
        }
        cluster.close();
    }

    private ZooKeeper client(String connect, int timeoutMillis, LinkedBlockingQueue<WatchedEvent> events) throws Exception {
        ZooKeeper zk = Clients.zooKeeper(connect, timeoutMillis, events);
        clients.add(zk);
        return zk;
    }

    /**
     * Node 6 serves partition 2 and is the last acceptor of its ring, so closing it costs no ring
     * its coordinator. (Closing a coordinator is {@link #aSessionMovesWhenItsServerWasARingCoordinator}.)
     */
    @Test
    void aSessionMovesToAnotherServerWhenItsServerCloses() throws Exception {
        sessionMovesWhenItsServerCloses(cluster.nodes().get(5));
    }

    /**
     * Node 1 coordinates partition 1's ring and the ring that orders commands for every partition,
     * and is partition 1's designated Eyrie sender. Without another replica taking over its
     * sends, every command for both partitions waited an exchange timeout, touches arrived faster
     * than that, and the cluster fell further and further behind.
     */
    @Test
    void aSessionMovesWhenItsServerWasARingCoordinator() throws Exception {
        sessionMovesWhenItsServerCloses(cluster.nodes().get(0));
    }

    private void sessionMovesWhenItsServerCloses(VoleryNode holder) throws Exception {
        LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
        ZooKeeper zk = clientOf(holder, 6000, events);
        long session = zk.getSessionId();
        int timeout = zk.getSessionTimeout();
        for (String top : List.of(inFirst, inSecond)) {
            zk.create(top, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.create(top + "/data", "v0".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.create(top + "/eph", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        }
        // one-shot watches of each kind, set before the failure
        zk.getData(inFirst + "/data", true, null);
        zk.exists(inSecond + "/later", true);
        zk.getChildren(inSecond, true);
        LinkedBlockingQueue<WatchedEvent> persistent = new LinkedBlockingQueue<>();
        zk.addWatch(inSecond, persistent::add, org.apache.zookeeper.AddWatchMode.PERSISTENT_RECURSIVE);

        assertEquals(holder, serverOf(zk), "the client starts on the chosen server");
        ZooKeeper other = client(connectStringWithout(holder), 10_000, null);
        holder.close();
        // a change made while the client may still be away: its watch must fire either way
        other.setData(inFirst + "/data", "v1".getBytes(), -1);

        WatchedEvent disconnected = events.poll(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        while (disconnected != null && disconnected.getState() != KeeperState.Disconnected) {
            disconnected = events.poll(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        assertNotNull(disconnected, "the client never noticed its server close");
        awaitEvent(events, EventType.NodeDataChanged, inFirst + "/data");
        assertEquals(session, zk.getSessionId(), "the client kept its session id");
        assertTrue(serverOf(zk) != holder, "the client now talks to another server");

        other.create(inSecond + "/later", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        Clients.awaitEvents(events, List.of(EventType.NodeCreated + " " + inSecond + "/later",
                EventType.NodeChildrenChanged + " " + inSecond));
        // the persistent recursive watch came along (re-added on reconnect) and keeps firing
        awaitEvent(persistent, EventType.NodeCreated, inSecond + "/later");
        other.setData(inSecond + "/later", "x".getBytes(), -1);
        awaitEvent(persistent, EventType.NodeDataChanged, inSecond + "/later");

        for (String top : List.of(inFirst, inSecond)) {
            Stat eph = other.exists(top + "/eph", false);
            assertNotNull(eph, top + "/eph vanished although its session lives");
            assertEquals(session, eph.getEphemeralOwner(), top + "/eph's owner");
        }
        // The session outlives a full timeout on its new server: the new front end keeps it alive.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout + 2L * TICK_MILLIS);
        while (System.nanoTime() < until) {
            zk.exists("/", false);
            Thread.sleep(TICK_MILLIS);
        }
        for (WatchedEvent e : events) {
            assertTrue(e.getState() != KeeperState.Expired, "the session expired after moving: " + e);
        }
        assertEquals(List.of("eph"), zk.getEphemerals(inFirst).stream().map(p -> p.substring(p.lastIndexOf('/') + 1)).toList(),
                "the session's ephemerals under " + inFirst);
        assertEquals(session, other.exists(inSecond + "/eph", false).getEphemeralOwner());
    }

    @Test
    void aKilledClientsEphemeralsVanishEverywhereAfterItsTimeout() throws Exception {
        LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
        ZooKeeper watcher = client(cluster.connectString(), 10_000, events);
        for (String top : List.of(inFirst, inSecond)) {
            watcher.create(top, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
        String topLevel = "/vanishing";
        List<String> ephemerals = List.of(inFirst + "/e1", inFirst + "/e2", inSecond + "/e3", topLevel);

        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), VanishingClient.class.getName(),
                cluster.connectString(), "2000"));
        command.addAll(ephemerals);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String ready;
            StringBuilder transcript = new StringBuilder();
            Pattern readyLine = Pattern.compile("READY (-?\\d+) (\\d+)");
            Matcher m = null;
            while ((ready = out.readLine()) != null) {
                transcript.append(ready).append('\n');
                m = readyLine.matcher(ready);
                if (m.matches()) {
                    break;
                }
            }
            if (ready == null) {
                fail("the child client ended before creating its ephemerals:\n" + transcript);
            }
            long session = Long.parseLong(m.group(1));
            int timeout = Integer.parseInt(m.group(2));
            for (String p : ephemerals) {
                Stat s = watcher.exists(p, true);
                assertNotNull(s, p + " was not created");
                assertEquals(session, s.getEphemeralOwner(), p + "'s owner");
            }
            watcher.getChildren(inSecond, true);

            long killedAt = System.nanoTime();
            child.destroyForcibly();
            assertTrue(child.waitFor(20, TimeUnit.SECONDS), "the child JVM survived kill -9");

            List<String> expected = new ArrayList<>();
            for (String p : ephemerals) {
                expected.add(EventType.NodeDeleted + " " + p);
            }
            expected.add(EventType.NodeChildrenChanged + " " + inSecond);
            Clients.awaitEvents(events, expected);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            assertTrue(tookMillis >= timeout / 2,
                    "ephemerals vanished " + tookMillis + " ms after the kill, before the session timeout of " + timeout + " ms");
            // every server, whatever partition it serves, agrees they are gone
            for (VoleryNode n : cluster.nodes()) {
                ZooKeeper direct = client("127.0.0.1:" + n.clientAddress().getPort(), 10_000, null);
                for (String p : ephemerals) {
                    assertNull(direct.exists(p, false), p + " still visible through node " + n.nodeId());
                }
                assertTrue(!direct.getChildren("/", false).contains(topLevel.substring(1)),
                        "the root still lists " + topLevel + " through node " + n.nodeId());
                assertEquals(List.of(), direct.getChildren(inFirst, false), inFirst + "'s children through node " + n.nodeId());
            }
        } finally {
            child.destroyForcibly();
        }
    }

    /**
     * A client whose first server is {@code first}, the others following in cluster order: the
     * ordinary client shuffles its list, which would leave the test's server to chance.
     */
    private ZooKeeper clientOf(VoleryNode first, int timeoutMillis, LinkedBlockingQueue<WatchedEvent> events)
            throws Exception {
        List<InetSocketAddress> order = new ArrayList<>();
        order.add(first.clientAddress());
        for (VoleryNode n : cluster.nodes()) {
            if (n != first) {
                order.add(n.clientAddress());
            }
        }
        java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(cluster.connectString(), timeoutMillis, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
            events.add(e);
        }, false, new InOrder(order));
        clients.add(zk);
        assertTrue(connected.await(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS), "the client did not connect");
        return zk;
    }

    /** Hands out the servers round-robin in the given order, never shuffled. */
    private static final class InOrder implements HostProvider {
        private final List<InetSocketAddress> servers;
        private int next;

        InOrder(List<InetSocketAddress> servers) {
            this.servers = servers;
        }

        @Override
        public int size() {
            return servers.size();
        }

        @Override
        public synchronized InetSocketAddress next(long spinDelay) {
            InetSocketAddress a = servers.get(next);
            next = (next + 1) % servers.size();
            if (next == 0 && spinDelay > 0) {
                try {
                    Thread.sleep(spinDelay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return a;
        }

        @Override
        public void onConnected() {
        }

        @Override
        public boolean updateServerList(java.util.Collection<InetSocketAddress> serverAddresses, InetSocketAddress current) {
            return false;
        }
    }

    /** The node whose client port the client is connected to (from the client's own description). */
    private VoleryNode serverOf(ZooKeeper zk) {
        int port = io.volery.server.ServerOfClient.port(zk);
        assertTrue(port != -1, "cannot tell the client's server from " + zk);
        return cluster.nodes().stream().filter(n -> n.clientAddress().getPort() == port).findFirst()
                .orElseThrow(() -> new AssertionError("no node listens on " + port));
    }

    private String connectStringWithout(VoleryNode excluded) {
        StringJoiner j = new StringJoiner(",");
        for (VoleryNode n : cluster.nodes()) {
            if (n != excluded) {
                j.add("127.0.0.1:" + n.clientAddress().getPort());
            }
        }
        return j.toString();
    }
}
