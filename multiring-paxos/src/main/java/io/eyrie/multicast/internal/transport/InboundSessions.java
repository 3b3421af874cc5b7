package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.Transport.InboundHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The inbound side of the node: how many live connections each peer has dialled to us, and the
 * handoff of messages and connection events to the application's {@link InboundHandler}.
 *
 * <p>A peer normally has one inbound connection, but for a while it can have two: after a restart
 * (until the old one's close arrives) or when someone else dials claiming its id. Events are
 * therefore per peer, not per connection: "up" when its first connection completes a hello, "down"
 * when its last one closes. A newer connection never evicts an older one, so a stray or hostile
 * dial cannot cut a healthy peer off; it only closes itself.
 */
public final class InboundSessions {

    private static final Logger LOG = LoggerFactory.getLogger(InboundSessions.class);

    private final int localNodeId;
    private final TransportCounters counters;
    private final InboundHandler handler;
    // Connection events are rare; one lock keeps each peer's up/down events in the order they happened.
    private final Map<Integer, Integer> liveConnections = new HashMap<>();

    public InboundSessions(int localNodeId, TransportCounters counters, InboundHandler handler) {
        this.localNodeId = localNodeId;
        this.counters = counters;
        this.handler = handler;
    }

    /** {@code channel} completed a valid hello from {@code peerId}. */
    void opened(Channel channel, int peerId) {
        synchronized (liveConnections) {
            int live = liveConnections.merge(peerId, 1, Integer::sum);
            LOG.info("node={} inbound connection up from peer={} at {} ({} live)", localNodeId, peerId,
                    channel.remoteAddress(), live);
            if (live == 1) {
                notifyConnection(peerId, true);
            }
        }
    }

    /** {@code channel}, which had completed a hello from {@code peerId}, closed. */
    void closed(Channel channel, int peerId) {
        synchronized (liveConnections) {
            Integer live = liveConnections.get(peerId);
            assert live != null && live > 0 : "close of a connection never opened, peer " + peerId;
            LOG.info("node={} inbound connection down from peer={} at {} ({} live)", localNodeId, peerId,
                    channel.remoteAddress(), live - 1);
            if (live == 1) {
                liveConnections.remove(peerId);
                notifyConnection(peerId, false);
            } else {
                liveConnections.put(peerId, live - 1);
            }
        }
    }

    /** Hands one message to the application and releases it. */
    void deliver(int fromNodeId, ByteBuf payload) {
        try {
            deliver(fromNodeId, payload.nioBuffer());
        } finally {
            payload.release();
        }
    }

    /** Hands one message to the application; it may read {@code message} only during the call. */
    void deliver(int fromNodeId, ByteBuffer message) {
        try {
            counters.frameReceived();
            handler.onMessage(fromNodeId, message);
        } catch (RuntimeException e) {
            // A bug above us; the bytes were fine, so the connection stays up and the bug is loud in the log.
            LOG.error("node={} inbound handler failed on a message from node={}", localNodeId, fromNodeId, e);
        }
    }

    /** Reports a connection event, to or from {@code peerId}, to the application. */
    void notifyConnection(int peerId, boolean up) {
        try {
            handler.onConnection(peerId, up);
        } catch (RuntimeException e) {
            LOG.error("node={} inbound handler failed on connection event peer={} up={}", localNodeId, peerId, up, e);
        }
    }
}
