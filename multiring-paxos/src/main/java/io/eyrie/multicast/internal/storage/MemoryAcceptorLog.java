package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.Ballot;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The bounded in-memory acceptor log: state lives as long as this object does. A process restart
 * loses it (storage = memory trades durability for speed); the simulation keeps the object across
 * simulated crashes to model a disk.
 *
 * <p>{@link #recovered()} reports the state held at the time of the call, so a new protocol
 * instance built over a surviving log recovers everything appended before. When more than
 * {@code maxInstances} instances or more than {@code maxBytes} of values are held, the lowest are
 * evicted (a learner that falls behind them needs an application snapshot), but never the newest
 * {@code minKeptInstances}, which must exceed what can be undecided at once (ring.maxInFlight), or an
 * undecided vote could be forgotten.
 *
 * <p>A log built over a {@link MemoryLogBudget} takes its byte bound from the budget at each append: its
 * share of the heap that the process's in-memory logs may hold together (ADR 056).
 */
public class MemoryAcceptorLog implements AcceptorLog {

    private final int maxInstances;
    private final long maxBytes;
    private final MemoryLogBudget budget;
    private final int minKeptInstances;
    private long bytes;
    private final TreeMap<Long, AcceptedValue> accepted = new TreeMap<>();
    private long promisedBallot = Ballot.NONE;
    private long lowestInstance;
    private boolean closed;

    public MemoryAcceptorLog(int maxInstances) {
        this(maxInstances, Long.MAX_VALUE, maxInstances);
    }

    /** @param minKeptInstances never evicted for the byte bound: more than can be undecided at once */
    public MemoryAcceptorLog(int maxInstances, long maxBytes, int minKeptInstances) {
        this(maxInstances, maxBytes, null, minKeptInstances);
    }

    /**
     * A log whose byte bound is its share of {@code budget} (ADR 056); it registers with the budget until
     * {@link #close()}.
     */
    public MemoryAcceptorLog(int maxInstances, MemoryLogBudget budget, int minKeptInstances) {
        this(maxInstances, Long.MAX_VALUE, java.util.Objects.requireNonNull(budget, "budget"), minKeptInstances);
    }

    private MemoryAcceptorLog(int maxInstances, long maxBytes, MemoryLogBudget budget, int minKeptInstances) {
        if (maxInstances < 1) {
            throw new IllegalArgumentException("storage.memoryMaxInstances must be at least 1, got " + maxInstances);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("storage.memoryMaxBytes must be at least 1, got " + maxBytes);
        }
        this.maxInstances = maxInstances;
        this.maxBytes = maxBytes;
        this.budget = budget;
        this.minKeptInstances = Math.max(1, minKeptInstances);
        if (budget != null) {
            budget.register();
        }
    }

    /** The most value bytes this log holds now (beyond its newest minKeptInstances). */
    public long maxBytes() {
        return budget == null ? maxBytes : budget.shareBytes();
    }

    /** Bytes of the values held now. */
    public synchronized long heldBytes() {
        return bytes;
    }

    @Override
    public synchronized RecoveredState recovered() {
        long highest = accepted.isEmpty() ? lowestInstance - 1 : accepted.lastKey();
        return new RecoveredState(promisedBallot, lowestInstance, highest,
                Collections.unmodifiableNavigableMap(new TreeMap<>(accepted)), 0);
    }

    @Override
    public synchronized void appendPromise(long ballot) {
        ensureOpen();
        // A promise never goes down: a stale append cannot weaken an earlier one.
        promisedBallot = Math.max(promisedBallot, ballot);
    }

    @Override
    public synchronized void appendAccept(long instance, long ballot, byte[] value) {
        ensureOpen();
        if (instance < lowestInstance) {
            return;
        }
        AcceptedValue previous = accepted.put(instance, new AcceptedValue(instance, ballot, value, false));
        bytes += value.length - (previous == null ? 0 : previous.value().length);
        long bound = maxBytes();
        while (accepted.size() > maxInstances || (bytes > bound && accepted.size() > minKeptInstances)) {
            Map.Entry<Long, AcceptedValue> first = accepted.pollFirstEntry();
            bytes -= first.getValue().value().length;
            lowestInstance = first.getKey() + 1;
        }
    }

    @Override
    public synchronized void appendDecision(long instance, long ballot) {
        ensureOpen();
        AcceptedValue a = accepted.get(instance);
        if (a != null && a.ballot() == ballot && !a.decided()) {
            accepted.put(instance, new AcceptedValue(instance, ballot, a.value(), true));
        }
    }

    @Override
    public void sync() {
        // Nothing to flush: appends are applied at once.
    }

    @Override
    public synchronized Optional<AcceptedValue> read(long instance) {
        return Optional.ofNullable(accepted.get(instance));
    }

    @Override
    public synchronized long acceptedBallot(long instance) {
        AcceptedValue a = accepted.get(instance);
        return a == null ? NO_VOTE : a.ballot();
    }

    @Override
    public synchronized boolean isDecided(long instance) {
        AcceptedValue a = accepted.get(instance);
        return a != null && a.decided();
    }

    @Override
    public synchronized void trimBelow(long instance) {
        if (instance <= lowestInstance) {
            return;
        }
        Map<Long, AcceptedValue> below = accepted.headMap(instance, false);
        for (AcceptedValue a : below.values()) {
            bytes -= a.value().length;
        }
        below.clear();
        lowestInstance = instance;
    }

    @Override
    public synchronized long lowestInstance() {
        return lowestInstance;
    }

    @Override
    public synchronized void close() {
        if (!closed && budget != null) {
            budget.unregister();
        }
        closed = true;
    }

    /** Opens the log again after {@link #close()}, as a restarted process reopens its files. */
    public synchronized void reopen() {
        if (closed && budget != null) {
            budget.register();
        }
        closed = false;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("acceptor log is closed");
        }
    }
}
