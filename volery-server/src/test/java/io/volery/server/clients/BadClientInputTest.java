package io.volery.server.clients;

import io.volery.server.VoleryNode;
import io.volery.server.frontend.OpCodes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.SetDataRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a client can send that no well-behaved client would. Each probe runs against real
 * ZooKeeper 3.9.5 and against Volery, and both must answer alike (the same error codes, the same
 * choice between keeping and dropping the connection); meanwhile another session on Volery must
 * notice nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BadClientInputTest extends VoleryBesideZooKeeper {
    private static final int SENTINEL_XID = 4242;

    /** What one probe sends after the handshake: whole frames, or raw bytes when the length lies. */
    interface Send {
        void send(RawZkConnection c) throws IOException;
    }

    /**
     * @param firstReplyOnly compare only the first reply: ZooKeeper closes the connection after
     *                       answering an unknown operation, but a request right behind it may or may not
     *                       be answered first (observed both ways), so only the answer itself is fixed
     */
    record Probe(Send send, boolean firstReplyOnly) {
    }

    static Map<String, Probe> probes() {
        Map<String, Send> p = new LinkedHashMap<>();
        p.put("a header cut short", c -> c.sendFrame(new byte[]{0, 0, 1}));
        p.put("a create whose path length runs past the frame", c -> {
            ByteBuffer b = ByteBuffer.allocate(14);
            b.putInt(1).putInt(OpCodes.CREATE).putInt(1000).put((byte) '/').put((byte) 'x');
            c.sendFrame(b.array());
        });
        p.put("a getData with a negative path length", c -> {
            ByteBuffer b = ByteBuffer.allocate(13);
            b.putInt(1).putInt(OpCodes.GET_DATA).putInt(-7).put((byte) 0);
            c.sendFrame(b.array());
        });
        p.put("createSession inside a session", c -> c.sendFrame(RawZkConnection.request(1, OpCodes.CREATE_SESSION, null)));
        for (String path : List.of("relative", "/trailing/", "/a//b", "/a/./b", "/.", "/..", "")) {
            p.put("create of the invalid path '" + path + "'", c -> c.sendFrame(RawZkConnection.request(1, OpCodes.CREATE,
                    new CreateRequest(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 0))));
        }
        p.put("getData of the invalid path 'nope'",
                c -> c.sendFrame(RawZkConnection.request(1, OpCodes.GET_DATA, new GetDataRequest("nope", false))));
        p.put("a create with an invalid mode 42", c -> c.sendFrame(RawZkConnection.request(1, OpCodes.CREATE,
                new CreateRequest("/badmode", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, 42))));
        p.put("a frame length above jute.maxbuffer", c -> c.sendRaw(ByteBuffer.allocate(12)
                .putInt(8 << 20).putInt(1).putInt(OpCodes.EXISTS).array()));
        p.put("a negative frame length", c -> c.sendRaw(ByteBuffer.allocate(4).putInt(-5).array()));
        // jute.maxbuffer (0xfffff by default on both) bounds the frame, all of it but the length prefix
        p.put("a setData whose frame is exactly jute.maxbuffer", c -> c.sendFrame(setDataFrame(0xfffff)));
        p.put("a setData whose frame is one byte over jute.maxbuffer", c -> c.sendFrame(setDataFrame(0xfffff + 1)));
        Map<String, Probe> probes = new LinkedHashMap<>();
        p.forEach((name, send) -> probes.put(name, new Probe(send, false)));
        for (int op : new int[]{999, 23, 108, 10, -2, -12, -77}) {
            probes.put("unknown opcode " + op, new Probe(c -> c.sendFrame(RawZkConnection.request(1, op, null)), true));
        }
        return probes;
    }

    /** A setData of a node that does not exist, its data sized for a frame of {@code frameBytes}. */
    static byte[] setDataFrame(int frameBytes) {
        String path = "/no-such-node";
        int overhead = RawZkConnection.request(1, OpCodes.SET_DATA, new SetDataRequest(path, new byte[0], -1)).length;
        byte[] frame = RawZkConnection.request(1, OpCodes.SET_DATA,
                new SetDataRequest(path, new byte[frameBytes - overhead], -1));
        assertEquals(frameBytes, frame.length, "the setData frame's size");
        return frame;
    }

    /**
     * Opens a session, sends the probe and then an ordinary exists("/") as a sentinel, and says
     * what came back: each reply's xid and error code, then whether the connection survived.
     */
    static String outcome(InetSocketAddress server, Probe probe) throws IOException {
        try (RawZkConnection c = new RawZkConnection(server, 10_000)) {
            try {
                probe.send().send(c);
            } catch (IOException closedWhileSending) {
                // a server that refuses a frame by its length may close before the rest of it is written
            }
            try {
                c.sendFrame(RawZkConnection.request(SENTINEL_XID, OpCodes.EXISTS, new ExistsRequest("/", false)));
            } catch (IOException alreadyClosed) {
                // the server may close before the sentinel leaves
            }
            List<String> replies = new ArrayList<>();
            ReplyHeader h;
            while ((h = c.nextReply()) != null) {
                replies.add(h.getXid() + ":" + h.getErr());
                if (probe.firstReplyOnly()) {
                    return "first reply " + replies;
                }
                if (h.getXid() == SENTINEL_XID) {
                    return "replies " + replies + ", connection kept";
                }
            }
            return "replies " + replies + ", connection closed";
        }
    }

    @Test
    void badInputGetsZooKeepersAnswerAndOtherSessionsNoticeNothing() throws Exception {
        LinkedBlockingQueue<WatchedEvent> bystanderEvents = new LinkedBlockingQueue<>();
        ZooKeeper bystander = Clients.zooKeeper(cluster.connectString(), 10_000, bystanderEvents);
        try {
            bystander.create("/guarded", "kept".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            bystander.create("/guarded/eph", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            bystander.getData("/guarded", true, null);

            InetSocketAddress real = new InetSocketAddress("127.0.0.1",
                    Integer.parseInt(zookeeper.connectString().substring(zookeeper.connectString().lastIndexOf(':') + 1)));
            List<String> differences = new ArrayList<>();
            int i = 0;
            for (Map.Entry<String, Probe> probe : probes().entrySet()) {
                VoleryNode node = cluster.nodes().get(i++ % cluster.nodes().size());
                String expected = outcome(real, probe.getValue());
                String actual = outcome(node.clientAddress(), probe.getValue());
                if (!expected.equals(actual)) {
                    differences.add(probe.getKey() + ": ZooKeeper gave " + expected + ", Volery node " + node.nodeId()
                            + " gave " + actual);
                }
            }
            assertEquals(List.of(), differences, "probes where Volery answered unlike ZooKeeper 3.9.5");

            Stat st = new Stat();
            assertArrayEquals("kept".getBytes(), bystander.getData("/guarded", false, st), "the bystander's data");
            assertEquals(0, st.getVersion(), "the bystander's data version");
            assertEquals(bystander.getSessionId(), bystander.exists("/guarded/eph", false).getEphemeralOwner());
            assertTrue(bystanderEvents.stream().allMatch(e -> e.getPath() == null
                            && e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected),
                    "the bystander heard node events or lost its connection: " + bystanderEvents);
            bystander.setData("/guarded", "changed".getBytes(), 0);
            Clients.awaitEvent(bystanderEvents, org.apache.zookeeper.Watcher.Event.EventType.NodeDataChanged, "/guarded");
        } finally {
            bystander.close();
        }
    }

    private static void awaitState(LinkedBlockingQueue<WatchedEvent> events, KeeperState state) throws InterruptedException {
        WatchedEvent e;
        do {
            e = events.poll(Clients.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(e, "the client never reported " + state);
        } while (e.getState() != state);
    }

    @Test
    void aRequestOverJuteMaxBufferDropsTheConnectionButTheSessionLives() throws Exception {
        LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
        ZooKeeper zk = Clients.zooKeeper(cluster.connectString(), 10_000, events);
        try {
            long session = zk.getSessionId();
            zk.create("/big", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.create("/big/eph", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            byte[] tooBig = new byte[2 << 20];
            events.clear();
            assertThrows(KeeperException.ConnectionLossException.class, () -> zk.setData("/big", tooBig, -1),
                    "a 2 MiB setData over jute.maxbuffer (1 MiB)");
            awaitState(events, KeeperState.Disconnected);
            awaitState(events, KeeperState.SyncConnected);
            Stat st = zk.exists("/big", false);
            assertNotNull(st, "/big after reconnecting");
            assertEquals(0, st.getVersion(), "the oversized setData must not have been applied");
            assertEquals(session, zk.getSessionId(), "the client reconnected with its session");
            assertEquals(session, zk.exists("/big/eph", false).getEphemeralOwner(), "the session's ephemeral");
            zk.setData("/big", new byte[900 * 1024], -1);
            assertEquals(900 * 1024, zk.exists("/big", false).getDataLength(), "a large request under the limit");
        } finally {
            zk.close();
        }
    }

    @Test
    void fuzzedConnectionsNeverStopTheServerNorTouchAnotherSession() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        System.out.println("BadClientInputTest fuzz seed " + seed + " (rerun with -Dfuzz.seed=" + seed + ")");
        Random rnd = new Random(seed);
        LinkedBlockingQueue<WatchedEvent> guardEvents = new LinkedBlockingQueue<>();
        ZooKeeper guard = Clients.zooKeeper(cluster.connectString(), 10_000, guardEvents);
        try {
            guard.addAuthInfo("digest", "guard:secret".getBytes());
            guard.create("/a", "guarded".getBytes(), ZooDefs.Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
            guard.create("/a/eph", new byte[0], ZooDefs.Ids.CREATOR_ALL_ACL, CreateMode.EPHEMERAL);
            guard.getData("/a", true, null);
            guard.getChildren("/a", true);

            List<byte[]> templates = io.volery.server.frontend.ZkCodecFuzzProperties.wellFormed();
            int sent = 0;
            int reconnects = 0;
            RawZkConnection c = null;
            try {
                for (int i = 0; i < 600; i++) {
                    if (c == null) {
                        VoleryNode node = cluster.nodes().get(rnd.nextInt(cluster.nodes().size()));
                        c = new RawZkConnection(node.clientAddress(), 4000);
                        c.drainRepliesInBackground();
                        reconnects++;
                    }
                    byte[] f = rnd.nextInt(5) == 0 ? randomBytes(rnd)
                            : io.volery.server.frontend.ZkCodecFuzzProperties.mutate(
                                    templates.get(rnd.nextInt(templates.size())), templates, rnd);
                    try {
                        c.sendFrame(f);
                        sent++;
                    } catch (IOException closedByServer) {
                        c.close();
                        c = null;
                    }
                    if (c != null && c.closedByServer()) {
                        c.close();
                        c = null;
                    }
                }
            } finally {
                if (c != null) {
                    c.close();
                }
            }
            assertTrue(sent > 300, "the fuzzer got only " + sent + " frames through (" + reconnects + " connections)");

            // every node still serves new sessions
            for (VoleryNode n : cluster.nodes()) {
                try (RawZkConnection probe = new RawZkConnection(n.clientAddress(), 4000)) {
                    probe.sendFrame(RawZkConnection.request(SENTINEL_XID, OpCodes.EXISTS, new ExistsRequest("/", false)));
                    ReplyHeader h = probe.nextReply();
                    assertNotNull(h, "node " + n.nodeId() + " closed a well-behaved connection after the fuzz");
                    assertEquals(0, h.getErr(), "exists(/) on node " + n.nodeId() + " after the fuzz");
                }
            }
            // the guarded session saw nothing and lost nothing
            Stat st = new Stat();
            assertArrayEquals("guarded".getBytes(), guard.getData("/a", false, st), "the guarded data");
            assertEquals(0, st.getVersion(), "the guarded data's version");
            assertEquals(List.of("eph"), guard.getChildren("/a", false), "the guarded node's children");
            assertEquals(guard.getSessionId(), guard.exists("/a/eph", false).getEphemeralOwner());
            assertTrue(guardEvents.stream().allMatch(e -> e.getPath() == null && e.getState() == KeeperState.SyncConnected),
                    "the guarded session heard something: " + guardEvents);
        } finally {
            guard.close();
        }
    }

    private static byte[] randomBytes(Random rnd) {
        byte[] b = new byte[rnd.nextInt(64)];
        rnd.nextBytes(b);
        return b;
    }
}
