package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.Transport.InboundHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * The inbound side of the node: which connection currently speaks for each peer, and the handoff of
 * messages and connection events to the application's {@link InboundHandler}.
 *
 * <p>A peer dials us over one connection at a time, so when a new hello arrives for a peer that
 * still has an inbound connection, the old one is stale (the peer restarted or lost it without a
 * FIN) and is closed without a "down" event: the peer is up all along.
 */
public final class InboundSessions {

    private static final Logger LOG = LoggerFactory.getLogger(InboundSessions.class);
    private static final AttributeKey<Boolean> REPLACED = AttributeKey.valueOf(InboundSessions.class, "replaced");

    private final int localNodeId;
    private final TransportCounters counters;
    private final InboundHandler handler;
    // Connection events are rare; one lock keeps each peer's up/down events in the order they happened.
    private final Map<Integer, Channel> current = new HashMap<>();

    public InboundSessions(int localNodeId, TransportCounters counters, InboundHandler handler) {
        this.localNodeId = localNodeId;
        this.counters = counters;
        this.handler = handler;
    }

    /** {@code channel} completed a valid hello from {@code peerId}. */
    void opened(Channel channel, int peerId) {
        synchronized (current) {
            Channel old = current.put(peerId, channel);
            if (old != null && old != channel) {
                old.attr(REPLACED).set(Boolean.TRUE);
                LOG.info("node={} peer={} dialled again from {}; closing its previous connection from {}",
                        localNodeId, peerId, channel.remoteAddress(), old.remoteAddress());
                old.close();
            } else {
                LOG.info("node={} inbound connection up from peer={} at {}", localNodeId, peerId, channel.remoteAddress());
            }
            notifyConnection(peerId, true);
        }
    }

    /** {@code channel}, which had completed a hello from {@code peerId}, closed. */
    void closed(Channel channel, int peerId) {
        if (channel.hasAttr(REPLACED)) {
            return;
        }
        synchronized (current) {
            if (!current.remove(peerId, channel)) {
                return;
            }
            LOG.info("node={} inbound connection down from peer={}", localNodeId, peerId);
            notifyConnection(peerId, false);
        }
    }

    /** Hands one message to the application and releases it. */
    void deliver(int fromNodeId, ByteBuf payload) {
        try {
            counters.frameReceived();
            handler.onMessage(fromNodeId, payload.nioBuffer());
        } catch (RuntimeException e) {
            // A bug above us; the bytes were fine, so the connection stays up and the bug is loud in the log.
            LOG.error("node={} inbound handler failed on a message from node={}", localNodeId, fromNodeId, e);
        } finally {
            payload.release();
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
