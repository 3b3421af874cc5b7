package io.volery.server.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Splits the client byte stream into frames: a 4-byte big-endian length, then that many bytes.
 * A negative length or one above {@code jute.maxbuffer} closes the connection without an answer,
 * as ZooKeeper does ("Len error"); the client then reconnects and keeps its session.
 */
public final class ZkFrameDecoder extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(ZkFrameDecoder.class);

    private final int maxFrameBytes;

    public ZkFrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (length < 0 || length > maxFrameBytes) {
                log.warn("closing connection from {}: frame length {} outside [0, jute.maxbuffer={}]",
                        ctx.channel().remoteAddress(), length, maxFrameBytes);
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            if (in.readableBytes() < 4 + length) {
                return;
            }
            in.skipBytes(4);
            out.add(in.readRetainedSlice(length));
        }
    }
}
