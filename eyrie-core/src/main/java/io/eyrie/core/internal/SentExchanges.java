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
    private final LinkedHashMap<Long, Map<Integer, byte[]>> byPosition = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Map<Integer, byte[]>> eldest) {
            return size() > positionsMax;
        }
    };

    SentExchanges(int positionsMax) {
        this.positionsMax = positionsMax;
    }

    synchronized void put(long position, Map<Integer, byte[]> encodedByPartition) {
        byPosition.put(position, encodedByPartition);
        highestPosition = Math.max(highestPosition, position);
    }

    /** This replica has executed past {@code position}. */
    synchronized void passed(long position) {
        highestPosition = Math.max(highestPosition, position);
    }

    synchronized byte[] get(long position, int toPartition) {
        Map<Integer, byte[]> m = byPosition.get(position);
        return m == null ? null : m.get(toPartition);
    }

    synchronized long highestPosition() {
        return highestPosition;
    }
}
