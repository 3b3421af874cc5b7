package io.eyrie.multicast.internal.protocol;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.TreeSet;

/**
 * The seqs of one proposer incarnation a learner has seen at or above a floor (the highest
 * watermark seen). Seen seqs stay within {@link Proposer#MAX_SEQ_SPREAD} of the floor, so they
 * live in a bitmap over [floor, floor + {@link #WINDOW}): no boxing and no tree node per
 * delivered message. A seq beyond the bitmap (a proposer that does not keep the bound) goes to an
 * overflow set, so the set is exact whatever the input.
 */
final class SeenSeqs {
    /** A power of two above twice the proposers' seq spread. */
    static final int WINDOW = 8192;
    private static final int MASK = WINDOW - 1;

    private final long[] bits = new long[WINDOW / 64];
    private final TreeSet<Long> overflow = new TreeSet<>();
    private long floor;
    private int size;

    long floor() {
        return floor;
    }

    int size() {
        return size;
    }

    /** Adds {@code seq}; false if it is below the floor or already present. */
    boolean add(long seq) {
        if (seq < floor) {
            return false;
        }
        if (seq - floor >= WINDOW) {
            if (!overflow.add(seq)) {
                return false;
            }
            size++;
            return true;
        }
        int i = (int) (seq & MASK);
        long bit = 1L << (i & 63);
        if ((bits[i >>> 6] & bit) != 0) {
            return false;
        }
        bits[i >>> 6] |= bit;
        size++;
        return true;
    }

    /** Forgets every seq below {@code newFloor}; later adds below it return false. */
    void raiseFloor(long newFloor) {
        if (newFloor <= floor) {
            return;
        }
        if (newFloor - floor >= WINDOW) {
            for (int w = 0; w < bits.length; w++) {
                size -= Long.bitCount(bits[w]);
                bits[w] = 0;
            }
        } else {
            for (long s = floor; s < newFloor; s++) {
                int i = (int) (s & MASK);
                long bit = 1L << (i & 63);
                if ((bits[i >>> 6] & bit) != 0) {
                    bits[i >>> 6] &= ~bit;
                    size--;
                }
            }
        }
        floor = newFloor;
        while (!overflow.isEmpty() && overflow.first() < floor + WINDOW) {
            long s = overflow.pollFirst();
            size--;
            if (s >= floor) {
                add(s);
            }
        }
    }

    /** The seqs in ascending order. */
    PrimitiveIterator.OfLong iterator() {
        return new PrimitiveIterator.OfLong() {
            private long next = floor;
            private final Iterator<Long> rest = overflow.iterator();

            private void advance() {
                while (next < floor + WINDOW) {
                    int i = (int) (next & MASK);
                    if ((bits[i >>> 6] & (1L << (i & 63))) != 0) {
                        return;
                    }
                    next++;
                }
            }

            @Override
            public boolean hasNext() {
                advance();
                return next < floor + WINDOW || rest.hasNext();
            }

            @Override
            public long nextLong() {
                advance();
                if (next < floor + WINDOW) {
                    return next++;
                }
                if (!rest.hasNext()) {
                    throw new NoSuchElementException();
                }
                return rest.next();
            }
        };
    }
}
