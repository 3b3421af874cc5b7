package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.ClusterConfig;

import java.util.HashMap;
import java.util.Map;

/** Suspects a node not heard from for {@code timeout.suspectMillis}; never suspects itself. */
final class FailureDetector {
    private final int self;
    private final long suspectMillis;
    private final Map<Integer, Long> lastHeard = new HashMap<>();

    FailureDetector(ClusterConfig config, int self, long nowMillis) {
        this.self = self;
        this.suspectMillis = config.parameters().suspectTimeoutMillis();
        // A fresh start trusts everyone: suspicion needs a full timeout of silence.
        for (int n : config.nodes().keySet()) {
            lastHeard.put(n, nowMillis);
        }
    }

    void heard(int node, long nowMillis) {
        lastHeard.merge(node, nowMillis, Math::max);
    }

    boolean suspected(int node, long nowMillis) {
        if (node == self) {
            return false;
        }
        Long t = lastHeard.get(node);
        return t == null || nowMillis - t > suspectMillis;
    }

    /**
     * When the first of the acceptors ahead of {@code self} in the ring's order that is trusted now
     * becomes suspected, which may make {@code self} the coordinator; Long.MAX_VALUE if none is.
     */
    long nextSuspicionMillis(ClusterConfig.Ring ring, int self, long nowMillis) {
        long next = Long.MAX_VALUE;
        for (int a : ring.acceptors()) {
            if (a == self) {
                break;
            }
            if (!suspected(a, nowMillis)) {
                next = Math.min(next, lastHeard.get(a) + suspectMillis + 1);
            }
        }
        return next;
    }

    /** The first acceptor of the ring in config order that is not suspected (the coordinator). */
    int coordinatorOf(ClusterConfig.Ring ring, long nowMillis) {
        for (int a : ring.acceptors()) {
            if (!suspected(a, nowMillis)) {
                return a;
            }
        }
        return ring.acceptors()[0];
    }
}
