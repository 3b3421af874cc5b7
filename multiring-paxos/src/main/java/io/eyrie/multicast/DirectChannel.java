package io.eyrie.multicast;

/**
 * Point-to-point messages between the nodes of the cluster file, sharing the multicast node's
 * connections (Eyrie sends its signals and remote objects this way). Best effort, like the
 * {@link Transport}: a message can be lost (a peer down, a full queue) or duplicated across a
 * reconnect, never corrupted; a caller that needs delivery retransmits.
 */
public interface DirectChannel {

    /** Sends {@code message} to {@code nodeId}; false when it was dropped at once. */
    boolean sendDirect(int nodeId, byte[] message);

    /**
     * Adds a handler of inbound direct messages; handlers are called on one thread, in arrival order
     * per sender. Several protocols may share the channel (an Eyrie replica, an Eyrie client, Volery's
     * events): each sees every message and ignores those that are not its own.
     */
    void onDirect(Handler handler);

    /**
     * True while the last attempt to connect to {@code nodeId} was refused (nothing listens at its address: its
     * process is gone, not merely cut off) and none has succeeded since; false when unknown. A node that is
     * only unreachable (a network partition) is not refusing.
     */
    default boolean peerRefuses(int nodeId) {
        return false;
    }

    @FunctionalInterface
    interface Handler {
        void receive(int fromNodeId, byte[] message);
    }
}
