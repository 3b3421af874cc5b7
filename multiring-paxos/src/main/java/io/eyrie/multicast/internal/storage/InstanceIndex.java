package io.eyrie.multicast.internal.storage;

import java.util.Arrays;

/**
 * Instance to where its highest-ballot accept record lives, with the decided flag: an
 * open-addressing table over primitive arrays, about 33 bytes per instance plus slack, so that
 * values stay on disk and millions of instances do not cost millions of objects.
 *
 * <p>The rules (highest ballot wins; a decision at ballot b marks decided an accept at ballot &ge; b,
 * since Paxos makes every such value the chosen one) are applied in one place for both the live
 * appends and recovery.
 */
final class InstanceIndex {

    private static final long EMPTY = -1;
    private static final int MIN_CAPACITY = 64;

    private long[] instances;
    private long[] ballots;
    private long[] segments;
    private long[] offsets;
    private boolean[] decided;
    private int size;
    private long highestInstance = -1;

    InstanceIndex() {
        allocate(MIN_CAPACITY);
    }

    /** A sorted copy, taken once at open time for {@link RecoveredAcceptedMap}. */
    record Snapshot(long[] instances, long[] ballots, long[] segments, long[] offsets, boolean[] decided) {
        int size() {
            return instances.length;
        }
    }

    void accept(long instance, long ballot, long segment, long offset) {
        int slot = find(instance);
        if (slot >= 0) {
            if (ballots[slot] > ballot) {
                return;
            }
            // A decided instance stays decided: by Paxos every higher-ballot value equals the chosen one.
            ballots[slot] = ballot;
            segments[slot] = segment;
            offsets[slot] = offset;
            return;
        }
        if ((size + 1) * 4L > instances.length * 3L) {
            rehash(instances.length * 2);
        }
        insert(instance, ballot, segment, offset, false);
        highestInstance = Math.max(highestInstance, instance);
    }

    void decide(long instance, long ballot) {
        int slot = find(instance);
        if (slot >= 0 && ballots[slot] >= ballot) {
            decided[slot] = true;
        }
        // A decision for a value this acceptor never accepted (or accepted at a lower ballot, so
        // possibly a different value) has nothing here to mark.
    }

    /** The slot of {@code instance}, or -1. */
    int find(long instance) {
        int mask = instances.length - 1;
        for (int slot = hash(instance) & mask; ; slot = (slot + 1) & mask) {
            if (instances[slot] == instance) {
                return slot;
            }
            if (instances[slot] == EMPTY) {
                return -1;
            }
        }
    }

    long ballot(int slot) {
        return ballots[slot];
    }

    long segment(int slot) {
        return segments[slot];
    }

    long offset(int slot) {
        return offsets[slot];
    }

    boolean decided(int slot) {
        return decided[slot];
    }

    int size() {
        return size;
    }

    /** Highest instance with an accepted value, or -1. */
    long highestInstance() {
        return highestInstance;
    }

    void removeBelow(long floor) {
        int kept = 0;
        for (long instance : instances) {
            if (instance != EMPTY && instance >= floor) {
                kept++;
            }
        }
        if (kept == size) {
            return;
        }
        long[] oldInstances = instances;
        long[] oldBallots = ballots;
        long[] oldSegments = segments;
        long[] oldOffsets = offsets;
        boolean[] oldDecided = decided;
        allocate(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, kept)) * 4));
        highestInstance = -1;
        for (int i = 0; i < oldInstances.length; i++) {
            if (oldInstances[i] != EMPTY && oldInstances[i] >= floor) {
                insert(oldInstances[i], oldBallots[i], oldSegments[i], oldOffsets[i], oldDecided[i]);
                highestInstance = Math.max(highestInstance, oldInstances[i]);
            }
        }
    }

    Snapshot sortedSnapshot() {
        long[] sorted = new long[size];
        int n = 0;
        for (long instance : instances) {
            if (instance != EMPTY) {
                sorted[n++] = instance;
            }
        }
        Arrays.sort(sorted);
        long[] b = new long[size];
        long[] s = new long[size];
        long[] o = new long[size];
        boolean[] d = new boolean[size];
        for (int i = 0; i < size; i++) {
            int slot = find(sorted[i]);
            b[i] = ballots[slot];
            s[i] = segments[slot];
            o[i] = offsets[slot];
            d[i] = decided[slot];
        }
        return new Snapshot(sorted, b, s, o, d);
    }

    private void insert(long instance, long ballot, long segment, long offset, boolean isDecided) {
        int mask = instances.length - 1;
        int slot = hash(instance) & mask;
        while (instances[slot] != EMPTY) {
            slot = (slot + 1) & mask;
        }
        instances[slot] = instance;
        ballots[slot] = ballot;
        segments[slot] = segment;
        offsets[slot] = offset;
        decided[slot] = isDecided;
        size++;
    }

    private void rehash(int capacity) {
        long[] oldInstances = instances;
        long[] oldBallots = ballots;
        long[] oldSegments = segments;
        long[] oldOffsets = offsets;
        boolean[] oldDecided = decided;
        allocate(capacity);
        for (int i = 0; i < oldInstances.length; i++) {
            if (oldInstances[i] != EMPTY) {
                insert(oldInstances[i], oldBallots[i], oldSegments[i], oldOffsets[i], oldDecided[i]);
            }
        }
    }

    private void allocate(int capacity) {
        assert Integer.bitCount(capacity) == 1 : "capacity must be a power of two: " + capacity;
        instances = new long[capacity];
        Arrays.fill(instances, EMPTY);
        ballots = new long[capacity];
        segments = new long[capacity];
        offsets = new long[capacity];
        decided = new boolean[capacity];
        size = 0;
    }

    private static int hash(long instance) {
        // Instances are dense and consecutive; the multiply spreads them over the table.
        long h = instance * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
