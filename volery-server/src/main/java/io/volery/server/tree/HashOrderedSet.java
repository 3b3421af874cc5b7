package io.volery.server.tree;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A set of names that can list them in the order a {@code java.util.HashSet} inside ZooKeeper 3.9.5
 * would. Clients see that order: getChildren returns a node's children in the iteration order of
 * its HashSet, and a closing session's ephemerals are deleted (and their watch events sent) in the
 * order of a copy of the session's HashSet.
 *
 * <p>A HashSet iterates bucket by bucket (bucket = spread string hash masked by the table size),
 * insertion order within a bucket, and resizing keeps that order; its table starts at a given size
 * and doubles when more than 3/4 full, never shrinking. A copy is sized for its current size and
 * filled in the original's order. Buckets that grow into trees (8 colliding names in a table of 64 or
 * more) are not modelled.
 */
final class HashOrderedSet {

    /** ZooKeeper's DataNode starts its children at {@code new HashSet<>(8)}. */
    static final int CHILDREN_TABLE = 8;
    /** ZooKeeper's per-session ephemeral set is a {@code new HashSet<>()}. */
    static final int DEFAULT_TABLE = 16;

    /** Insertion order; a name removed and added again moves to the end, as in a HashMap bucket. */
    private final LinkedHashSet<String> names = new LinkedHashSet<>();
    private final int firstTable;
    /** The table size ZooKeeper's set would have; 0 until the first insertion allocates it. */
    private int table;

    HashOrderedSet(int firstTable) {
        this.firstTable = firstTable;
    }

    boolean add(String name) {
        if (!names.add(name)) {
            return false;
        }
        if (table == 0) {
            table = firstTable;
        }
        if (names.size() > table * 3 / 4) {
            table *= 2;
        }
        return true;
    }

    boolean remove(String name) {
        return names.remove(name);
    }

    boolean contains(String name) {
        return names.contains(name);
    }

    int size() {
        return names.size();
    }

    boolean isEmpty() {
        return names.isEmpty();
    }

    int table() {
        return table;
    }

    /** The names in insertion order: with {@link #table()}, everything that decides the iteration order. */
    List<String> inInsertionOrder() {
        return List.copyOf(names);
    }

    /** Rebuilds the set from {@link #inInsertionOrder()} and {@link #table()}. */
    void restore(List<String> insertionOrder, int tableSize) {
        names.clear();
        names.addAll(insertionOrder);
        table = tableSize;
    }

    /** The order in which ZooKeeper's set iterates. */
    List<String> inServerOrder() {
        return bucketOrder(names, table);
    }

    /** The order in which a copy of ZooKeeper's set iterates. */
    List<String> inCopyOrder() {
        int wanted = (int) (names.size() / 0.75f + 1.0f);
        int copyTable = 1;
        while (copyTable < wanted) {
            copyTable <<= 1;
        }
        return bucketOrder(inServerOrder(), copyTable);
    }

    private static List<String> bucketOrder(Iterable<String> source, int tableSize) {
        if (tableSize == 0) {
            return List.of();
        }
        List<List<String>> buckets = new ArrayList<>(tableSize);
        for (int i = 0; i < tableSize; i++) {
            buckets.add(null);
        }
        for (String name : source) {
            int h = name.hashCode();
            int index = (h ^ (h >>> 16)) & (tableSize - 1);
            List<String> bucket = buckets.get(index);
            if (bucket == null) {
                bucket = new ArrayList<>(2);
                buckets.set(index, bucket);
            }
            bucket.add(name);
        }
        List<String> out = new ArrayList<>();
        for (List<String> bucket : buckets) {
            if (bucket != null) {
                out.addAll(bucket);
            }
        }
        return out;
    }
}
