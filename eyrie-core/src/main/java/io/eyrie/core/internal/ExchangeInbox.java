package io.eyrie.core.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Exchanges (signals and objects) received from other partitions, by command position, including
 * those that arrive before this replica delivers their command. Bounded: when full, the exchange for
 * the furthest command (other than the one executing) is dropped, and the waiting replica's ask
 * recovers it. The exchanges of finished commands whose deferred rounds are still awaited (retained)
 * are held apart and never dropped nor counted against the bound: they are needed, their number is that
 * of the continuations waiting, and an answer to an ask for one of them that found the bound filled by
 * them was dropped again at every ask, so the continuations, which run oldest first, waited for good.
 */
final class ExchangeInbox {

    private final int positionsMax;
    /** Positions not retained: the executing one, early ones, and unfinished ones; bounded by {@code positionsMax}. */
    private final TreeMap<Long, Map<Long, Wire.Exchange>> byPosition = new TreeMap<>();
    /** Retained positions' exchanges (see {@link #retain}): not bounded here, and never dropped. */
    private final Map<Long, Map<Long, Wire.Exchange>> retainedHeld = new HashMap<>();
    private long finishedUpTo = Long.MIN_VALUE;
    private long executing = Long.MIN_VALUE;
    private boolean closed;
    private long dropped;
    /** Unfinished positions an exchange was dropped for: the executor asks for them at once (bounded). */
    private final java.util.TreeSet<Long> droppedPositions = new java.util.TreeSet<>();
    /** Copies of exchanges already held, or of finished commands: an ask's answers beside the original. */
    private long redundant;
    private final java.util.TreeSet<Long> early = new java.util.TreeSet<>();
    /** The position a majority of an owner's replicas said they no longer keep the exchange of (see {@link Wire.Gone}). */
    private long gone = Long.MIN_VALUE;
    /** By position: the owner replicas that said they no longer keep its exchange, short of a majority so far. */
    private final Map<Long, java.util.Set<Integer>> goneFrom = new java.util.HashMap<>();
    /** Finished commands whose deferred rounds are still awaited (see {@link #retain}); kept past {@link #finish}. */
    private final java.util.TreeSet<Long> retained = new java.util.TreeSet<>();
    /** Told when an exchange for a retained position arrives (wakes the executor). */
    private Runnable onRetainedArrival = () -> { };

    ExchangeInbox(int positionsMax) {
        this.positionsMax = positionsMax;
    }

    /** Stores an arriving exchange; false when it was stale or dropped for space. */
    synchronized boolean offer(Wire.Exchange e) {
        boolean kept = retained.contains(e.position());
        if (e.position() <= finishedUpTo && !kept) {
            redundant++;
            return false;
        }
        Map<Long, Wire.Exchange> forPosition = kept ? retainedHeld.computeIfAbsent(e.position(), p -> new HashMap<>())
                : byPosition.get(e.position());
        if (forPosition == null) {
            if (byPosition.size() >= positionsMax && e.position() != executing && !makeRoomFor(e.position())) {
                dropped++;
                rememberDropped(e.position());
                return false;
            }
            forPosition = new HashMap<>();
            byPosition.put(e.position(), forPosition);
        }
        if (e.position() != executing) {
            early.add(e.position());
        }
        if (forPosition.putIfAbsent(key(e.from(), e.round()), e) != null) {
            redundant++;
            return true;
        }
        notifyAll();
        if (kept) {
            onRetainedArrival.run();
        }
        return true;
    }

    /**
     * Full: an exchange for a command nearer than the furthest one held takes its place (ADR 049). A
     * replica far behind then holds the exchanges it needs next, not those it needs last; the ones
     * dropped are asked for when their commands come, and the other partition keeps them until then.
     */
    private boolean makeRoomFor(long position) {
        long furthest = byPosition.lastKey();
        if (position >= furthest || furthest == executing) {
            return false;
        }
        byPosition.remove(furthest);
        early.remove(furthest);
        dropped++;
        rememberDropped(furthest);
        return true;
    }

    private void rememberDropped(long position) {
        droppedPositions.add(position);
        if (droppedPositions.size() > 16 * positionsMax) {
            droppedPositions.pollLast(); // that one waits an exchange timeout before its ask, as any late exchange
        }
    }

    /** Whether an exchange for {@code position} arrived and was dropped for space: no use waiting for it. */
    synchronized boolean wasDropped(long position) {
        return droppedPositions.contains(position);
    }

    synchronized void onRetainedArrival(Runnable r) {
        onRetainedArrival = r;
    }

    /** Keeps {@code position}'s exchanges (and takes new ones) after it finishes, until {@link #release}. */
    synchronized void retain(long position) {
        if (retained.add(position)) {
            Map<Long, Wire.Exchange> held = byPosition.remove(position);
            if (held != null) {
                retainedHeld.put(position, held);
            }
        }
    }

    synchronized void release(long position) {
        if (retained.remove(position)) {
            unretain(position);
        }
    }

    /** A position no longer retained: forgotten if finished, otherwise held as any unfinished one. */
    private void unretain(long position) {
        Map<Long, Wire.Exchange> held = retainedHeld.remove(position);
        if (held != null && position > finishedUpTo) {
            byPosition.put(position, held);
        }
    }

    /** Forgets every retained position (the state they belonged to was replaced). */
    synchronized void releaseAll() {
        for (long p : retained) {
            unretain(p);
        }
        retained.clear();
    }

    /** The exchanges held for {@code position}, or null. */
    private Map<Long, Wire.Exchange> held(long position) {
        Map<Long, Wire.Exchange> m = byPosition.get(position);
        return m != null ? m : retainedHeld.get(position);
    }

    synchronized void begin(long position) {
        executing = position;
    }

    /** The exchange of partition {@code from} for {@code position}, or null if none came by {@code deadlineNanos}. */
    synchronized Wire.Exchange await(long position, int from, int round, long deadlineNanos) throws InterruptedException {
        while (true) {
            if (closed) {
                throw new InterruptedException("replica closed");
            }
            Map<Long, Wire.Exchange> forPosition = held(position);
            Wire.Exchange e = forPosition == null ? null : forPosition.get(key(from, round));
            if (e != null) {
                return e;
            }
            if (gone == position) {
                return null;
            }
            long waitNanos = deadlineNanos - System.nanoTime();
            if (waitNanos <= 0) {
                return null;
            }
            wait(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
        }
    }

    /**
     * Replica {@code node} of the owner partition no longer keeps its exchange for {@code position}.
     * Once {@code majority} of that partition's replicas said so, the exchange is gone: wakes the
     * command waiting for it and returns true. One replica alone may have trimmed or restored past it
     * while a peer still keeps it, so its word only marks the exchange as {@link #goneHeard}. False for
     * a command already finished here.
     */
    synchronized boolean goneFrom(long position, int node, int majority) {
        if (position <= finishedUpTo && !retained.contains(position)) {
            return false;
        }
        java.util.Set<Integer> said = goneFrom.computeIfAbsent(position, p -> new java.util.HashSet<>());
        said.add(node);
        if (said.size() < majority) {
            return false;
        }
        gone = Math.max(gone, position);
        notifyAll();
        return true;
    }

    /** Whether some owner replica said the exchange for {@code position} is no longer kept. */
    synchronized boolean goneHeard(long position) {
        return gone == position || goneFrom.containsKey(position);
    }

    /** Whether a majority of the owner's replicas said the exchange for {@code position} is no longer kept. */
    synchronized boolean isGone(long position) {
        return gone == position;
    }

    synchronized Wire.Exchange peek(long position, int from, int round) {
        Map<Long, Wire.Exchange> forPosition = held(position);
        return forPosition == null ? null : forPosition.get(key(from, round));
    }

    /** One exchange per (sending partition, round) of a command. */
    static long key(int partition, int round) {
        return (long) partition << 32 | (round & 0xffffffffL);
    }

    /** Forgets everything at or below {@code position}: commands execute in position order. */
    synchronized void finish(long position) {
        long before = finishedUpTo;
        finishedUpTo = Math.max(finishedUpTo, position);
        // At or below the previous finishedUpTo nothing is held in byPosition ({@link #offer} refuses finished
        // positions, retained ones are held apart): only the newly finished ones are looked at.
        if (position > before) {
            byPosition.subMap(before, false, position, true).clear();
        }
        early.headSet(position, true).clear();
        if (!goneFrom.isEmpty()) {
            goneFrom.keySet().removeIf(p -> p <= position && !retained.contains(p));
        }
        droppedPositions.headSet(position, true).clear();
        executing = Long.MIN_VALUE;
    }

    /** Whether some exchange for {@code position} arrived before this replica began executing it. */
    synchronized boolean arrivedEarly(long position) {
        return early.contains(position);
    }

    synchronized void close() {
        closed = true;
        notifyAll();
    }

    /** Whether {@code position}'s exchanges are kept for a deferred round. */
    synchronized boolean isRetained(long position) {
        return retained.contains(position);
    }

    synchronized int buffered() {
        return byPosition.size() + retainedHeld.size();
    }

    /** Exchanges that arrived when this replica had one already, or had finished their command. */
    synchronized long redundant() {
        return redundant;
    }

    synchronized long dropped() {
        return dropped;
    }
}
