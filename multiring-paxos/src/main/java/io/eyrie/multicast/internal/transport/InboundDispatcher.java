package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The last inbound handler of a connection whose peer said hello: every frame is one message from it. */
final class InboundDispatcher extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(InboundDispatcher.class);

    private final int peerId;
    private final InboundSessions sessions;

    InboundDispatcher(int peerId, InboundSessions sessions) {
        this.peerId = peerId;
        this.sessions = sessions;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        sessions.deliver(peerId, (ByteBuf) msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        sessions.closed(ctx.channel(), peerId);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Typically a reset by the peer; the peer dials again when it has something to send.
        LOG.debug("inbound connection from peer={} at {} failed: {}", peerId, ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
