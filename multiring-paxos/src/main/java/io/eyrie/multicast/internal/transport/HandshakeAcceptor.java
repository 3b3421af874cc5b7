package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

/**
 * Guards an accepted connection until its first frame, which must be a valid {@link Hello} from a
 * node of our cluster file (same fingerprint, or that of a version of the file this node ran with before a reload,
 * ADR 102; not our own id) and, with an {@link IdentityCheck}, one whose
 * TLS certificate may belong to that node (ADR 065). On success it hands the connection
 * to an {@link InboundDispatcher} for that peer; anything else, or silence past the hello timeout,
 * rejects the connection.
 */
public final class HandshakeAcceptor extends ChannelInboundHandlerAdapter {

    /** Whether the peer on a connection may be the node it claims to be, beyond the hello's own fields. */
    @FunctionalInterface
    public interface IdentityCheck {
        /** Null when the peer on {@code channel} may be node {@code nodeId}; otherwise why not. */
        String refusal(io.netty.channel.Channel channel, int nodeId);
    }

    private final int localNodeId;
    private final long clusterFingerprint;
    private final IntPredicate isClusterNode;
    private final long helloTimeoutMillis;
    private final ConnectionRejector rejector;
    private final InboundSessions sessions;
    private final SideDesk sideDesk;
    private final IdentityCheck identity;
    private java.util.function.LongPredicate earlier = f -> false;
    private ScheduledFuture<?> timeout;
    private boolean sideRequestTaken;

    public HandshakeAcceptor(int localNodeId, long clusterFingerprint, IntPredicate isClusterNode,
                             long helloTimeoutMillis, ConnectionRejector rejector, InboundSessions sessions) {
        this(localNodeId, clusterFingerprint, isClusterNode, helloTimeoutMillis, rejector, sessions, null);
    }

    /**
     * @param sideDesk answers a first frame that is a {@link SideRequest} (ADR 063) instead of a hello; null
     *                 rejects such a connection like any first frame that is not a hello
     */
    public HandshakeAcceptor(int localNodeId, long clusterFingerprint, IntPredicate isClusterNode,
                             long helloTimeoutMillis, ConnectionRejector rejector, InboundSessions sessions,
                             SideDesk sideDesk) {
        this(localNodeId, clusterFingerprint, isClusterNode, helloTimeoutMillis, rejector, sessions, sideDesk, null);
    }

    /** @param identity checks the peer's TLS identity against the node it claims; null checks nothing more */
    public HandshakeAcceptor(int localNodeId, long clusterFingerprint, IntPredicate isClusterNode,
                             long helloTimeoutMillis, ConnectionRejector rejector, InboundSessions sessions,
                             SideDesk sideDesk, IdentityCheck identity) {
        this.identity = identity;
        this.sideDesk = sideDesk;
        this.localNodeId = localNodeId;
        this.clusterFingerprint = clusterFingerprint;
        this.isClusterNode = isClusterNode;
        this.helloTimeoutMillis = helloTimeoutMillis;
        this.rejector = rejector;
        this.sessions = sessions;
    }

    /**
     * Also accepts hellos and side requests carrying a fingerprint {@code earlier} accepts: those of the versions of
     * the cluster file this node ran with before it reloaded the file (ADR 102), so that a node whose file is not
     * yet the new one is not shut out meanwhile.
     */
    public HandshakeAcceptor acceptingEarlier(java.util.function.LongPredicate earlier) {
        this.earlier = earlier;
        return this;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // An idle connection that never says hello would hold a socket forever.
        timeout = ctx.executor().schedule(
                () -> rejector.reject(ctx, "no hello within " + helloTimeoutMillis + " ms"),
                helloTimeoutMillis, TimeUnit.MILLISECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelTimeout();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf payload = (ByteBuf) msg;
        try {
            if (ConnectionRejector.isRejected(ctx) || sideRequestTaken) {
                return; // a side connection says one thing; the rest is ignored until the answer closes it
            }
            if (sideDesk != null && SideRequest.isSideRequest(payload)) {
                SideRequest request = SideRequest.decode(payload);
                String refusal = refusal(ctx, request.nodeId(), request.clusterFingerprint());
                if (refusal != null) {
                    rejector.reject(ctx, "side request: " + refusal);
                    return;
                }
                cancelTimeout();
                sideRequestTaken = true;
                sideDesk.answer(ctx, request);
                return;
            }
            Hello hello = Hello.decode(payload);
            String refusal = refusal(ctx, hello.nodeId(), hello.clusterFingerprint());
            if (refusal != null) {
                rejector.reject(ctx, refusal);
                return;
            }
            cancelTimeout();
            ctx.pipeline().replace(this, "dispatcher", new InboundDispatcher(hello.nodeId(), sessions));
            sessions.opened(ctx.channel(), hello.nodeId());
        } catch (Hello.MalformedHello e) {
            rejector.reject(ctx, e.getMessage());
        } finally {
            payload.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A reset before the hello: nothing to report beyond the close.
        ctx.close();
    }

    private String refusal(ChannelHandlerContext ctx, int nodeId, long fingerprint) {
        if (fingerprint != clusterFingerprint && !earlier.test(fingerprint)) {
            return String.format("hello from node %d with cluster fingerprint %016x, ours is %016x "
                    + "(started with another cluster file, or with a newer version of ours that this node has not read yet?)",
                    nodeId, fingerprint, clusterFingerprint);
        }
        if (nodeId == localNodeId) {
            return "hello claims our own node id " + localNodeId + " (two processes started as the same node?)";
        }
        if (!isClusterNode.test(nodeId)) {
            return "hello from node " + nodeId + ", which is not in the cluster file";
        }
        return identity == null ? null : identity.refusal(ctx.channel(), nodeId);
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
