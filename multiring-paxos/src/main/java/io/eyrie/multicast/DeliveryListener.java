package io.eyrie.multicast;

/**
 * Receives deliveries in position order, on one thread; it must not block for long, since the
 * merge waits for it.
 */
@FunctionalInterface
public interface DeliveryListener {
    void deliver(Delivery delivery);

    /**
     * This node's learner needs instance {@code neededInstance} of {@code ring}, but the ring's acceptors
     * trimmed their logs below {@code lowestKept} (every learner checkpointed past it): it cannot deliver
     * again from its own state. The application recovers by taking the state of a peer that checkpointed
     * past it and moving the learner there with {@link MulticastEndpoint#repositionLearner}. Called once per
     * stall, on the delivery thread; must not block.
     */
    default void behindTrimmedLogs(int ring, long neededInstance, long lowestKept) {
    }
}
