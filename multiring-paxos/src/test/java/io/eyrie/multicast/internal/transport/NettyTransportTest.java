package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Transport.TransportStats;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real NettyTransports on 127.0.0.1 with no faults: what is sent arrives, in order, and close() cleans up. */
class NettyTransportTest {

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

    @ParameterizedTest
    @EnumSource(SocketFlavor.class)
    void threeNodesExchangeThousandsOfMessagesAllInOrder(SocketFlavor flavor) throws Exception {
        assumeTrue(flavor == SocketFlavor.NIO || Epoll.isAvailable(), "epoll not available here");
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(3));
        TransportOptions options = TransportOptions.defaults().withPreferNative(flavor == SocketFlavor.EPOLL);
        Inbox[] inbox = {null, new Inbox(), new Inbox(), new Inbox()};
        NettyTransport[] node = new NettyTransport[4];
        for (int id = 1; id <= 3; id++) {
            node[id] = start(config, id, inbox[id], options);
            assertEquals(flavor, node[id].flavor());
        }
        int perPeer = 5000;
        // Interleaved, as a protocol would: each message to each peer in turn, sizes varying.
        for (int seq = 0; seq < perPeer; seq++) {
            for (int from = 1; from <= 3; from++) {
                for (int to = 1; to <= 3; to++) {
                    if (to != from) {
                        assertTrue(node[from].send(to, Inbox.message(seq, 4 + seq % 300)),
                                "send " + seq + " from " + from + " to " + to + " was dropped");
                    }
                }
            }
        }
        List<Integer> expected = Inbox.range(0, perPeer);
        for (int to = 1; to <= 3; to++) {
            for (int from = 1; from <= 3; from++) {
                if (to != from) {
                    inbox[to].awaitCount(from, perPeer, WAIT);
                    assertEquals(expected, inbox[to].from(from), "messages at node " + to + " from node " + from);
                }
            }
        }
        for (int id = 1; id <= 3; id++) {
            TransportStats s = node[id].stats();
            assertEquals(new TransportStats(2L * perPeer, 2L * perPeer, 0, 0), s, "stats of node " + id);
        }
    }

    @Test
    void aBurstOfSendsIsWrittenWithOneFlush() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        java.util.concurrent.CountDownLatch loopHeld = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        int holdMarker = -1;
        Inbox one = new Inbox() {
            @Override
            public void onMessage(int fromNodeId, ByteBuffer message) {
                if (message.getInt(message.position()) == holdMarker) {
                    // Holds node 1's only event loop, so the burst below piles up behind it.
                    loopHeld.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                super.onMessage(fromNodeId, message);
            }
        };
        Inbox two = new Inbox();
        NettyTransport t1 = start(config, 1, one, new TransportOptions(1, 8L << 20, 512 << 10, 2 << 20, 20, 1000,
                2000, 5000, true));
        start(config, 2, two, TransportOptions.defaults());
        assertTrue(t1.send(2, Inbox.message(0, 8)));
        two.awaitCount(1, 1, WAIT);

        assertTrue(t1.send(1, Inbox.message(holdMarker, 8)));
        assertTrue(loopHeld.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS), "the loop was not held");
        long flushesBefore = t1.counters().flushes();
        int burst = 1000;
        for (int i = 1; i <= burst; i++) {
            assertTrue(t1.send(2, Inbox.message(i, 8)));
        }
        release.countDown();
        two.awaitCount(1, burst + 1, WAIT);
        assertEquals(Inbox.range(0, burst + 1), two.from(1));
        assertEquals(1, t1.counters().flushes() - flushesBefore, "flushes for a burst of " + burst
                + " messages queued in one event loop turn");
    }

    @Test
    void connectionEventsReportOutboundAndInboundConnections() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        Inbox one = new Inbox();
        Inbox two = new Inbox();
        NettyTransport t1 = start(config, 1, one, TransportOptions.defaults());
        start(config, 2, two, TransportOptions.defaults());
        assertTrue(t1.send(2, Inbox.message(1, 4)));
        two.awaitCount(1, 1, WAIT);
        one.await("node 1's outbound connection to 2 up", WAIT, in -> in.events().contains("2 up"));
        assertEquals(List.of("1 up"), two.events(), "node 2 saw node 1's inbound connection come up");
    }

    @Test
    void aMessageToOneselfIsDeliveredOnATransportThread() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        Inbox inbox = new Inbox();
        NettyTransport t = start(config, 1, inbox, TransportOptions.defaults());
        for (int i = 0; i < 10; i++) {
            assertTrue(t.send(1, Inbox.message(i, 8)));
        }
        inbox.awaitCount(1, 10, WAIT);
        assertEquals(Inbox.range(0, 10), inbox.from(1));
        String caller = Thread.currentThread().getName();
        assertFalse(inbox.threads().contains(caller), "delivered on " + inbox.threads() + ", must not be the caller " + caller);
    }

    @Test
    void unknownNodesAndOversizedMessagesAreDroppedAndCounted() {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        NettyTransport t = start(config, 1, new Inbox(), TransportOptions.defaults());
        assertFalse(t.send(7, Inbox.message(0, 4)), "node 7 is not in the cluster file");
        assertFalse(t.send(-1, Inbox.message(0, 4)), "node -1");
        assertFalse(t.send(2, ByteBuffer.allocate(MAX_FRAME + 1)), "a message above maxFrameBytes");
        assertEquals(3, t.stats().framesDropped());
    }

    @Test
    void sendLeavesTheCallersBufferUntouched() {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        NettyTransport t = start(config, 1, new Inbox(), TransportOptions.defaults());
        ByteBuffer b = ByteBuffer.allocate(16);
        b.position(3).limit(11);
        t.send(2, b);
        assertEquals(3, b.position(), "position");
        assertEquals(11, b.limit(), "limit");
    }

    @Test
    void closeReleasesThePortAndThreadsAndLaterSendsAreDropped() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        ClusterConfig config = TestCluster.config(ports);
        NettyTransport t = start(config, 1, new Inbox(), TransportOptions.defaults());
        assertEquals(ports[0], t.boundPort());
        t.send(2, Inbox.message(0, 4)); // a dial in progress to a peer that is not there
        t.close(); // how long it takes is not asserted here: no timed assertions in tests
        try (ServerSocket again = new ServerSocket(ports[0], 50, InetAddress.getByName("127.0.0.1"))) {
            assertEquals(ports[0], again.getLocalPort());
        }
        // close() waited for the event loops to terminate; their threads are at most returning from run().
        List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
                .filter(th -> th.getName().startsWith("eyrie-transport-1-")).toList();
        for (Thread th : loops) {
            th.join(2000);
        }
        List<String> left = loops.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        assertEquals(List.of(), left, "transport threads still alive 2 s after close()");
        assertFalse(t.send(2, Inbox.message(1, 4)), "send after close");
        t.close(); // idempotent
    }

    @Test
    void startingOnAPortInUseFailsNamingTheAddress() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        try (ServerSocket squatter = new ServerSocket(ports[0], 50, InetAddress.getByName("127.0.0.1"))) {
            assertEquals(ports[0], squatter.getLocalPort());
            NettyTransport t = new NettyTransport(TestCluster.config(ports), 1, MAX_FRAME, TransportOptions.defaults());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.start(new Inbox()));
            assertTrue(e.getMessage().contains("127.0.0.1:" + ports[0]), "message names the address: " + e.getMessage());
            t.close();
        }
    }

    @Test
    void constructorRejectsANodeNotInTheClusterFile() {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new NettyTransport(config, 5, MAX_FRAME));
        assertTrue(e.getMessage().contains("no node 5"), e.getMessage());
    }
}
