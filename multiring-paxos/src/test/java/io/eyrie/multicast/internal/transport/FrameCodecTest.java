package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FrameEncoder and FrameDecoder on an EmbeddedChannel: what goes in framed comes out whole, and bad input closes. */
class FrameCodecTest {

    private static final int MAX = 1024;

    private final TransportCounters counters = new TransportCounters();
    private final EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(MAX, new ConnectionRejector(counters, 9)));

    private void feed(byte[] bytes) {
        decoder.writeInbound(Unpooled.wrappedBuffer(bytes));
    }

    private List<String> decoded() {
        List<String> out = new ArrayList<>();
        ByteBuf b;
        while ((b = decoder.readInbound()) != null) {
            out.add(Frames.text(b));
        }
        return out;
    }

    private void assertRejected(String what) {
        assertFalse(decoder.isOpen(), what + ": expected the connection to be closed, but it is open");
        assertEquals(1, counters.snapshot().framesRejected(), what + ": framesRejected");
        assertEquals(List.of(), decoded(), what + ": no payload may pass a rejected frame");
    }

    @Test
    void encoderOutputDecodesToTheSamePayloads() {
        EmbeddedChannel encoder = new EmbeddedChannel(FrameEncoder.INSTANCE);
        byte[] big = new byte[MAX];
        new Random(7).nextBytes(big);
        List<byte[]> payloads = List.of(new byte[0], "a".getBytes(StandardCharsets.UTF_8), big);
        for (byte[] p : payloads) {
            assertTrue(encoder.writeOutbound(Unpooled.wrappedBuffer(p)));
        }
        ByteBuf wire;
        while ((wire = encoder.readOutbound()) != null) {
            decoder.writeInbound(wire);
        }
        for (byte[] p : payloads) {
            ByteBuf got = decoder.readInbound();
            assertArrayEquals(p, Frames.bytes(got), "payload of " + p.length + " bytes after a round trip");
        }
        assertNull(decoder.readInbound(), "no extra frames");
        assertTrue(decoder.isOpen());
        assertEquals(0, counters.snapshot().framesRejected());
    }

    @Test
    void aBatchEncodesAsItsFramesBackToBackInOneBuffer() {
        EmbeddedChannel encoder = new EmbeddedChannel(FrameEncoder.INSTANCE);
        FrameBatch batch = new FrameBatch();
        for (String p : List.of("x", "", "yz")) {
            batch.add(p.getBytes(StandardCharsets.UTF_8));
        }
        assertTrue(encoder.writeOutbound(batch));
        ByteBuf wire = encoder.readOutbound();
        assertNull(encoder.readOutbound(), "one buffer for the whole batch");
        byte[] expected = Frames.concat(Frames.frame("x"), Frames.frame(""), Frames.frame("yz"));
        assertEquals(batch.frameBytes(), expected.length, "frameBytes() counts payloads and headers");
        assertArrayEquals(expected, Frames.bytes(wire));
    }

    @Test
    void aPayloadQueuedInTwoPartsEncodesAsTheSameFrameAsWhole() {
        byte[] head = "accept header ".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "and the batch it carries".getBytes(StandardCharsets.UTF_8);
        EmbeddedChannel encoder = new EmbeddedChannel(FrameEncoder.INSTANCE);
        FrameBatch batch = new FrameBatch();
        batch.add(new OutboundPayload(head, tail));
        batch.add(new OutboundPayload(tail, new byte[0]));
        assertTrue(encoder.writeOutbound(batch));
        byte[] expected = Frames.concat(Frames.frame("accept header and the batch it carries"),
                Frames.frame("and the batch it carries"));
        assertEquals(expected.length, batch.frameBytes(), "frameBytes() counts both parts");
        assertArrayEquals(expected, Frames.bytes(encoder.readOutbound()));
    }

    @Test
    void encodedFrameHasMagicLengthAndCrc32cHeader() {
        byte[] f = Frames.frame("hello");
        ByteBuf b = Unpooled.wrappedBuffer(f);
        assertEquals(FrameFormat.MAGIC, b.readInt(), "magic");
        assertEquals(5, b.readInt(), "length");
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update("hello".getBytes(StandardCharsets.UTF_8));
        assertEquals((int) crc.getValue(), b.readInt(), "CRC32C of the payload");
        assertEquals(FrameFormat.HEADER_BYTES + 5, f.length);
    }

    @Test
    void framesSplitIntoSingleBytesAreReassembled() {
        byte[] wire = Frames.concat(Frames.frame("first"), Frames.frame(""), Frames.frame("third"));
        for (byte b : wire) {
            feed(new byte[] {b});
        }
        assertEquals(List.of("first", "", "third"), decoded());
        assertTrue(decoder.isOpen());
    }

    @Test
    void coalescedFramesInOneReadAreAllDelivered() {
        List<String> sent = new ArrayList<>();
        byte[][] frames = new byte[200][];
        for (int i = 0; i < frames.length; i++) {
            sent.add("m" + i);
            frames[i] = Frames.frame("m" + i);
        }
        feed(Frames.concat(frames));
        assertEquals(sent, decoded());
    }

    @Test
    void truncatedFrameWaitsForTheRest() {
        byte[] f = Frames.frame("patience");
        feed(Arrays.copyOf(f, f.length - 3));
        assertEquals(List.of(), decoded(), "nothing before the frame is complete");
        assertTrue(decoder.isOpen(), "a partial frame is not an error");
        feed(Arrays.copyOfRange(f, f.length - 3, f.length));
        assertEquals(List.of("patience"), decoded());
        assertEquals(0, counters.snapshot().framesRejected());
    }

    @Test
    void connectionClosingMidFrameIsJustClosed() {
        byte[] f = Frames.frame("cut short");
        feed(Arrays.copyOf(f, 7));
        decoder.close();
        assertEquals(List.of(), decoded());
        assertEquals(0, counters.snapshot().framesRejected(), "a close mid-frame is not a rejection");
    }

    @Test
    void badMagicIsRejected() {
        feed(Frames.concat(Frames.header(0x12345678, 0, 0)));
        assertRejected("bad magic");
    }

    @Test
    void badMagicIsRejectedAsSoonAsFourBytesArrive() {
        feed(new byte[] {'G', 'E', 'T', ' '});
        assertRejected("an HTTP request");
    }

    @Test
    void lengthAboveMaximumIsRejectedWithoutWaitingForThePayload() {
        feed(Frames.header(FrameFormat.MAGIC, MAX + 1, 0));
        assertRejected("length max+1");
    }

    @Test
    void hugeAndNegativeLengthsAreRejected() {
        feed(Arrays.copyOf(Frames.header(FrameFormat.MAGIC, Integer.MAX_VALUE, 0), 8));
        assertRejected("length 2^31-1 with only 8 header bytes");
        TransportCounters c2 = new TransportCounters();
        EmbeddedChannel d2 = new EmbeddedChannel(new FrameDecoder(MAX, new ConnectionRejector(c2, 9)));
        d2.writeInbound(Unpooled.wrappedBuffer(Frames.header(FrameFormat.MAGIC, -1, 0)));
        assertFalse(d2.isOpen(), "length 0xffffffff: expected closed");
        assertEquals(1, c2.snapshot().framesRejected());
    }

    @Test
    void lengthEqualToMaximumIsAccepted() {
        byte[] p = new byte[MAX];
        feed(Frames.frame(p));
        ByteBuf got = decoder.readInbound();
        assertEquals(MAX, got.readableBytes());
        got.release();
        assertTrue(decoder.isOpen());
    }

    @Test
    void crcMismatchIsRejected() {
        feed(Frames.corrupted("flipped bit"));
        assertRejected("corrupted payload");
    }

    @Test
    void framesAfterABadOneInTheSameReadAreNotDelivered() {
        feed(Frames.concat(Frames.frame("good"), Frames.corrupted("bad"), Frames.frame("after")));
        assertFalse(decoder.isOpen());
        assertEquals(1, counters.snapshot().framesRejected());
        assertEquals(List.of("good"), decoded(), "only the frame before the corrupted one");
    }

    @Test
    void aRejectedConnectionCountsOnce() {
        ConnectionRejector rejector = new ConnectionRejector(counters, 9);
        io.netty.channel.ChannelHandlerContext ctx = decoder.pipeline().firstContext();
        rejector.reject(ctx, "first complaint");
        rejector.reject(ctx, "second complaint about bytes already in flight");
        assertEquals(1, counters.snapshot().framesRejected());
        assertFalse(decoder.isOpen());
    }
}
