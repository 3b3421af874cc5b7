package io.eyrie.multicast.internal.transport;

/** Where {@link NettyTransport#send} puts a message for one destination node. */
interface Link {

    /** Queues {@code payload}, which nobody modifies any more; false when it had to be dropped. */
    boolean send(OutboundPayload payload);

    /** Stops the link; queued payloads are counted as dropped. Returns at once. */
    void close();
}
