package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Delivery;

/** What one protocol step produces; the runtime acts on it after syncing the acceptor logs. */
public interface Output {
    /** Send after AcceptorLog.sync(): a vote must never leave before it is durable. */
    void send(int toNodeId, byte[] message);

    /**
     * Sends the message {@code head} followed by {@code tail} (an Accept's header and its value,
     * which the acceptor log shares: never modified); a runtime may hand both to the transport
     * without joining them. Same ordering and durability rule as {@link #send(int, byte[])}.
     */
    default void send(int toNodeId, byte[] head, byte[] tail) {
        byte[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        send(toNodeId, all);
    }

    /** In position order; only messages addressed to one of this node's groups. */
    void deliver(Delivery delivery);

    /** A local proposal was decided. */
    void ordered(long proposalSeq);

    /** An application message that came over the node's connections. */
    void direct(int fromNodeId, byte[] appMessage);

    /**
     * The learner needs instance {@code neededInstance} of {@code ring} but the acceptors kept nothing
     * below {@code lowestKept}: it cannot deliver again until it is moved to a later checkpoint. Said once
     * per stall.
     */
    default void behindTrimmedLogs(int ring, long neededInstance, long lowestKept) {
    }
}
