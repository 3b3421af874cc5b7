package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;

/** Where {@link NettyTransport#send} puts a message for one destination node. */
interface Link {

    /** Queues {@code payload}, taking ownership; false (payload released) when it had to be dropped. */
    boolean send(ByteBuf payload);

    /** Stops the link; queued payloads are released and counted as dropped. Returns at once. */
    void close();
}
