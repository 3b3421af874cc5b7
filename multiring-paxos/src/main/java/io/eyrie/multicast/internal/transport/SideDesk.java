package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.SideChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Answers side requests (ADR 063) that reached this node's ring port: one at a time, on a thread of its own,
 * with what the node's {@link SideChannel.Server} gives. Without TLS it answers only the cluster's hosts. At
 * most {@link #MAX_WAITING} requests wait for their turn; more are refused as busy, so that peers asking
 * faster than it answers cannot make it hold their connections and requests without bound, and a request
 * whose asker hung up before its turn is not answered.
 */
public final class SideDesk implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SideDesk.class);
    /** Requests that may wait behind the one being answered. */
    public static final int MAX_WAITING = 8;

    private final int nodeId;
    private final boolean tls;
    private volatile Set<InetAddress> clusterHosts;
    /** Resolves the cluster file's host names again; null: the set above stays as given. */
    private volatile java.util.function.Supplier<Set<InetAddress>> resolver;
    private volatile long resolvedAtNanos = System.nanoTime();
    /** A request from elsewhere resolves the names again at most this often. */
    static final long RESOLVE_AGAIN_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private volatile SideChannel.Server server;
    private ExecutorService executor;
    private boolean closed;

    /**
     * @param tls          whether connections are mutual TLS (then the certificate was the guard)
     * @param clusterHosts the hosts whose connections are answered without TLS
     */
    public SideDesk(int nodeId, boolean tls, Set<InetAddress> clusterHosts) {
        this.nodeId = nodeId;
        this.tls = tls;
        this.clusterHosts = Set.copyOf(clusterHosts);
    }

    /** The hosts answered without TLS from now on (the cluster file was reloaded, ADR 102). */
    public void clusterHosts(Set<InetAddress> hosts) {
        this.clusterHosts = Set.copyOf(hosts);
        this.resolvedAtNanos = System.nanoTime();
    }

    /**
     * How to resolve the cluster's host names again: a request from an address that is not among them resolves
     * them anew first (at most once a second), since a name may have moved to another address since (a machine or a
     * pod replaced behind the same name, ADR 102).
     */
    public void resolveWith(java.util.function.Supplier<Set<InetAddress>> resolver) {
        this.resolver = resolver;
    }

    /** Whether {@code from} is a cluster host, resolving the names again when it is not and they are a second old. */
    private boolean isClusterHost(InetAddress from) {
        if (clusterHosts.contains(from)) {
            return true;
        }
        java.util.function.Supplier<Set<InetAddress>> r = resolver;
        if (r == null || System.nanoTime() - resolvedAtNanos < RESOLVE_AGAIN_NANOS) {
            return false;
        }
        clusterHosts(r.get());
        return clusterHosts.contains(from);
    }

    public void serveWith(SideChannel.Server server) {
        this.server = server;
    }

    /** Requests answered (with bytes or with "none"). */
    public long served() {
        return served.get();
    }

    /** Requests refused (not a cluster host, no server, the server failed, busy) or given up by their askers. */
    public long refused() {
        return refused.get();
    }

    /** Requests waiting behind the one being answered. */
    public synchronized int waiting() {
        return executor instanceof java.util.concurrent.ThreadPoolExecutor t ? t.getQueue().size() : 0;
    }

    /** Answers {@code request}, which came on {@code ctx}'s connection and passed the hello's checks, then closes it. */
    void answer(ChannelHandlerContext ctx, SideRequest request) {
        InetAddress from = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
        boolean checkHost = !tls && !clusterHosts.contains(from); // on the side thread: resolving may block
        SideChannel.Server s = server;
        if (s == null) {
            refuse(ctx, request, "node " + nodeId + " serves no side requests");
            return;
        }
        try {
            executor().execute(() -> {
                if (!ctx.channel().isActive()) {
                    refused.incrementAndGet(); // the asker gave up while it waited: nothing to compute
                    return;
                }
                if (checkHost && !isClusterHost(from)) {
                    refuse(ctx, request, "side requests without TLS are answered only to the cluster's hosts, not " + from);
                    return;
                }
                byte[] bytes;
                try {
                    bytes = s.answer(request.nodeId(), request.kind());
                } catch (Exception e) {
                    refuse(ctx, request, "node " + nodeId + " could not answer: " + e);
                    return;
                }
                served.incrementAndGet();
                LOG.info("node={} side request of kind {} from node {} answered with {}", nodeId, request.kind(),
                        request.nodeId(), bytes == null ? "nothing" : bytes.length + " bytes");
                send(ctx, bytes == null ? SideRequest.STATUS_NONE : SideRequest.STATUS_OK, bytes == null ? new byte[0] : bytes);
            });
        } catch (RejectedExecutionException e) {
            if (isClosed()) {
                ctx.close();
            } else {
                refuse(ctx, request, "node " + nodeId + " is busy: " + MAX_WAITING + " side requests wait already");
            }
        }
    }

    private void refuse(ChannelHandlerContext ctx, SideRequest request, String reason) {
        refused.incrementAndGet();
        LOG.warn("node={} refused side request of kind {} from node {} at {}: {}", nodeId, request.kind(),
                request.nodeId(), ctx.channel().remoteAddress(), reason);
        send(ctx, SideRequest.STATUS_REFUSED, reason.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(ChannelHandlerContext ctx, byte status, byte[] body) {
        ByteBuf head = Unpooled.buffer(SideRequest.ANSWER_HEADER_BYTES).writeByte(status).writeInt(body.length);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(head, Unpooled.wrappedBuffer(body))).addListener(ChannelFutureListener.CLOSE);
    }

    private synchronized ExecutorService executor() {
        if (closed) {
            throw new RejectedExecutionException("closed");
        }
        if (executor == null) {
            executor = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, java.util.concurrent.TimeUnit.MILLISECONDS,
                    new java.util.concurrent.ArrayBlockingQueue<>(MAX_WAITING), r -> {
                Thread t = new Thread(r, "eyrie-side-" + nodeId);
                t.setDaemon(true);
                return t;
            });
        }
        return executor;
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
