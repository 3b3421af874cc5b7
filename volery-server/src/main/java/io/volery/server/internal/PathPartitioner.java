package io.volery.server.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Maps znode paths to partitions with the {@code subtree} strategy: a path belongs to the
 * partition chosen by a stable hash of its first component, so a node and its whole subtree live
 * together and create, delete, sequential children and getChildren below the top level stay in
 * one partition. The root and its list of children are kept by every partition.
 */
public final class PathPartitioner {
    private final int[] partitions;

    /** @param partitions the partition ids (the cluster file's groups) */
    public PathPartitioner(int[] partitions) {
        if (partitions.length == 0) {
            throw new IllegalArgumentException("no partitions");
        }
        this.partitions = partitions.clone();
        Arrays.sort(this.partitions);
    }

    public int[] partitions() {
        return partitions.clone();
    }

    /** The partition owning {@code path}; the lowest partition for "/" and malformed paths. */
    public int ownerOf(String path) {
        String first = firstComponent(path);
        if (first == null) {
            return partitions[0];
        }
        CRC32 crc = new CRC32();
        crc.update(first.getBytes(StandardCharsets.UTF_8));
        return partitions[(int) (crc.getValue() % partitions.length)];
    }

    /** True for "/x": nodes whose parent is the root, which every partition lists as children. */
    public static boolean isTopLevel(String path) {
        return path != null && path.length() > 1 && path.charAt(0) == '/' && path.indexOf('/', 1) < 0;
    }

    public static boolean isRoot(String path) {
        return "/".equals(path);
    }

    private static String firstComponent(String path) {
        if (path == null || path.length() < 2 || path.charAt(0) != '/') {
            return null;
        }
        int slash = path.indexOf('/', 1);
        return slash < 0 ? path.substring(1) : path.substring(1, slash);
    }
}
