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

    /**
     * Moves the running learner forward to {@code learnerCheckpoint}, a peer's, taken with the state the
     * application has just restored in place of its own (see {@link DeliveryListener#behindTrimmedLogs}).
     * Deliveries then continue after that checkpoint.
     *
     * @return completes with false, nothing changed, when the checkpoint is not ahead of the learner; fails
     *         when it is corrupt or of other rings, or the endpoint cannot reposition its learner
     */
    default java.util.concurrent.CompletableFuture<Boolean> repositionLearner(byte[] learnerCheckpoint) {
        return java.util.concurrent.CompletableFuture.failedFuture(
                new UnsupportedOperationException(getClass().getSimpleName() + " cannot reposition its learner"));
    }
}
