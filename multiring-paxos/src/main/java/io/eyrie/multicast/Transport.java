package io.eyrie.multicast;

import java.nio.ByteBuffer;

/**
 * Transport SPI: best-effort delivery of opaque messages between the nodes of the cluster file.
 *
 * <p>The protocol above tolerates loss, duplication and reordering, so an implementation may drop
 * a message rather than block (a full queue, a peer that is down). It must never deliver a
 * corrupted message: frames carry a checksum and a bad frame closes the connection it came on.
 * Implementations: Netty TCP (default), the in-memory simulated network (tests), DPDK (JNI).
 */
public interface Transport extends AutoCloseable {

    /** Starts listening and connecting; every inbound message goes to {@code handler}. */
    void start(InboundHandler handler);

    /**
     * Queues {@code message} (its remaining bytes) for {@code nodeId}. Never blocks. The buffer is
     * not retained after the call returns.
     *
     * @return false when the message was dropped at once (unknown node, queue full, closed)
     */
    boolean send(int nodeId, ByteBuffer message);

    /**
     * Like {@link #send}, for an array the caller hands over and never touches again: an
     * implementation may queue it as it is rather than copy it (every protocol message is sent so).
     */
    default boolean sendOwned(int nodeId, byte[] message) {
        return send(nodeId, ByteBuffer.wrap(message));
    }

    /**
     * Like {@link #sendOwned(int, byte[])} for the message {@code head} followed by {@code tail}:
     * an implementation may write both to the wire without joining them first. Neither array is
     * modified by anyone afterwards ({@code tail} may be shared with other readers).
     */
    default boolean sendOwned(int nodeId, byte[] head, byte[] tail) {
        byte[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return sendOwned(nodeId, all);
    }

    /**
     * The event loop this transport reads its messages on, if the node may run its protocol there too
     * (one thread for reading, the protocol and writing: no hand-off and wake-up per message); null
     * (the default) makes the node run its protocol on a thread of its own. Available before
     * {@link #start}.
     */
    default Loop protocolLoop() {
        return null;
    }

    /** A single-threaded event loop that runs tasks in submission order. */
    interface Loop {
        /** Whether the calling thread is the loop's. */
        boolean inLoop();

        /** Runs {@code task} on the loop, after the tasks already submitted. */
        void execute(Runnable task);

        /** Runs {@code task} on the loop after {@code delayMillis}. */
        java.util.concurrent.Future<?> schedule(Runnable task, long delayMillis);
    }

    /**
     * Makes {@code server} answer side requests (ADR 063, {@link SideChannel}) that reach this node.
     *
     * @return false when this transport has no side channel (the default; the Netty transport has one)
     */
    default boolean serveSideRequests(SideChannel.Server server) {
        return false;
    }

    /** Counters for monitoring: frames sent, received, dropped, rejected. */
    TransportStats stats();

    /**
     * Takes up a new version of the cluster file in which other nodes' addresses may differ, and nothing else
     * (ADR 102): peers that moved are dialled at their new address from now on.
     *
     * @return the ids of the nodes whose address changed
     * @throws UnsupportedOperationException when this transport cannot (the default)
     * @throws IllegalArgumentException      when the new file names other nodes or moves this one
     */
    default java.util.List<Integer> readdress(ClusterConfig config) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot change peers' addresses");
    }

    /**
     * True while the last attempt to connect to {@code nodeId} was refused and none has succeeded since (see
     * {@link DirectChannel#peerRefuses}); false when unknown (the default).
     */
    default boolean peerRefuses(int nodeId) {
        return false;
    }

    /** Socket writes (flushes) to peers since the start, or -1 when this transport does not count them. */
    default long socketWrites() {
        return -1;
    }

    @Override
    void close();

    /** Callback for inbound messages and connection events. Called from transport threads. */
    interface InboundHandler {
        /** One whole message from {@code fromNodeId}; the buffer is only valid during the call. */
        void onMessage(int fromNodeId, ByteBuffer message);

        /** A connection to or from {@code nodeId} went up or down. */
        default void onConnection(int nodeId, boolean up) {
        }
    }

    /** Monotone counters. */
    record TransportStats(long framesSent, long framesReceived, long framesDropped, long framesRejected) {
    }
}
