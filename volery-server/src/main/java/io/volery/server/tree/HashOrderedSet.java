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
 * and doubles when more than 3/4 full, or when a bucket reaches 9 names while the table is under 64,
 * and never shrinks. A copy is sized for its current size and filled in the original's order. A
 * bucket of 9 or more names in a table of 64 or more becomes a tree whose order this does not model;
 * that takes names crafted to collide.
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
    /** Names per bucket of the current table. */
    private int[] bucketSizes = new int[0];
    /** Set once a bucket would have become a tree in ZooKeeper: the order is then approximate. */
    private boolean treeBin;

    HashOrderedSet(int firstTable) {
        this.firstTable = firstTable;
    }

    boolean add(String name) {
        if (!names.add(name)) {
            return false;
        }
        if (table == 0) {
            resize(firstTable);
        } else {
            bucketSizes[bucket(name, table)]++;
        }
        // HashMap resizes instead of making a tree of a long bucket while its table is small
        if (bucketSizes[bucket(name, table)] > 8) {
            if (table < 64) {
                resize(table * 2);
            } else {
                treeBin = true;
            }
        }
        if (names.size() > table * 3 / 4) {
            resize(table * 2);
        }
        return true;
    }

    boolean remove(String name) {
        if (!names.remove(name)) {
            return false;
        }
        bucketSizes[bucket(name, table)]--;
        return true;
    }

    private void resize(int newTable) {
        table = newTable;
        bucketSizes = new int[newTable];
        for (String n : names) {
            bucketSizes[bucket(n, newTable)]++;
        }
    }

    private static int bucket(String name, int tableSize) {
        int h = name.hashCode();
        return (h ^ (h >>> 16)) & (tableSize - 1);
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

    /**
     * False once names crafted to collide made a bucket of 9 or more: ZooKeeper's set, or a copy of
     * it, may then keep that bucket as a tree, whose order is not modelled.
     */
    boolean ordersExactly() {
        if (treeBin) {
            return false;
        }
        for (int size : bucketSizes) {
            if (size > 8) {
                return false;
            }
        }
        return true;
    }

    /** The names in insertion order: with {@link #table()}, everything that decides the iteration order. */
    List<String> inInsertionOrder() {
        return List.copyOf(names);
    }

    /** Rebuilds the set from {@link #inInsertionOrder()} and {@link #table()}. */
    void restore(List<String> insertionOrder, int tableSize) {
        names.clear();
        names.addAll(insertionOrder);
        resize(tableSize);
    }

    /** The order in which ZooKeeper's set iterates. */
    List<String> inServerOrder() {
        return bucketOrder(names, table);
    }

    /** The order in which a copy (HashSet.clone) of ZooKeeper's set iterates. */
    List<String> inCopyOrder() {
        int wanted = (int) (names.size() / 0.75f + 1.0f);
        int copyTable = 1;
        while (copyTable < wanted) {
            copyTable <<= 1;
        }
        HashOrderedSet copy = new HashOrderedSet(copyTable);
        for (String name : inServerOrder()) {
            copy.add(name);
        }
        return copy.inServerOrder();
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
            int index = bucket(name, tableSize);
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
