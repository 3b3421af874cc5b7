package io.volery.server.tree;

/**
 * The knobs of a {@link ZnodeTree}. Every replica of a partition must use the same values.
 *
 * @param tickTimeMs           ZooKeeper's tickTime; session timeouts are bounded by [2, 20] ticks
 * @param maxDataBytes         the largest data a node may hold (the {@code jute.maxbuffer} limit)
 * @param superDigest          "super:base64(sha1(super:password))", or null for no super user
 * @param extendedTypesEnabled ZooKeeper's {@code zookeeper.extendedTypesEnabled}: TTL nodes allowed
 */
public record TreeConfig(int tickTimeMs, int maxDataBytes, String superDigest, boolean extendedTypesEnabled) {

    public static final int DEFAULT_MAX_BUFFER = 0xfffff;

    public TreeConfig {
        if (tickTimeMs <= 0) {
            throw new IllegalArgumentException("tickTimeMs must be positive, was " + tickTimeMs);
        }
        if (maxDataBytes < 0) {
            throw new IllegalArgumentException("maxDataBytes must not be negative, was " + maxDataBytes);
        }
    }

    public static TreeConfig defaults() {
        return new TreeConfig(2000, DEFAULT_MAX_BUFFER, null, true);
    }

    public TreeConfig withSuperDigest(String digest) {
        return new TreeConfig(tickTimeMs, maxDataBytes, digest, extendedTypesEnabled);
    }

    public TreeConfig withMaxDataBytes(int bytes) {
        return new TreeConfig(tickTimeMs, bytes, superDigest, extendedTypesEnabled);
    }

    public TreeConfig withExtendedTypes(boolean enabled) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, enabled);
    }

    int minSessionTimeoutMs() {
        return 2 * tickTimeMs;
    }

    int maxSessionTimeoutMs() {
        return 20 * tickTimeMs;
    }
}
