package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

import java.util.zip.CRC32C;

/**
 * Frames outbound payloads: a {@link ByteBuf} (released here) becomes one frame, a {@link FrameBatch}
 * becomes its frames back to back in one buffer. Callers keep payloads within the peer's limit; the
 * encoder only frames.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<Object> {

    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder() {
    }

    @Override
    public boolean acceptOutboundMessage(Object msg) {
        return msg instanceof ByteBuf || msg instanceof FrameBatch;
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Object msg, boolean preferDirect) {
        long size = msg instanceof FrameBatch batch
                ? batch.frameBytes()
                : FrameFormat.HEADER_BYTES + ((ByteBuf) msg).readableBytes();
        int exact = Math.toIntExact(size);
        return preferDirect ? ctx.alloc().ioBuffer(exact) : ctx.alloc().heapBuffer(exact);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Object msg, ByteBuf out) {
        if (msg instanceof FrameBatch batch) {
            for (OutboundPayload payload : batch.payloads()) {
                writeFrame(payload, out);
            }
        } else {
            writeFrame((ByteBuf) msg, out);
        }
    }

    /** Appends one frame holding the readable bytes of {@code payload} to {@code out}; consumes them. */
    public static void writeFrame(ByteBuf payload, ByteBuf out) {
        int length = payload.readableBytes();
        out.writeInt(FrameFormat.MAGIC);
        out.writeInt(length);
        out.writeInt(FrameFormat.crc32c(payload, payload.readerIndex(), length));
        out.writeBytes(payload);
    }

    /** Appends one frame holding the head then the tail of {@code payload} to {@code out}. */
    static void writeFrame(OutboundPayload payload, ByteBuf out) {
        CRC32C crc = new CRC32C();
        crc.update(payload.head(), 0, payload.head().length);
        crc.update(payload.tail(), 0, payload.tail().length);
        out.writeInt(FrameFormat.MAGIC);
        out.writeInt(payload.length());
        out.writeInt((int) crc.getValue());
        out.writeBytes(payload.head());
        out.writeBytes(payload.tail());
    }

    /** Appends one frame holding {@code payload} to {@code out}. */
    public static void writeFrame(byte[] payload, ByteBuf out) {
        CRC32C crc = new CRC32C();
        crc.update(payload, 0, payload.length);
        out.writeInt(FrameFormat.MAGIC);
        out.writeInt(payload.length);
        out.writeInt((int) crc.getValue());
        out.writeBytes(payload);
    }
}
