package io.volery.server.internal;

import io.volery.server.config.VoleryConfig.Partitioning;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Maps znode paths to partitions, by one of two strategies.
 * <ul>
 * <li>{@code subtree}: a path belongs to the partition chosen by a stable hash of its first
 *     component, so a node and its whole subtree live together and create, delete, sequential
 *     children and getChildren below the top level stay in one partition. Every partition lists
 *     the root's children (a copy of each top-level node).</li>
 * <li>{@code hash}: a path belongs to the partition chosen by a stable hash of the whole path, so
 *     a parent and its children usually live apart. Every partition applies every create and
 *     delete, so each holds the whole tree's shape (children, cversion, pzxid, ephemerals, ACLs);
 *     a node's data, version and mtime are current only in its owner.</li>
 * </ul>
 * The root belongs to the lowest partition; every partition keeps it whole (root writes go to all), and
 * under subtree partitioning it is read there alone (ADR 053).
 */
public final class PathPartitioner {
    private final int[] partitions;
    private final Partitioning strategy;

    /** A {@code subtree} partitioner. @param partitions the partition ids (the cluster file's groups) */
    public PathPartitioner(int[] partitions) {
        this(partitions, Partitioning.SUBTREE);
    }

    /** @param partitions the partition ids (the cluster file's groups) */
    public PathPartitioner(int[] partitions, Partitioning strategy) {
        if (partitions.length == 0) {
            throw new IllegalArgumentException("no partitions");
        }
        this.partitions = partitions.clone();
        Arrays.sort(this.partitions);
        this.strategy = java.util.Objects.requireNonNull(strategy, "strategy");
    }

    public int[] partitions() {
        return partitions.clone();
    }

    public Partitioning strategy() {
        return strategy;
    }

    public boolean isHash() {
        return strategy == Partitioning.HASH;
    }

    /**
     * Whether the root is read in its owner, the lowest partition, only (ADR 053; subtree only): reads and
     * watches of "/" go there rather than to the front end's partition, so a top-level create or delete
     * is answered once its owner and the root's owner applied it, not every partition. Every partition
     * still lists every top-level node. {@code -Dvolery.rootHome=false} reads the root anywhere again and
     * waits for every partition, for comparison; every node and native client of a cluster must agree.
     */
    public boolean rootHome() {
        return strategy == Partitioning.SUBTREE && ROOT_HOME;
    }

    private static final boolean ROOT_HOME = !"false".equals(System.getProperty("volery.rootHome"));

    /**
     * The partitions whose part of a top-level create's or delete's events every partition waits for
     * (ADR 053): the node's owner and the root's, or null when every partition's part counts.
     */
    public int[] topLevelEventSenders(String path) {
        if (!rootHome()) {
            return null;
        }
        int owner = ownerOf(path);
        return owner == partitions[0] ? new int[] {owner} : new int[] {partitions[0], owner};
    }

    /** The partition owning {@code path}; the lowest partition for "/" and malformed paths. */
    public int ownerOf(String path) {
        String key = strategy == Partitioning.HASH ? wholePath(path) : firstComponent(path);
        if (key == null) {
            return partitions[0];
        }
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return partitions[(int) (crc.getValue() % partitions.length)];
    }

    /**
     * True when every partition lists {@code path} among its parent's children, so creating or
     * deleting it is ordered to every partition: top-level nodes under {@code subtree}, every node
     * but the root under {@code hash}.
     */
    public boolean listedEverywhere(String path) {
        if (strategy == Partitioning.HASH) {
            return path != null && path.length() > 1 && path.charAt(0) == '/';
        }
        return isTopLevel(path);
    }

    /**
     * True when a persistent watch of this kind on {@code path} must be kept by every partition,
     * because the nodes it watches may live in any of them.
     */
    public boolean persistentWatchEverywhere(String path, boolean recursive) {
        return strategy == Partitioning.HASH || (recursive && isRoot(path));
    }

    /** True for "/x": nodes whose parent is the root. */
    public static boolean isTopLevel(String path) {
        return path != null && path.length() > 1 && path.charAt(0) == '/' && path.indexOf('/', 1) < 0;
    }

    /** "/x" for "/x" and any path below it; null for the root and malformed paths. */
    public static String topLevelOf(String path) {
        String first = firstComponent(path);
        return first == null ? null : "/" + first;
    }

    public static boolean isRoot(String path) {
        return "/".equals(path);
    }

    private static String wholePath(String path) {
        return path == null || path.length() < 2 || path.charAt(0) != '/' ? null : path;
    }

    private static String firstComponent(String path) {
        String whole = wholePath(path);
        if (whole == null) {
            return null;
        }
        int slash = path.indexOf('/', 1);
        return slash < 0 ? path.substring(1) : path.substring(1, slash);
    }
}
