package io.eyrie.core.internal;

import io.eyrie.multicast.Position;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exchanges this replica computed for its recent commands, kept so that any replica of the
 * partition (not only the designated sender) can answer an ask. Bounded, but not blindly (ADR 049):
 * beyond {@code positionsMax} the oldest are forgotten only once some replica of every partition they
 * are for has reported finishing them ({@link #progress}), since a partition whose replicas all lack a
 * forgotten exchange has no peer to take a state image from and stops for good. Only past
 * {@code HARD_FACTOR} times that are needed exchanges forgotten too, so that a partition that never
 * reports (gone for good) cannot exhaust this replica's memory.
 */
final class SentExchanges {

    /** How many times {@code positionsMax} this keeps while other partitions still need the oldest. */
    static final int HARD_FACTOR = 16;

    private final int positionsMax;
    private final int hardMax;
    /** The highest position this replica has executed past (not merely delivered: bare signals are kept at delivery, ADR 034). */
    private long highestPosition = Long.MIN_VALUE;
    /** When each kept position was first kept (System.nanoTime); absent for those restored from an image. */
    private final Map<Long, Long> keptNanos = new HashMap<>();
    /** Insertion order, which is about position order: the eldest first. */
    private final LinkedHashMap<Long, Map<Long, byte[]>> byPosition = new LinkedHashMap<>();
    /** By partition, the highest position some replica of it reported finishing everything up to. */
    private final Map<Integer, Long> doneUpTo = new HashMap<>();
    private long forgotten;
    /** Exchanges forgotten although a partition they were for had not reported finishing them. */
    private long forgottenWhileNeeded;
    private long forgottenUpTo = Long.MIN_VALUE;
    /** The position of the checkpoint image this replica last restored, if any. */
    private long restoredAt = Long.MIN_VALUE;

    SentExchanges(int positionsMax) {
        this.positionsMax = positionsMax;
        this.hardMax = (int) Math.min(Integer.MAX_VALUE, (long) positionsMax * HARD_FACTOR);
    }

    /** Keeps round {@code round} of a command's exchanges, by destination partition. */
    synchronized void put(long position, int round, Map<Integer, byte[]> encodedByPartition) {
        Map<Long, byte[]> kept = byPosition.get(position);
        if (kept == null) {
            kept = new HashMap<>();
            keptNanos.put(position, System.nanoTime());
            byPosition.put(position, kept);
        }
        Map<Long, byte[]> m = kept;
        encodedByPartition.forEach((to, bytes) -> m.put(ExchangeInbox.key(to, round), bytes));
        trim();
    }

    /**
     * A replica of {@code partition} finished every command at or below {@code position}: what this
     * keeps for that partition up to there may go.
     */
    synchronized void progress(int partition, long position) {
        Long before = doneUpTo.get(partition);
        if (before == null || position > before) {
            doneUpTo.put(partition, position);
            trim();
        }
    }

    /** Forgets the eldest kept positions beyond {@code positionsMax} that no partition still needs. */
    private void trim() {
        Iterator<Map.Entry<Long, Map<Long, byte[]>>> it = byPosition.entrySet().iterator();
        while (byPosition.size() > positionsMax && it.hasNext()) {
            Map.Entry<Long, Map<Long, byte[]>> eldest = it.next();
            boolean needed = stillNeeded(eldest.getKey(), eldest.getValue());
            if (needed && byPosition.size() <= hardMax) {
                return;
            }
            if (needed) {
                forgottenWhileNeeded++;
            }
            forgotten++;
            forgottenUpTo = Math.max(forgottenUpTo, eldest.getKey());
            keptNanos.remove(eldest.getKey());
            it.remove();
        }
    }

    private boolean stillNeeded(long position, Map<Long, byte[]> byKey) {
        for (long key : byKey.keySet()) {
            Long done = doneUpTo.get((int) (key >>> 32));
            if (done == null || done < position) {
                return true;
            }
        }
        return false;
    }

    /** How many positions this keeps now. */
    synchronized int size() {
        return byPosition.size();
    }

    /** Positions forgotten so far, and of those, how many while another partition still needed them. */
    synchronized long forgotten() {
        return forgotten;
    }

    synchronized long forgottenWhileNeeded() {
        return forgottenWhileNeeded;
    }

    /** What an ask this replica cannot answer learns about why: for the log. */
    synchronized String whyNotKept(long position) {
        if (position <= forgottenUpTo) {
            return "forgotten (" + forgotten + " positions so far, " + forgottenWhileNeeded + " while still needed; "
                    + byPosition.size() + " kept)";
        }
        if (position <= restoredAt) {
            // executed by whoever made the image; it carried only the exchanges kept there then
            return "not in the checkpoint image this replica restored (at position " + Position.toString(restoredAt)
                    + "; " + byPosition.size() + " kept)";
        }
        return "never kept here (" + byPosition.size() + " kept, none forgotten at or after it)";
    }

    /**
     * How many nanoseconds ago this replica first kept an exchange of {@code position}; Long.MAX_VALUE
     * when not known (kept before a restore from a checkpoint image, so long ago).
     */
    synchronized long keptAgoNanos(long position) {
        Long at = keptNanos.get(position);
        return at == null ? Long.MAX_VALUE : System.nanoTime() - at;
    }

    /** This replica has executed past {@code position}. */
    synchronized void passed(long position) {
        highestPosition = Math.max(highestPosition, position);
    }

    /** What an ask finds: the kept exchange, or that it is gone for good, or neither (not computed yet). */
    record Lookup(byte[] kept, boolean gone) {
        static final Lookup NOT_YET = new Lookup(null, false);
        static final Lookup GONE = new Lookup(null, true);
    }

    /**
     * Answers an ask for round {@code round} of {@code position} to {@code toPartition}. Gone only if this
     * replica executed past the position and {@code unfinished} (its commands whose deferred continuations
     * have not ended) does not hold it, decided <em>before</em> the look-up: a command enters
     * {@code unfinished} when it is deferred, before any later position is passed, and leaves it only after
     * its continuation kept its last round's exchanges, so a position finished before the look-up has kept
     * all it ever will. Looking up first and deciding after raced with the executor: a continuation that kept its
     * round and ended between the two made the answer "gone" for an exchange that was there (session 30's
     * fault-free run told two askers so; an asker still waiting then takes a state image).
     */
    synchronized Lookup lookup(long position, int toPartition, int round, java.util.function.LongPredicate unfinished) {
        boolean finished = highestPosition > position && !unfinished.test(position);
        byte[] kept = get(position, toPartition, round);
        return kept != null ? new Lookup(kept, false) : finished ? Lookup.GONE : Lookup.NOT_YET;
    }

    synchronized byte[] get(long position, int toPartition, int round) {
        Map<Long, byte[]> m = byPosition.get(position);
        return m == null ? null : m.get(ExchangeInbox.key(toPartition, round));
    }

    /** One kept exchange: its command's position, its round and its encoded message. */
    record Kept(long position, int round, byte[] encoded) {
    }

    /**
     * The kept exchanges for {@code toPartition}, of every round, that come after round {@code round}
     * of {@code position} (by position, then round), at most {@code limit}, leaving out those for which
     * {@code alreadySent} holds: what a replica replaying from far behind will ask for next. Deferred
     * rounds (ADR 036) are among them: a replayer waits for those as it waits for signals, and a burst of
     * signals alone left it asking once per deferred round (ADR 055).
     */
    synchronized java.util.List<Kept> following(long position, int round, int toPartition, int limit,
                                                java.util.function.BiPredicate<Long, Integer> alreadySent) {
        java.util.List<Kept> out = new java.util.ArrayList<>();
        java.util.List<Long> keys = new java.util.ArrayList<>();
        for (Map.Entry<Long, Map<Long, byte[]>> e : byPosition.entrySet()) {
            if (out.size() >= limit) {
                break;
            }
            long p = e.getKey();
            if (p < position) {
                continue;
            }
            keys.clear();
            for (long key : e.getValue().keySet()) {
                int r = (int) key;
                if ((int) (key >>> 32) == toPartition && (p > position || r > round) && !alreadySent.test(p, r)) {
                    keys.add(key);
                }
            }
            keys.sort(null); // one partition: by round
            for (long key : keys) {
                if (out.size() >= limit) {
                    break;
                }
                out.add(new Kept(p, (int) key, e.getValue().get(key)));
            }
        }
        return out;
    }

    /**
     * A copy for a checkpoint image. A replica restored from that image does not execute the
     * commands up to its position again, yet another partition that restarts from an older
     * checkpoint replays them and asks for their exchanges: the image must carry them. The byte
     * arrays are never changed once kept, so the copy shares them.
     */
    synchronized LinkedHashMap<Long, Map<Long, byte[]>> copy() {
        LinkedHashMap<Long, Map<Long, byte[]>> copy = new LinkedHashMap<>();
        byPosition.forEach((position, m) -> copy.put(position, new java.util.HashMap<>(m)));
        return copy;
    }

    /** Takes the exchanges of a restored checkpoint image (oldest first), replacing what is kept. */
    synchronized void restore(LinkedHashMap<Long, Map<Long, byte[]>> kept, long position) {
        byPosition.clear();
        keptNanos.clear();
        if (kept != null) {
            byPosition.putAll(kept);
        }
        highestPosition = Math.max(highestPosition, position);
        restoredAt = Math.max(restoredAt, position);
        trim();
    }
}
