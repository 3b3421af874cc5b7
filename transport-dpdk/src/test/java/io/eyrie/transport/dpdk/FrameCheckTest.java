package io.eyrie.transport.dpdk;

import io.eyrie.multicast.internal.transport.FrameFormat;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TCP transport's frame checks (magic, length, CRC32C), applied to reassembled messages. */
class FrameCheckTest {

    static ByteBuffer frameOf(String text) {
        byte[] p = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer f = ByteBuffer.allocate(MessageFrame.frameBytes(p.length));
        MessageFrame.write(ByteBuffer.wrap(p), f);
        return f.flip();
    }

    @Test
    void anIntactFrameIsAcceptedAndItsPayloadIsAViewOfTheSameBytes() {
        ByteBuffer f = frameOf("hello");
        assertNull(MessageFrame.check(f, 100));
        ByteBuffer p = MessageFrame.payload(f);
        assertEquals("hello", StandardCharsets.UTF_8.decode(p).toString());
        assertEquals(FrameFormat.MAGIC, f.getInt(0), "the TCP transport's magic");
    }

    @Test
    void everySingleBitFlipIsRejected() {
        ByteBuffer good = frameOf("a message whose every bit matters");
        for (int bit = 0; bit < good.limit() * 8; bit++) {
            ByteBuffer f = ByteBuffer.allocate(good.limit()).put(good.duplicate()).flip();
            f.put(bit / 8, (byte) (f.get(bit / 8) ^ (1 << (bit % 8))));
            assertTrue(MessageFrame.check(f, 1000) != null, "flipping bit " + bit + " should be detected");
        }
    }

    @Test
    void theReasonNamesWhatIsWrong() {
        ByteBuffer f = frameOf("x".repeat(50));
        assertTrue(MessageFrame.check(f, 10).contains("above the maximum 10"), MessageFrame.check(f, 10));
        ByteBuffer truncated = f.duplicate().limit(f.limit() - 1);
        assertTrue(MessageFrame.check(truncated, 100).contains("payload bytes arrived"), MessageFrame.check(truncated, 100));
        ByteBuffer badMagic = ByteBuffer.allocate(f.limit()).put(f.duplicate()).flip().putInt(0, 0x12345678);
        assertTrue(MessageFrame.check(badMagic, 100).contains("bad frame magic"), MessageFrame.check(badMagic, 100));
    }
}
