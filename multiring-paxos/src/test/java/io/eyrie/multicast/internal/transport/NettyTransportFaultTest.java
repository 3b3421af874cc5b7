package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Real NettyTransports on 127.0.0.1 under faults: restarts, bad input, peers that stop reading or are gone. */
class NettyTransportFaultTest {

    private static final int MAX_FRAME = 64 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<NettyTransport> started = new ArrayList<>();

    @AfterEach
    void closeAll() {
        started.forEach(NettyTransport::close);
    }

    private NettyTransport start(ClusterConfig config, int id, Inbox inbox, TransportOptions options) {
        NettyTransport t = new NettyTransport(config, id, MAX_FRAME, options);
        started.add(t);
        t.start(inbox);
        return t;
    }

    private static TransportOptions quickRedial() {
        return TransportOptions.defaults().withReconnectMillis(10, 200);
    }

    @Test
    void aPeerRestartedOnTheSamePortIsRedialledAndTrafficResumes() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        Inbox one = new Inbox();
        Inbox two = new Inbox();
        NettyTransport t1 = start(config, 1, one, quickRedial());
        NettyTransport t2 = start(config, 2, two, quickRedial());
        for (int i = 0; i < 1000; i++) {
            assertTrue(t1.send(2, Inbox.message(i, 32)));
        }
        two.awaitCount(1, 1000, WAIT);
        assertEquals(Inbox.range(0, 1000), two.from(1));
        assertFalse(t1.peerRefuses(2), "a connected peer does not refuse");

        t2.close();
        one.await("node 1 to see its connection to node 2 go down", WAIT, in -> in.events().contains("2 down"));
        // ADR 082: nothing listens on node 2's port any more, so node 1's redials are refused
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!t1.peerRefuses(2)) {
            assertTrue(System.nanoTime() < deadline, "node 1 never saw node 2 refuse its redials");
            Thread.sleep(10);
        }

        Inbox twoAgain = new Inbox();
        NettyTransport t2Again = start(config, 2, twoAgain, quickRedial());
        for (int i = 1000; i < 2000; i++) {
            assertTrue(t1.send(2, Inbox.message(i, 32)), "send " + i + " while redialling must queue, not drop");
        }
        twoAgain.awaitCount(1, 1000, WAIT);
        assertEquals(Inbox.range(1000, 2000), twoAgain.from(1), "after the restart, in order, none lost");
        assertEquals(List.of("2 up", "2 down", "2 up"), one.events(), "node 1's view of its link to node 2");
        assertFalse(t1.peerRefuses(2), "once redialled, node 2 no longer refuses");

        // and the restarted node can talk back
        assertTrue(t2Again.send(1, Inbox.message(7, 4)));
        one.awaitCount(2, 1, WAIT);
        assertEquals(List.of(7), one.from(2));
    }

    @Test
    void badInputOnARealSocketClosesOnlyThatConnectionAndTheNodeGoesOnServing() throws Exception {
        int[] ports = TestCluster.freePorts(3);
        ClusterConfig config = TestCluster.config(ports);
        long fingerprint = ClusterFingerprint.of(config);
        Inbox[] inbox = {null, new Inbox(), new Inbox(), new Inbox()};
        NettyTransport[] node = new NettyTransport[4];
        for (int id = 1; id <= 3; id++) {
            node[id] = start(config, id, inbox[id], TransportOptions.defaults());
        }
        int[] round = {0};
        Runnable exchange = () -> exchangeRound(node, inbox, round[0]++);
        exchange.run();

        byte[] garbage = new byte[4096];
        new java.util.Random(42).nextBytes(garbage);
        Map<String, byte[]> attacks = new LinkedHashMap<>();
        attacks.put("random garbage", garbage);
        attacks.put("data before the hello", Frames.frame("no hello first"));
        attacks.put("a frame with a bad CRC after a valid hello",
                Frames.concat(Frames.hello(2, fingerprint), Frames.corrupted("bit flip")));
        attacks.put("an oversized length", Frames.header(FrameFormat.MAGIC, MAX_FRAME + 1, 0));
        attacks.put("a length of 2 GiB", Frames.header(FrameFormat.MAGIC, Integer.MAX_VALUE, 0));
        attacks.put("a hello from another cluster file", Frames.hello(2, fingerprint ^ 1));
        attacks.put("a hello from a node not in the cluster file", Frames.hello(9, fingerprint));

        long rejected = 0;
        for (Map.Entry<String, byte[]> attack : attacks.entrySet()) {
            try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), ports[0])) {
                s.getOutputStream().write(attack.getValue());
                s.getOutputStream().flush();
                assertClosedByPeer(s, attack.getKey());
            }
            rejected++;
            assertEquals(rejected, node[1].stats().framesRejected(), "framesRejected after " + attack.getKey());
            exchange.run();
        }

        // A truncated frame then a close from our side: the node just closes too, without a rejection.
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), ports[0])) {
            byte[] f = Frames.concat(Frames.hello(3, fingerprint), Frames.frame("truncated in flight"));
            s.getOutputStream().write(Arrays.copyOf(f, f.length - 5));
            s.getOutputStream().flush();
        }
        exchange.run();
        assertEquals(rejected, node[1].stats().framesRejected(), "a truncated frame then close is no rejection");

        // Two attacks said hello as node 2 or 3 before misbehaving: they must not have cut the real peers off.
        for (int peer = 2; peer <= 3; peer++) {
            assertFalse(inbox[1].events().contains(peer + " down"), "node 1 lost a connection with node " + peer
                    + " during the attacks: " + inbox[1].events());
            assertFalse(inbox[peer].events().contains("1 down"), "node " + peer + " lost a connection with node 1 "
                    + "during the attacks: " + inbox[peer].events());
        }
    }

    /** Every node sends one message with sequence {@code seq} to every other; each must arrive. */
    private static void exchangeRound(NettyTransport[] node, Inbox[] inbox, int seq) {
        try {
            for (int from = 1; from <= 3; from++) {
                for (int to = 1; to <= 3; to++) {
                    if (from != to) {
                        assertTrue(node[from].send(to, Inbox.message(seq, 16)), "send from " + from + " to " + to);
                    }
                }
            }
            for (int to = 1; to <= 3; to++) {
                for (int from = 1; from <= 3; from++) {
                    if (from != to) {
                        final int f = from;
                        inbox[to].await("message " + seq + " at node " + to + " from node " + from, WAIT,
                                in -> in.from(f).contains(seq));
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void assertClosedByPeer(Socket s, String what) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        try {
            int b = in.read();
            assertEquals(-1, b, what + ": expected the node to close the connection, it sent a byte instead");
        } catch (SocketTimeoutException e) {
            fail(what + ": expected the node to close the connection within 10 s, it stayed open");
        } catch (SocketException e) {
            // a reset is a close too: the node closed while our bytes were still unread
        }
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // the peer never reads: a send that blocked never returns
    void aPeerThatStopsReadingMakesSendsDropInsteadOfBlockingOrGrowing() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        ClusterConfig config = TestCluster.config(ports);
        TransportOptions small = TransportOptions.defaults().withOutboundQueueBytes(256 * 1024).withWriteBuffer(32 * 1024, 64 * 1024);
        try (ServerSocket stalled = new ServerSocket(ports[1], 50, InetAddress.getByName("127.0.0.1"))) {
            NettyTransport t1 = start(config, 1, new Inbox(), small);
            Socket[] accepted = new Socket[1];
            Thread acceptor = new Thread(() -> {
                try {
                    accepted[0] = stalled.accept(); // and never read from it
                } catch (IOException ignored) {
                    // the test fails on its own assertions
                }
            });
            acceptor.start();
            ByteBuffer big = ByteBuffer.allocate(MAX_FRAME);
            int attempts = 2000; // 128 MiB in total, far beyond the socket buffers and our bounds
            int refused = 0;
            for (int i = 0; i < attempts; i++) {
                if (!t1.send(2, big)) {
                    refused++;
                }
            }
            assertTrue(refused > attempts / 2, "expected most of " + attempts + " sends of 64 KiB to a stalled peer to be "
                    + "dropped, only " + refused + " were");
            assertEquals(refused, t1.stats().framesDropped(), "every refused send is counted as dropped");
            acceptor.join(10_000);
            if (accepted[0] != null) {
                accepted[0].close();
            }
        }
    }

    @Test
    void sendsToAPeerThatIsDownQueueUpToTheBoundThenDrop() {
        int[] ports = TestCluster.freePorts(2); // nothing listens on node 2's port
        ClusterConfig config = TestCluster.config(ports);
        long queueBytes = 64 * 1024;
        NettyTransport t1 = start(config, 1, new Inbox(), quickRedial().withOutboundQueueBytes(queueBytes));
        int size = 1024;
        int accepted = 0;
        for (int i = 0; i < 1000; i++) {
            if (t1.send(2, Inbox.message(i, size))) {
                accepted++;
            }
        }
        long fits = queueBytes / (size + OutboundQueue.ENTRY_OVERHEAD_BYTES);
        assertEquals(fits, accepted, "sends accepted while the peer is down: what fits in " + queueBytes + " bytes");
        assertEquals(1000 - accepted, t1.stats().framesDropped());
    }

    @Test
    void aNodeStartedWithAnotherClusterFileIsRefused() throws Exception {
        int[] ports = TestCluster.freePorts(3);
        ClusterConfig ours = TestCluster.config(Arrays.copyOf(ports, 2));
        ClusterConfig theirs = TestCluster.config(ports); // has a node 3 ours lacks
        Inbox one = new Inbox();
        Inbox strangers = new Inbox();
        NettyTransport t1 = start(ours, 1, one, TransportOptions.defaults());
        NettyTransport stranger = start(theirs, 2, strangers, quickRedial());
        assertTrue(stranger.send(1, Inbox.message(1, 4)));
        // Node 1 counts the rejection before it closes, and the close is what the stranger sees.
        strangers.await("the stranger to see node 1 close its connection", WAIT, in -> in.events().contains("1 down"));
        assertTrue(t1.stats().framesRejected() >= 1, "node 1 refused the stranger's hello");
        assertEquals(List.of(), one.from(2), "nothing from the stranger reached node 1's application");
        assertEquals(List.of(), one.events(), "no connection event for a refused node");
    }
}
