package io.volery.server.frontend;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Back-pressure from the service to the client connections of a front end. While the condition
 * holds (the node cannot take more multicasts now), a connection stops reading once the requests it
 * has read and not yet answered exceed {@link #DEFAULT_CONNECTION_BYTES} bytes, or all connections
 * together exceed {@link #DEFAULT_TOTAL_BYTES}; every connection reads again once the condition
 * ends. Below those bounds a connection keeps reading, so its pings are answered and its session
 * stays alive while its requests wait (a connection that stopped reading at the first sign of
 * pressure held back its client's pings too, and under a long overload clients dropped their
 * connections). A client that keeps sending past the bounds fills its socket buffers and waits, as
 * with ZooKeeper's throttling.
 */
public final class ReadThrottle {
    /** Default bound per connection: a little over one request of jute.maxbuffer (1 MiB). */
    public static final long DEFAULT_CONNECTION_BYTES = 2L << 20;
    /** Default bound over all connections of a front end. */
    public static final long DEFAULT_TOTAL_BYTES = 64L << 20;

    private final Set<ZkConnectionHandler> connections = ConcurrentHashMap.newKeySet();
    private volatile BooleanSupplier pausing = () -> false;
    private final long connectionBytes;
    private final long totalBytes;
    private final AtomicLong unanswered = new AtomicLong();
    private final AtomicLong pauses = new AtomicLong();

    public ReadThrottle() {
        this(DEFAULT_CONNECTION_BYTES, DEFAULT_TOTAL_BYTES);
    }

    public ReadThrottle(long connectionBytes, long totalBytes) {
        if (connectionBytes < 1 || totalBytes < connectionBytes) {
            throw new IllegalArgumentException("read throttle bounds must satisfy 1 <= per connection ("
                    + connectionBytes + ") <= total (" + totalBytes + ")");
        }
        this.connectionBytes = connectionBytes;
        this.totalBytes = totalBytes;
    }

    /** Whether a connection with {@code ownBytes} read and unanswered should stop reading now. */
    boolean holdsBack(long ownBytes) {
        return pausing.getAsBoolean() && (ownBytes >= connectionBytes || unanswered.get() >= totalBytes);
    }

    void read(long bytes) {
        unanswered.addAndGet(bytes);
    }

    void answered(long bytes) {
        unanswered.addAndGet(-bytes);
    }

    void countPause() {
        pauses.incrementAndGet();
    }

    /** Bytes of requests read by every connection and not yet answered. */
    public long unansweredBytes() {
        return unanswered.get();
    }

    /** How many times a connection stopped reading because of the bounds. */
    public long pauses() {
        return pauses.get();
    }

    /** Connections stop reading while {@code condition} holds; call {@link #changed} when it may have changed. */
    public void pauseWhile(BooleanSupplier condition) {
        this.pausing = Objects.requireNonNull(condition, "condition");
        changed();
    }

    /** The condition may have changed: every connection reads it again (on its own event loop). */
    public void changed() {
        for (ZkConnectionHandler c : connections) {
            c.readStateChanged();
        }
    }

    /** Whether the service asks for back-pressure now. */
    public boolean pressured() {
        return pausing.getAsBoolean();
    }

    void register(ZkConnectionHandler c) {
        connections.add(c);
    }

    void unregister(ZkConnectionHandler c) {
        connections.remove(c);
    }
}
