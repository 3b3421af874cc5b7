package io.volery.server.frontend;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A front end's admission of client connections under its {@link ConnectionLimits}: {@code maxClientCnxns}
 * connections at most from one IP address and {@code maxCnxns} in all (0: no limit). A connection past
 * either is closed as soon as it is accepted, before anything is read from it or written to it, as
 * ZooKeeper's server factories do; the
 * client sees the connection lost and tries again (another server, or this one later). Every connection
 * counts, four-letter words included. Unlike ZooKeeper's check-then-add, the admission is atomic, so
 * concurrent accepts cannot overshoot a limit.
 */
public final class ConnectionGate {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGate.class);

    private static final AttributeKey<InetAddress> ADMITTED = AttributeKey.valueOf("volery.admittedFrom");
    private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf("volery.refusedByLimits");

    private final ConnectionLimits limits;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();
    private int open;
    private final AtomicLong rejected = new AtomicLong();
    private final ChannelHandler handler = new Gate();

    ConnectionGate(ConnectionLimits limits) {
        this.limits = java.util.Objects.requireNonNull(limits, "limits");
    }

    /** The limits this gate applies. */
    public ConnectionLimits limits() {
        return limits;
    }

    /** Connections closed at once because of a limit. */
    public long rejected() {
        return rejected.get();
    }

    /** The handler to put first in every connection's pipeline. */
    ChannelHandler handler() {
        return handler;
    }

    /** Counts a new connection from {@code address} in, unless that breaks a limit (then nothing changes). */
    synchronized boolean admit(InetAddress address) {
        int from = byAddress.getOrDefault(address, 0);
        if (limits.total() > 0 && open >= limits.total()) {
            rejected.incrementAndGet();
            log.warn("Too many connections {} - max is {}", open, limits.total());
            return false;
        }
        if (limits.perAddress() > 0 && from >= limits.perAddress()) {
            rejected.incrementAndGet();
            log.warn("Too many connections from {} - max is {}", address, limits.perAddress());
            return false;
        }
        byAddress.put(address, from + 1);
        open++;
        return true;
    }

    synchronized void release(InetAddress address) {
        byAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        open--;
    }

    @ChannelHandler.Sharable
    private final class Gate extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            InetAddress from = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
            if (from != null) {
                if (!admit(from)) {
                    ctx.channel().attr(REFUSED).set(Boolean.TRUE);
                    ctx.close();
                    return; // the handlers behind never see it: no session, no reply
                }
                ctx.channel().attr(ADMITTED).set(from);
            }
            super.channelActive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (ctx.channel().hasAttr(REFUSED)) {
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            super.channelRead(ctx, msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (ctx.channel().hasAttr(REFUSED)) {
                return; // the handlers behind never saw it active
            }
            InetAddress from = ctx.channel().attr(ADMITTED).getAndSet(null);
            if (from != null) {
                release(from);
            }
            super.channelInactive(ctx);
        }
    }
}
