package io.eyrie.multicast.internal.storage;

/**
 * The values of the most recently accepted instances, kept in memory next to the durable log: the
 * acceptor reads an instance's value back soon after accepting it (a decision that reaches an
 * earlier hop, a learner on the same node), and reading it from the file costs a flush of the write
 * buffer, two reads and a checksum. Direct-mapped by instance (instances are dense and consecutive),
 * bounded in slots and in bytes; a miss falls back to the file, so eviction is only a slower read.
 */
final class RecentValues {
    private final long[] instances;
    private final long[] ballots;
    private final byte[][] values;
    private final long maxBytes;
    private long bytes;

    RecentValues(int slots, long maxBytes) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two, got " + slots);
        }
        this.instances = new long[slots];
        this.ballots = new long[slots];
        this.values = new byte[slots][];
        this.maxBytes = maxBytes;
        java.util.Arrays.fill(instances, -1);
    }

    /** Remembers {@code value}, accepted for {@code instance} at {@code ballot} (the array is kept, not copied). */
    void put(long instance, long ballot, byte[] value) {
        int slot = (int) instance & (instances.length - 1);
        byte[] old = values[slot];
        if (old != null) {
            bytes -= old.length;
            values[slot] = null;
            instances[slot] = -1;
        }
        if (bytes + value.length > maxBytes) {
            return; // over the byte bound: this one is read from the file when needed
        }
        instances[slot] = instance;
        ballots[slot] = ballot;
        values[slot] = value;
        bytes += value.length;
    }

    /** The value held for {@code instance} at exactly {@code ballot}, or null. */
    byte[] get(long instance, long ballot) {
        int slot = (int) instance & (instances.length - 1);
        return instances[slot] == instance && ballots[slot] == ballot ? values[slot] : null;
    }

    long bytes() {
        return bytes;
    }
}
