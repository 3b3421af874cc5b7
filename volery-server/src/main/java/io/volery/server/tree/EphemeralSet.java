package io.volery.server.tree;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The ephemeral paths of one session, able to list them in the order ZooKeeper 3.9.5 does. That order
 * decides in which order a closing session's ephemerals are deleted, and so the order of the watch
 * events: ZooKeeper keeps each session's paths in a {@code java.util.HashSet}, and closing a session
 * deletes them in the iteration order of a clone of that set. A HashSet iterates bucket by bucket,
 * insertion order within a bucket; its capacity only grows (16, doubling past 3/4 full); the clone is
 * sized for its current size and filled in the original's order. All of this is reproduced here.
 */
final class EphemeralSet {

    private static final int INITIAL_CAPACITY = 16;

    /** Insertion order; a path removed and added again moves to the end, as in a HashMap bucket. */
    private final LinkedHashSet<String> paths = new LinkedHashSet<>();
    /** The capacity ZooKeeper's set would have; it never shrinks. */
    private int capacity = INITIAL_CAPACITY;

    void add(String path) {
        if (paths.add(path) && paths.size() > capacity * 3 / 4) {
            capacity *= 2;
        }
    }

    void remove(String path) {
        paths.remove(path);
    }

    boolean contains(String path) {
        return paths.contains(path);
    }

    int size() {
        return paths.size();
    }

    int capacity() {
        return capacity;
    }

    void restoreCapacity(int value) {
        capacity = value;
    }

    /** Paths in insertion order: the canonical form kept in snapshots. */
    List<String> inInsertionOrder() {
        return List.copyOf(paths);
    }

    /** Paths in the order ZooKeeper's copy of the set iterates them. */
    List<String> inServerOrder() {
        List<String> original = bucketOrder(paths, capacity);
        return bucketOrder(original, cloneCapacity(paths.size()));
    }

    private static List<String> bucketOrder(Iterable<String> source, int tableSize) {
        List<List<String>> buckets = new ArrayList<>(tableSize);
        for (int i = 0; i < tableSize; i++) {
            buckets.add(null);
        }
        for (String p : source) {
            int h = p.hashCode();
            int index = (h ^ (h >>> 16)) & (tableSize - 1);
            if (buckets.get(index) == null) {
                buckets.set(index, new ArrayList<>(2));
            }
            buckets.get(index).add(p);
        }
        List<String> out = new ArrayList<>();
        for (List<String> b : buckets) {
            if (b != null) {
                out.addAll(b);
            }
        }
        return out;
    }

    /** HashMap's sizing of a copy: the power of two at least size / 0.75 + 1. */
    private static int cloneCapacity(int size) {
        int wanted = (int) (size / 0.75f + 1.0f);
        int cap = 1;
        while (cap < wanted) {
            cap <<= 1;
        }
        return cap;
    }
}
