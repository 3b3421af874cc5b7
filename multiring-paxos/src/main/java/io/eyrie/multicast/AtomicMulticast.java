package io.eyrie.multicast;

import java.util.concurrent.CompletableFuture;

/**
 * Atomic multicast to groups. Every node that learns a group delivers the messages addressed to
 * it, in an order consistent with every other node's (the global {@link Position} order), each at
 * most once, and only messages that were multicast.
 */
public interface AtomicMulticast extends AutoCloseable {

    /**
     * Multicasts {@code payload} to {@code groups} (group ids of the cluster file). A message to one
     * group is ordered by that group's ring; a message to several by ring ALL.
     *
     * @return completes when the message is ordered (decided by a quorum of its ring); it completes
     * exceptionally with {@link MulticastException} when the node is closed or overloaded
     */
    CompletableFuture<Void> multicast(int[] groups, byte[] payload);

    /** The node this handle runs on. */
    int nodeId();

    @Override
    void close();
}
