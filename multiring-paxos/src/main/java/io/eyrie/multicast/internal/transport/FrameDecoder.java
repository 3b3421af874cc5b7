package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Splits the inbound byte stream into frame payloads ({@link ByteBuf}s the next handler must
 * release) and verifies each one. Bad magic, a length above {@code maxPayloadBytes} or a CRC32C
 * mismatch rejects the connection through the {@link ConnectionRejector}; a partial frame waits for
 * more bytes, and a connection that closes mid-frame is simply closed.
 *
 * <p>The length is checked before waiting for the payload, so a bogus length never makes the
 * decoder buffer (let alone allocate) that many bytes.
 */
public final class FrameDecoder extends ByteToMessageDecoder {

    private final int maxPayloadBytes;
    private final ConnectionRejector rejector;

    public FrameDecoder(int maxPayloadBytes, ConnectionRejector rejector) {
        if (maxPayloadBytes < 0 || maxPayloadBytes > FrameFormat.MAX_PAYLOAD_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxPayloadBytes must be in [0, " + FrameFormat.MAX_PAYLOAD_BYTES_LIMIT
                    + "], got " + maxPayloadBytes);
        }
        this.maxPayloadBytes = maxPayloadBytes;
        this.rejector = rejector;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (ConnectionRejector.isRejected(ctx)) {
            // Bytes that arrive between the decision and the close mean nothing any more.
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < 4) {
            return;
        }
        int start = in.readerIndex();
        int magic = in.getInt(start);
        if (magic != FrameFormat.MAGIC) {
            reject(ctx, in, String.format("bad frame magic 0x%08x (expected 0x%08x)", magic, FrameFormat.MAGIC));
            return;
        }
        if (in.readableBytes() < 8) {
            return;
        }
        int length = in.getInt(start + 4);
        if (length < 0 || length > maxPayloadBytes) {
            reject(ctx, in, "frame length " + Integer.toUnsignedLong(length) + " above the maximum " + maxPayloadBytes);
            return;
        }
        if (in.readableBytes() < FrameFormat.HEADER_BYTES + length) {
            return;
        }
        int expectedCrc = in.getInt(start + 8);
        int actualCrc = FrameFormat.crc32c(in, start + FrameFormat.HEADER_BYTES, length);
        if (actualCrc != expectedCrc) {
            reject(ctx, in, String.format("CRC32C mismatch on a %d-byte frame (header 0x%08x, payload 0x%08x)",
                    length, expectedCrc, actualCrc));
            return;
        }
        in.skipBytes(FrameFormat.HEADER_BYTES);
        out.add(in.readRetainedSlice(length));
    }

    private void reject(ChannelHandlerContext ctx, ByteBuf in, String reason) {
        in.skipBytes(in.readableBytes());
        rejector.reject(ctx, reason);
    }
}
