package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;

import java.util.zip.CRC32C;

/** The frame layout shared by {@link FrameEncoder} and {@link FrameDecoder}. */
public final class FrameFormat {

    /** "EYRF" in ASCII, so a frame boundary is easy to spot in a packet capture. */
    public static final int MAGIC = 0x45595246;

    /** magic, payload length, CRC32C of the payload: four bytes each. */
    public static final int HEADER_BYTES = 12;

    /** The largest payload length a frame header can describe without overflowing an int frame size. */
    public static final int MAX_PAYLOAD_BYTES_LIMIT = Integer.MAX_VALUE - HEADER_BYTES;

    private FrameFormat() {
    }

    /** CRC32C of {@code length} bytes of {@code buf} from {@code index}, without moving its indices. */
    public static int crc32c(ByteBuf buf, int index, int length) {
        CRC32C crc = new CRC32C();
        if (buf.nioBufferCount() == 1) {
            crc.update(buf.nioBuffer(index, length));
        } else {
            // A composite buffer: feed each component; nioBuffers() avoids a merging copy.
            for (java.nio.ByteBuffer part : buf.nioBuffers(index, length)) {
                crc.update(part);
            }
        }
        return (int) crc.getValue();
    }

    /** CRC32C of the remaining bytes of {@code buf}, without moving its position. */
    public static int crc32c(java.nio.ByteBuffer buf) {
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate());
        return (int) crc.getValue();
    }
}
