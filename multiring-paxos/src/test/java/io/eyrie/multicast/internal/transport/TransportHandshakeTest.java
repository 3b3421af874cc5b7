package io.eyrie.multicast.internal.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The inbound pipeline (FrameDecoder, HandshakeAcceptor) of a node with id 1 in a cluster of nodes 1, 2, 3. */
class TransportHandshakeTest {

    private static final long FINGERPRINT = 0x1234_5678_9abc_def0L;
    private static final long HELLO_TIMEOUT_MILLIS = 5000;

    private final TransportCounters counters = new TransportCounters();
    private final RecordingHandler app = new RecordingHandler();
    private final EmbeddedChannel channel = inboundPipeline();

    private EmbeddedChannel inboundPipeline() {
        ConnectionRejector rejector = new ConnectionRejector(counters, 1);
        InboundSessions sessions = new InboundSessions(1, counters, app);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(new FrameDecoder(256, rejector),
                new HandshakeAcceptor(1, FINGERPRINT, Set.of(1, 2, 3)::contains, HELLO_TIMEOUT_MILLIS, rejector, sessions));
        ch.pipeline().fireChannelActive();
        return ch;
    }

    private void feed(byte[]... parts) {
        channel.writeInbound(Unpooled.wrappedBuffer(Frames.concat(parts)));
    }

    private void assertRefused(String what) {
        assertFalse(channel.isOpen(), what + ": expected the connection closed, it is open");
        assertEquals(1, counters.snapshot().framesRejected(), what + ": framesRejected");
        assertEquals(List.of(), app.messages, what + ": nothing may reach the application");
        assertEquals(List.of(), app.events, what + ": no connection event for a refused peer");
    }

    @Test
    void messagesAfterAValidHelloReachTheApplicationWithTheSendersId() {
        feed(Frames.hello(2, FINGERPRINT), Frames.frame("a"), Frames.frame("b"));
        feed(Frames.frame("c"));
        assertEquals(List.of("2:a", "2:b", "2:c"), app.messages);
        assertEquals(List.of("2 up"), app.events);
        assertEquals(3, counters.snapshot().framesReceived());
        channel.close();
        assertEquals(List.of("2 up", "2 down"), app.events);
    }

    @Test
    void dataBeforeTheHelloIsRefused() {
        feed(Frames.frame("sneaky"), Frames.hello(2, FINGERPRINT));
        assertRefused("a message before the hello");
    }

    @Test
    void helloWithAnotherClustersFingerprintIsRefused() {
        feed(Frames.hello(2, FINGERPRINT + 1));
        assertRefused("a hello with another fingerprint");
    }

    @Test
    void helloFromANodeOutsideTheClusterFileIsRefused() {
        feed(Frames.hello(4, FINGERPRINT));
        assertRefused("a hello from node 4");
    }

    @Test
    void helloClaimingOurOwnIdIsRefused() {
        feed(Frames.hello(1, FINGERPRINT));
        assertRefused("a hello from node 1 to node 1");
    }

    @Test
    void helloOfAnotherVersionIsRefused() {
        byte[] payload = Frames.bytes(new Hello(2, FINGERPRINT).encode(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT));
        payload[4] = 99;
        feed(Frames.frame(payload));
        assertRefused("a hello of version 99");
    }

    @Test
    void aSilentConnectionIsClosedAfterTheHelloTimeout() {
        channel.advanceTimeBy(HELLO_TIMEOUT_MILLIS - 1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(channel.isOpen(), "still open just before the timeout");
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertRefused("no hello within the timeout");
    }

    @Test
    void aHelloCancelsTheTimeout() {
        feed(Frames.hello(3, FINGERPRINT));
        channel.advanceTimeBy(2 * HELLO_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertTrue(channel.isOpen(), "a connection that said hello stays open");
        feed(Frames.frame("late"));
        assertEquals(List.of("3:late"), app.messages);
    }

    @Test
    void helloEncodingRoundTrips() throws Exception {
        Hello hello = new Hello(77, -5L);
        io.netty.buffer.ByteBuf b = hello.encode(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        assertEquals(Hello.PAYLOAD_BYTES, b.readableBytes());
        assertEquals(hello, Hello.decode(b));
        b.release();
    }
}
