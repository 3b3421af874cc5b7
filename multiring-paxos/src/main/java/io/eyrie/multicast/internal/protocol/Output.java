package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Delivery;

/** What one protocol step produces; the runtime acts on it after syncing the acceptor logs. */
public interface Output {
    /** Send after AcceptorLog.sync(): a vote must never leave before it is durable. */
    void send(int toNodeId, byte[] message);

    /** In position order; only messages addressed to one of this node's groups. */
    void deliver(Delivery delivery);

    /** A local proposal was decided. */
    void ordered(long proposalSeq);

    /** An application message that came over the node's connections. */
    void direct(int fromNodeId, byte[] appMessage);
}
