package io.volery.server.tree;

/**
 * A notification owed to a session. {@code zxid} is the zxid of the write that caused it, or
 * {@link #NO_ZXID} for events that {@code setWatches} fires on reconnect. {@code firedIn} names the
 * partitions whose watch registries fired it, as a set of partition ids (bit {@code p} for partition
 * {@code p}), once partitions have stamped it; {@link #UNKNOWN_PARTITIONS} before, for events from nodes
 * that do not say, and for partition ids outside 0-63. The front end orders an event against replies by
 * those partitions' execution order (ADR 078).
 */
public record WatchEvent(long sessionId, EventType type, String path, long zxid, long firedIn) {
    public static final long NO_ZXID = -1L;
    public static final long UNKNOWN_PARTITIONS = 0L;

    public WatchEvent(long sessionId, EventType type, String path, long zxid) {
        this(sessionId, type, path, zxid, UNKNOWN_PARTITIONS);
    }

    /** The set holding partition {@code p} alone, or {@link #UNKNOWN_PARTITIONS} if it cannot hold it. */
    public static long partitionSet(int p) {
        return p >= 0 && p < Long.SIZE ? 1L << p : UNKNOWN_PARTITIONS;
    }

    /** This event as fired in the partitions of {@code set}. */
    public WatchEvent withFiredIn(long set) {
        return set == firedIn ? this : new WatchEvent(sessionId, type, path, zxid, set);
    }

    /** This event as fired by the partitions of {@code other} too (the same event fired elsewhere). */
    public WatchEvent alsoFiredIn(WatchEvent other) {
        boolean known = firedIn != UNKNOWN_PARTITIONS && other.firedIn != UNKNOWN_PARTITIONS;
        return withFiredIn(known ? firedIn | other.firedIn : UNKNOWN_PARTITIONS);
    }
}
