package io.eyrie.multicast;

/**
 * What a replicated application (Eyrie) needs from its node: multicast, point-to-point messages,
 * and a learner whose progress can be checkpointed together with the application's state.
 *
 * <p>Recovery: the application stores {@link #learnerCheckpoint()} (taken inside
 * {@link DeliveryListener#deliver}, so it reflects exactly the deliveries applied so far) with its
 * snapshot; on restart it passes the same bytes to {@link #start} and receives the deliveries that
 * follow. Once the snapshot is durable it calls {@link #checkpointed} so acceptors may trim.
 */
public interface MulticastEndpoint extends AtomicMulticast, DirectChannel {

    /** The cluster this endpoint belongs to. */
    ClusterConfig config();

    /**
     * Starts delivering to {@code listener}, on one thread, in position order.
     *
     * @param learnerCheckpoint null to deliver from the beginning of every ring
     */
    void start(DeliveryListener listener, byte[] learnerCheckpoint);

    /** The learner's state as of the last delivery; call it from inside {@code deliver}. */
    byte[] learnerCheckpoint();

    /** The application durably holds the state that {@code learnerCheckpoint} reflects. */
    void checkpointed(byte[] learnerCheckpoint);
}
