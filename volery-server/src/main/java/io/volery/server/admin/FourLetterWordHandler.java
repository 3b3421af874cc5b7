package io.volery.server.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The first handler of a client connection. ZooKeeper reads a connection's first four bytes as a
 * frame length; when they spell a four-letter word it answers in text and closes. Anything else is
 * a ZooKeeper client: this handler steps aside and the bytes go on to the frame decoder.
 */
public final class FourLetterWordHandler extends ByteToMessageDecoder {
    private final FourLetterWords words;
    private final Executor executor;

    /**
     * @param executor where answers are computed: they may wait for the replica, never on an I/O thread
     */
    public FourLetterWordHandler(FourLetterWords words, Executor executor) {
        this.words = words;
        this.executor = executor;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < 4) {
            return;
        }
        String word = in.toString(in.readerIndex(), 4, StandardCharsets.US_ASCII);
        if (!FourLetterWords.known(word)) {
            ctx.pipeline().remove(this);
            return;
        }
        in.skipBytes(in.readableBytes());
        ctx.channel().config().setAutoRead(false);
        CompletableFuture.supplyAsync(() -> words.answer(word), executor)
                .exceptionally(e -> "error: " + e.getMessage() + "\n")
                .thenAccept(text -> ctx.writeAndFlush(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8))
                        .addListener(ChannelFutureListener.CLOSE));
    }
}
