package io.volery.server.tree;

/**
 * The knobs of a {@link ZnodeTree}. Every replica of a partition must use the same values.
 *
 * @param tickTimeMs           ZooKeeper's tickTime; session timeouts are bounded by [2, 20] ticks
 * @param maxDataBytes         the largest data a node may hold (the {@code jute.maxbuffer} limit)
 * @param superDigest          "super:base64(sha1(super:password))", or null for no super user
 * @param extendedTypesEnabled ZooKeeper's {@code zookeeper.extendedTypesEnabled}: TTL nodes allowed
 * @param reapsContainers      whether ticks delete empty containers and expired TTL nodes (ZooKeeper's
 *                             container manager); off only to compare with a server whose manager is off
 */
public record TreeConfig(int tickTimeMs, int maxDataBytes, String superDigest, boolean extendedTypesEnabled,
                         boolean reapsContainers) {

    public static final int DEFAULT_MAX_BUFFER = 0xfffff;

    public TreeConfig {
        if (tickTimeMs <= 0) {
            throw new IllegalArgumentException("tickTimeMs must be positive, was " + tickTimeMs);
        }
        if (maxDataBytes < 0) {
            throw new IllegalArgumentException("maxDataBytes must not be negative, was " + maxDataBytes);
        }
    }

    public TreeConfig(int tickTimeMs, int maxDataBytes, String superDigest, boolean extendedTypesEnabled) {
        this(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, true);
    }

    public static TreeConfig defaults() {
        return new TreeConfig(2000, DEFAULT_MAX_BUFFER, null, true);
    }

    public TreeConfig withSuperDigest(String digest) {
        return new TreeConfig(tickTimeMs, maxDataBytes, digest, extendedTypesEnabled, reapsContainers);
    }

    public TreeConfig withMaxDataBytes(int bytes) {
        return new TreeConfig(tickTimeMs, bytes, superDigest, extendedTypesEnabled, reapsContainers);
    }

    public TreeConfig withExtendedTypes(boolean enabled) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, enabled, reapsContainers);
    }

    public TreeConfig withContainerReaping(boolean reaps) {
        return new TreeConfig(tickTimeMs, maxDataBytes, superDigest, extendedTypesEnabled, reaps);
    }

    int minSessionTimeoutMs() {
        return 2 * tickTimeMs;
    }

    int maxSessionTimeoutMs() {
        return 20 * tickTimeMs;
    }
}
