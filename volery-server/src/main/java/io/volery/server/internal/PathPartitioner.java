package io.volery.server.internal;

import io.volery.server.config.VoleryConfig.Partitioning;
import io.volery.server.tree.RootHome;

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
 *
 * <p>Under {@code subtree}, ZooKeeper's quota nodes live with what they count (ADR 072): the quota of
 * {@code /a/...} is {@code /zookeeper/quota/a/...}, placed by {@code a} like {@code /a}, so that a quota's stats
 * follow its subtree and its limits are checked where the subtree changes. {@code /zookeeper/quota} is then a
 * second node whose children every partition lists, as the root's.
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
        return strategy == Partitioning.SUBTREE && RootHome.ENABLED;
    }

    /**
     * Whether reads and one-shot watches of "/" go to the root's owner, the lowest partition, rather than
     * to the front end's: under subtree partitioning with {@link #rootHome}, and always under hash
     * partitioning. The root's watches then sit in the partition that re-arms them at a reconnect
     * ({@link SetWatchesSplitter}), which can tell by its registry whether they fired (ADR 080).
     */
    public boolean rootReadAtOwner() {
        return strategy == Partitioning.HASH || RootHome.ENABLED;
    }

    /**
     * The partitions whose part of a top-level create's or delete's events every partition waits for
     * (ADR 053): the node's owner and its parent's (the root's, or for a quota node directly below
     * {@code /zookeeper/quota}, ADR 072, that node's), or null when every partition's part counts.
     */
    public int[] topLevelEventSenders(String path) {
        if (!rootHome()) {
            return null;
        }
        int owner = ownerOf(path);
        int parentOwner = ownerOf(parentOf(path));
        return owner == parentOwner ? new int[] {owner}
                : new int[] {Math.min(owner, parentOwner), Math.max(owner, parentOwner)};
    }

    /** The partition owning {@code path}; the lowest partition for "/" and malformed paths. */
    public int ownerOf(String path) {
        String key = strategy == Partitioning.HASH ? wholePath(path) : placingComponent(path);
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
        return isTopLevel(path) || isQuotaLevel(path);
    }

    /**
     * True when the nodes below {@code path} live in several partitions under {@code subtree}: the root, and
     * {@code /zookeeper} and {@code /zookeeper/quota}, whose quota nodes are placed by what they count (ADR 072).
     */
    public boolean spansPartitions(String path) {
        return strategy == Partitioning.SUBTREE
                && (isRoot(path) || QUOTA_ROOT.equals(path) || "/zookeeper".equals(path));
    }

    /**
     * True when a persistent watch of this kind on {@code path} must be kept by every partition,
     * because the nodes it watches may live in any of them.
     */
    public boolean persistentWatchEverywhere(String path, boolean recursive) {
        return strategy == Partitioning.HASH || (recursive && spansPartitions(path));
    }

    /** ZooKeeper's quota tree (ADR 072). */
    public static final String QUOTA_ROOT = "/zookeeper/quota";
    private static final String QUOTA_PREFIX = QUOTA_ROOT + "/";

    /** True for "/zookeeper/quota/x": quota nodes every partition lists under {@code subtree} (ADR 072). */
    public static boolean isQuotaLevel(String path) {
        return path != null && path.length() > QUOTA_PREFIX.length() && path.startsWith(QUOTA_PREFIX)
                && path.indexOf('/', QUOTA_PREFIX.length()) < 0;
    }

    /** True for the nodes whose children every partition lists under {@code subtree}: "/" and "/zookeeper/quota". */
    public static boolean listsEverywhere(String path) {
        return isRoot(path) || QUOTA_ROOT.equals(path);
    }

    /**
     * The node every partition lists at or above {@code path} under {@code subtree}: "/x" for "/x" and any path
     * below it, "/zookeeper/quota/x" for that and any path below it (ADR 072); null for the root and malformed paths.
     */
    public static String listedAncestorOf(String path) {
        String quota = quotaComponent(path);
        return quota != null ? QUOTA_PREFIX + quota : topLevelOf(path);
    }

    private static String parentOf(String path) {
        int slash = path == null ? -1 : path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
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

    /** The component that places a path under {@code subtree}: the first, or for a quota node the one after the quota root. */
    private static String placingComponent(String path) {
        String quota = quotaComponent(path);
        return quota != null ? quota : firstComponent(path);
    }

    /** "a" for "/zookeeper/quota/a" and any path below it; null for other paths. */
    private static String quotaComponent(String path) {
        if (path == null || path.length() <= QUOTA_PREFIX.length() || !path.startsWith(QUOTA_PREFIX)) {
            return null;
        }
        int slash = path.indexOf('/', QUOTA_PREFIX.length());
        return slash < 0 ? path.substring(QUOTA_PREFIX.length()) : path.substring(QUOTA_PREFIX.length(), slash);
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
