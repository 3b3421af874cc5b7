package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Wraps each outbound payload ({@link ByteBuf}, released here) in a frame header. The caller keeps
 * payloads within the peer's limit; the encoder only frames.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<ByteBuf> {

    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder() {
        super(ByteBuf.class);
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        int size = FrameFormat.HEADER_BYTES + msg.readableBytes();
        return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf payload, ByteBuf out) {
        writeFrame(payload, out);
    }

    /** Appends one frame holding the readable bytes of {@code payload} to {@code out}; consumes them. */
    public static void writeFrame(ByteBuf payload, ByteBuf out) {
        int length = payload.readableBytes();
        out.writeInt(FrameFormat.MAGIC);
        out.writeInt(length);
        out.writeInt(FrameFormat.crc32c(payload, payload.readerIndex(), length));
        out.writeBytes(payload);
    }
}
