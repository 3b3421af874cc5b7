package io.volery.server.frontend;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Back-pressure from the service to the client connections of a front end: while the condition
 * holds (the node cannot take more multicasts now), no connection reads requests; every connection
 * reads again once it ends. A client that keeps sending then fills its socket buffers and waits, as
 * with ZooKeeper's throttling, instead of its requests being refused and sent again.
 */
public final class ReadThrottle {
    private final Set<ZkConnectionHandler> connections = ConcurrentHashMap.newKeySet();
    private volatile BooleanSupplier pausing = () -> false;

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

    /** Whether connections should not read now. */
    public boolean paused() {
        return pausing.getAsBoolean();
    }

    void register(ZkConnectionHandler c) {
        connections.add(c);
    }

    void unregister(ZkConnectionHandler c) {
        connections.remove(c);
    }
}
