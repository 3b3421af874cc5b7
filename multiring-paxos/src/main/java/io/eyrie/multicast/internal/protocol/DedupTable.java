package io.eyrie.multicast.internal.protocol;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.PrimitiveIterator;

/**
 * Drops the second and later copies of a proposal in a ring's decided stream. Every learner of a
 * ring sees the same stream, so every learner drops the same copies.
 *
 * <p>Bounded: per (ring, proposer, incarnation) it keeps the seqs seen at or above the highest
 * watermark seen (the proposer's lowest pending seq of that ring, which keeps them within
 * {@link Proposer#MAX_SEQ_SPREAD}); per (ring, proposer) at most {@link #INCARNATIONS} incarnations,
 * older ones are dropped wholesale. Within one ring a proposal sent after another was reported
 * decided lands at a later instance, so a seq below a watermark was already delivered.
 */
final class DedupTable {
    static final int INCARNATIONS = 8;

    private record Key(int ring, int node) {
    }

    /** The seqs seen at or above the watermark; the watermark is the set's floor. */
    private static final class Incarnation {
        final SeenSeqs seen = new SeenSeqs();
    }

    private static final class Proposer {
        long incarnationFloor = Long.MIN_VALUE;
        final TreeMap<Long, Incarnation> incarnations = new TreeMap<>();
        /** The incarnation looked up last (nearly every lookup is of the current one). */
        long lastId;
        Incarnation last;

        Incarnation get(long incarnation) {
            if (last != null && lastId == incarnation) {
                return last;
            }
            Incarnation inc = incarnations.get(incarnation);
            if (inc != null) {
                lastId = incarnation;
                last = inc;
            }
            return inc;
        }

        void dropOldest() {
            Map.Entry<Long, Incarnation> oldest = incarnations.pollFirstEntry();
            incarnationFloor = oldest.getKey() + 1;
            if (last == oldest.getValue()) {
                last = null;
            }
        }
    }

    private final Map<Key, Proposer> proposers = new HashMap<>();

    /** True the first time the proposal appears in the ring's stream. */
    boolean firstCopy(int ring, Proposal p) {
        Proposer pr = proposers.computeIfAbsent(new Key(ring, p.node()), k -> new Proposer());
        if (p.incarnation() < pr.incarnationFloor) {
            return false;
        }
        Incarnation inc = pr.get(p.incarnation());
        if (inc == null) {
            inc = new Incarnation();
            pr.incarnations.put(p.incarnation(), inc);
            while (pr.incarnations.size() > INCARNATIONS) {
                pr.dropOldest();
            }
            if (p.incarnation() < pr.incarnationFloor) {
                return false;
            }
        }
        boolean first = inc.seen.add(p.seq());
        inc.seen.raiseFloor(p.watermark());
        return first;
    }

    int encodedSize() {
        int size = 4;
        for (Proposer pr : proposers.values()) {
            size += 4 + 4 + 8 + 4;
            for (Incarnation inc : pr.incarnations.values()) {
                size += 8 + 8 + 4 + 8 * inc.seen.size();
            }
        }
        return size;
    }

    void writeTo(ByteBuffer b) {
        // Sorted so that equal tables give equal bytes.
        TreeMap<Long, Map.Entry<Key, Proposer>> sorted = new TreeMap<>();
        for (Map.Entry<Key, Proposer> e : proposers.entrySet()) {
            sorted.put((long) e.getKey().ring() << 32 | e.getKey().node(), e);
        }
        b.putInt(sorted.size());
        for (Map.Entry<Key, Proposer> e : sorted.values()) {
            b.putInt(e.getKey().ring()).putInt(e.getKey().node()).putLong(e.getValue().incarnationFloor);
            b.putInt(e.getValue().incarnations.size());
            for (Map.Entry<Long, Incarnation> i : e.getValue().incarnations.entrySet()) {
                SeenSeqs seen = i.getValue().seen;
                b.putLong(i.getKey()).putLong(seen.floor()).putInt(seen.size());
                for (PrimitiveIterator.OfLong it = seen.iterator(); it.hasNext(); ) {
                    b.putLong(it.nextLong());
                }
            }
        }
    }

    static DedupTable readFrom(WireReader r) {
        DedupTable t = new DedupTable();
        int n = r.count("dedup proposers", 20);
        for (int i = 0; i < n; i++) {
            Key k = new Key(r.i32("ring"), r.i32("node"));
            Proposer pr = new Proposer();
            pr.incarnationFloor = r.i64("incarnation floor");
            int m = r.count("incarnations", 20);
            for (int j = 0; j < m; j++) {
                long incId = r.i64("incarnation");
                Incarnation inc = new Incarnation();
                inc.seen.raiseFloor(r.i64("watermark"));
                for (long s : r.longs("seen")) {
                    inc.seen.add(s);
                }
                pr.incarnations.put(incId, inc);
            }
            t.proposers.put(k, pr);
        }
        return t;
    }
}
