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

    /** Sets the handler of inbound direct messages; called on one thread, in arrival order per sender. */
    void onDirect(Handler handler);

    @FunctionalInterface
    interface Handler {
        void receive(int fromNodeId, byte[] message);
    }
}
