package io.eyrie.transport.dpdk;

import io.eyrie.multicast.internal.transport.FrameFormat;

import java.nio.ByteBuffer;

/**
 * The same frame as the TCP transport ({@link FrameFormat}: magic, payload length, CRC32C of the
 * payload) around each message. Here it is checked after reassembly, so a fragment lost, mixed up
 * or corrupted anywhere on the path can never surface as a wrong message.
 */
public final class MessageFrame {

    private MessageFrame() {
    }

    public static int frameBytes(int payloadBytes) {
        return FrameFormat.HEADER_BYTES + payloadBytes;
    }

    /** Writes the frame of {@code payload}'s remaining bytes to {@code out}; payload is not moved. */
    public static void write(ByteBuffer payload, ByteBuffer out) {
        out.putInt(FrameFormat.MAGIC).putInt(payload.remaining()).putInt(FrameFormat.crc32c(payload));
        out.put(payload.duplicate());
    }

    /**
     * Checks the frame in {@code frame} (position to limit). Returns null when it is sound, else why
     * not, in words for the log.
     */
    public static String check(ByteBuffer frame, int maxPayloadBytes) {
        int s = frame.position();
        if (frame.remaining() < FrameFormat.HEADER_BYTES) {
            return "frame of " + frame.remaining() + " bytes is shorter than its header";
        }
        int magic = frame.getInt(s);
        if (magic != FrameFormat.MAGIC) {
            return String.format("bad frame magic 0x%08x (expected 0x%08x)", magic, FrameFormat.MAGIC);
        }
        int length = frame.getInt(s + 4);
        if (length < 0 || length > maxPayloadBytes) {
            return "frame length " + Integer.toUnsignedLong(length) + " above the maximum " + maxPayloadBytes;
        }
        if (length != frame.remaining() - FrameFormat.HEADER_BYTES) {
            return "frame length " + length + " but " + (frame.remaining() - FrameFormat.HEADER_BYTES)
                    + " payload bytes arrived";
        }
        int expected = frame.getInt(s + 8);
        int actual = FrameFormat.crc32c(payload(frame));
        if (expected != actual) {
            return String.format("CRC32C mismatch on a %d-byte frame (header 0x%08x, payload 0x%08x)",
                    length, expected, actual);
        }
        return null;
    }

    /** The payload of a checked frame, as a view (no copy). */
    public static ByteBuffer payload(ByteBuffer frame) {
        return frame.duplicate().position(frame.position() + FrameFormat.HEADER_BYTES).slice();
    }
}
