package io.eyrie.multicast;

import java.util.Optional;

/**
 * Storage SPI: the state one acceptor keeps for one ring.
 *
 * <p>Appends are buffered; {@link #sync()} makes everything appended so far durable (one fsync for
 * the whole batch: group commit). The runtime calls {@code sync()} after each protocol step and
 * only then releases the messages that step produced, so a vote never leaves before it is durable.
 * Records are checksummed; recovery stops at the first torn or corrupt record of the tail.
 *
 * <p>Implementations: bounded in-memory, and durable append-only segment files.
 */
public interface AcceptorLog extends AutoCloseable {

    /** {@link #acceptedBallot} of an instance without an accepted value held here. */
    long NO_VOTE = Long.MIN_VALUE;

    /** The state found at open time (empty for a fresh log). */
    RecoveredState recovered();

    /** Records a promise not to accept ballots below {@code ballot} (a {@link Ballot} as long). */
    void appendPromise(long ballot);

    /**
     * Records the acceptance of {@code value} for {@code instance} at {@code ballot}. Nobody
     * modifies {@code value} afterwards, so a log may keep the array itself rather than a copy.
     */
    void appendAccept(long instance, long ballot, byte[] value);

    /** Records that {@code instance} is decided with the value accepted at {@code ballot}. */
    void appendDecision(long instance, long ballot);

    /** Makes every append so far durable. */
    void sync();

    /**
     * The accepted record of {@code instance}, if still held (not trimmed, not evicted).
     */
    Optional<AcceptedValue> read(long instance);

    /**
     * The ballot of the value accepted for {@code instance}, or {@link #NO_VOTE} if none is held,
     * without reading the value: the acceptor asks this on every vote and decision, and a durable
     * log answers it from its index instead of the disk.
     */
    default long acceptedBallot(long instance) {
        Optional<AcceptedValue> a = read(instance);
        return a.isPresent() ? a.get().ballot() : NO_VOTE;
    }

    /** Whether {@code instance} is held and decided, without reading its value. */
    default boolean isDecided(long instance) {
        Optional<AcceptedValue> a = read(instance);
        return a.isPresent() && a.get().decided();
    }

    /** Forgets every instance below {@code instance}; a durable log deletes whole segments. */
    void trimBelow(long instance);

    /** The lowest instance still readable. */
    long lowestInstance();

    @Override
    void close();

    /** An accepted (and possibly decided) value. */
    record AcceptedValue(long instance, long ballot, byte[] value, boolean decided) {
    }

    /** What recovery found: the promise and the accepted values from {@code lowestInstance} on. */
    record RecoveredState(long promisedBallot, long lowestInstance, long highestInstance,
                          java.util.NavigableMap<Long, AcceptedValue> accepted, long tornBytesDiscarded) {
    }
}
