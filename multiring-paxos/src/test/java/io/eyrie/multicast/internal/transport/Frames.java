package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;

/** Builds wire bytes for tests, including deliberately broken frames. */
final class Frames {

    private Frames() {
    }

    static byte[] frame(byte[] payload) {
        ByteBuf out = Unpooled.buffer();
        FrameEncoder.writeFrame(Unpooled.wrappedBuffer(payload), out);
        return bytes(out);
    }

    static byte[] frame(String payload) {
        return frame(payload.getBytes(StandardCharsets.UTF_8));
    }

    /** A frame whose header claims {@code length} bytes, with no payload following. */
    static byte[] header(int magic, int length, int crc) {
        ByteBuf out = Unpooled.buffer(FrameFormat.HEADER_BYTES);
        out.writeInt(magic).writeInt(length).writeInt(crc);
        return bytes(out);
    }

    /** A well-formed frame of {@code payload} whose last payload byte was flipped after the CRC was taken. */
    static byte[] corrupted(String payload) {
        byte[] f = frame(payload);
        f[f.length - 1] ^= 0x01;
        return f;
    }

    static byte[] hello(int nodeId, long fingerprint) {
        return frame(bytes(new Hello(nodeId, fingerprint).encode(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)));
    }

    static byte[] concat(byte[]... parts) {
        ByteBuf out = Unpooled.buffer();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return bytes(out);
    }

    static byte[] bytes(ByteBuf buf) {
        byte[] b = new byte[buf.readableBytes()];
        buf.readBytes(b);
        buf.release();
        return b;
    }

    static String text(ByteBuf buf) {
        return new String(bytes(buf), StandardCharsets.UTF_8);
    }
}
