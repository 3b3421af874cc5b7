package io.eyrie.transport.dpdk;

import java.nio.ByteBuffer;

/**
 * The header in front of every UDP payload: which message of which sender this piece belongs to
 * and where it goes. The cluster fingerprint keeps nodes started with another cluster file out,
 * as the TCP handshake does.
 *
 * <pre>
 * magic u32 "EYRD" | fingerprint u64 | from u32 | message id u64 | index u16 | count u16 |
 * offset u32 | frame length u32 | fragment bytes
 * </pre>
 */
public record Fragment(long fingerprint, int from, long messageId, int index, int count, int offset,
                       int frameLength) {

    /** "EYRD": a datagram of the Eyrie DPDK transport. */
    public static final int MAGIC = 0x45595244;
    public static final int HEADER_BYTES = 36;
    /** Bounds the fragments of one message, so a header cannot make reassembly track huge bitmaps. */
    public static final int MAX_COUNT = 0xffff;

    public void write(ByteBuffer out) {
        out.putInt(MAGIC).putLong(fingerprint).putInt(from).putLong(messageId).putShort((short) index)
                .putShort((short) count).putInt(offset).putInt(frameLength);
    }

    /** Reads the header at {@code at}; null when the magic is wrong or the fields contradict each other. */
    public static Fragment read(ByteBuffer b, int at, int fragmentBytes) {
        if (fragmentBytes < 0 || b.getInt(at) != MAGIC) {
            return null;
        }
        Fragment f = new Fragment(b.getLong(at + 4), b.getInt(at + 12), b.getLong(at + 16), b.getShort(at + 24) & 0xffff,
                b.getShort(at + 26) & 0xffff, b.getInt(at + 28), b.getInt(at + 32));
        if (f.count == 0 || f.index >= f.count || f.offset < 0 || f.frameLength < 0
                || (long) f.offset + fragmentBytes > f.frameLength) {
            return null;
        }
        return f;
    }
}
