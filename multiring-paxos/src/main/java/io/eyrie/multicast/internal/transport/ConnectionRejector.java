package io.eyrie.multicast.internal.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that sent bad input: counts it once in framesRejected and logs one WARN line
 * naming the remote address and the reason. A second complaint about the same connection (bytes
 * that were already in flight) is ignored, so one bad peer yields one line, not a flood.
 */
public final class ConnectionRejector {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionRejector.class);
    private static final AttributeKey<Boolean> REJECTED = AttributeKey.valueOf(ConnectionRejector.class, "rejected");

    private final TransportCounters counters;
    private final int localNodeId;

    public ConnectionRejector(TransportCounters counters, int localNodeId) {
        this.counters = counters;
        this.localNodeId = localNodeId;
    }

    /** Rejects the connection of {@code ctx}; later calls for the same channel do nothing. */
    public void reject(ChannelHandlerContext ctx, String reason) {
        if (ctx.channel().attr(REJECTED).setIfAbsent(Boolean.TRUE) != null) {
            return;
        }
        counters.frameRejected();
        LOG.warn("node={} closing connection from {}: {}", localNodeId, ctx.channel().remoteAddress(), reason);
        ctx.close();
    }

    /** Whether the connection of {@code ctx} was rejected; its further input is to be discarded. */
    public static boolean isRejected(ChannelHandlerContext ctx) {
        return ctx.channel().hasAttr(REJECTED);
    }
}
