package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;

import java.nio.charset.StandardCharsets;

/**
 * A 64-bit digest of a cluster file's node list (ids, hosts, ports), sent in every {@link Hello} so
 * that a node started with another cluster file is refused instead of joining the wrong rings. It
 * guards against mistakes, not attackers.
 */
public final class ClusterFingerprint {

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private ClusterFingerprint() {
    }

    public static long of(ClusterConfig config) {
        StringBuilder text = new StringBuilder();
        // nodes() is sorted by id, so equal node lists give equal text whatever the file's line order.
        for (ClusterConfig.Node n : config.nodes().values()) {
            text.append(n.id()).append('@').append(n.host()).append(':').append(n.port()).append('\n');
        }
        long hash = FNV_OFFSET;
        for (byte b : text.toString().getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= FNV_PRIME;
        }
        return hash;
    }
}
