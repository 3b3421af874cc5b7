package io.eyrie.core.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exchanges this replica computed for its recent commands, kept so that any replica of the
 * partition (not only the designated sender) can answer an ask. Bounded: the oldest are forgotten.
 */
final class SentExchanges {

    private final int positionsMax;
    private long highestPosition = Long.MIN_VALUE;
    /** When each kept position was first kept (System.nanoTime); absent for those restored from an image. */
    private final Map<Long, Long> keptNanos = new java.util.HashMap<>();
    private final LinkedHashMap<Long, Map<Long, byte[]>> byPosition = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Map<Long, byte[]>> eldest) {
            if (size() > positionsMax) {
                keptNanos.remove(eldest.getKey());
                return true;
            }
            return false;
        }
    };

    SentExchanges(int positionsMax) {
        this.positionsMax = positionsMax;
    }

    /** Keeps round {@code round} of a command's exchanges, by destination partition. */
    synchronized void put(long position, int round, Map<Integer, byte[]> encodedByPartition) {
        Map<Long, byte[]> kept = byPosition.get(position);
        if (kept == null) {
            kept = new java.util.HashMap<>();
            keptNanos.put(position, System.nanoTime());
            byPosition.put(position, kept);
        }
        Map<Long, byte[]> m = kept;
        encodedByPartition.forEach((to, bytes) -> m.put(ExchangeInbox.key(to, round), bytes));
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

    synchronized byte[] get(long position, int toPartition, int round) {
        Map<Long, byte[]> m = byPosition.get(position);
        return m == null ? null : m.get(ExchangeInbox.key(toPartition, round));
    }

    /**
     * The kept round-0 exchanges for {@code toPartition} of the commands after {@code position}, oldest
     * first, at most {@code limit}: what a replica replaying from far behind will ask for next.
     */
    synchronized java.util.List<byte[]> following(long position, int toPartition, int limit) {
        java.util.List<byte[]> out = new java.util.ArrayList<>();
        long key = ExchangeInbox.key(toPartition, 0);
        for (Map.Entry<Long, Map<Long, byte[]>> e : byPosition.entrySet()) {
            if (out.size() >= limit) {
                break;
            }
            if (e.getKey() > position) {
                byte[] bytes = e.getValue().get(key);
                if (bytes != null) {
                    out.add(bytes);
                }
            }
        }
        return out;
    }

    /**
     * The highest position this replica has executed past (not merely delivered: bare signals are kept
     * at delivery, ADR 034). An exchange asked for at or below it and not kept is gone for good.
     */
    synchronized long highestPosition() {
        return highestPosition;
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
    }
}
