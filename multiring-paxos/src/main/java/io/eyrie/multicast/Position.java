package io.eyrie.multicast;

/**
 * The global position of a delivered message: the merge key {@code (round, ringId, slotInRound,
 * indexInBatch)} packed into a positive, monotone 63-bit number.
 *
 * <p>Each ring's decided instances form a stream of slots (a value batch takes one slot, a skip of
 * k takes k). The merge takes, for round r = 0, 1, ..., the slots {@code [r*M, r*M+M)} of every
 * subscribed ring in ring-id order. Every learner's delivery order is therefore a subsequence of
 * the order of these keys, and comparing positions compares keys.
 *
 * <p>Layout (high to low): 40 bits round, 7 bits ring id, 4 bits slot within the round, 12 bits
 * index within the batch. Hence at most 128 rings, M at most 16 and at most 4096 messages per
 * batch; 2^40 rounds last over 300 years at 100,000 rounds per second.
 */
public final class Position {
    public static final int INDEX_BITS = 12;
    public static final int SLOT_BITS = 4;
    public static final int RING_BITS = 7;
    public static final int ROUND_BITS = 40;

    public static final int MAX_BATCH_MESSAGES = 1 << INDEX_BITS;
    public static final int MAX_SLOTS_PER_ROUND = 1 << SLOT_BITS;
    public static final int MAX_RINGS = 1 << RING_BITS;
    public static final long MAX_ROUND = (1L << ROUND_BITS) - 1;

    /** Smaller than any delivered position. */
    public static final long NONE = -1L;

    private Position() {
    }

    public static long of(long round, int ringId, int slotInRound, int index) {
        if (round < 0 || round > MAX_ROUND) {
            throw new IllegalArgumentException("round out of range: " + round);
        }
        if (ringId < 0 || ringId >= MAX_RINGS) {
            throw new IllegalArgumentException("ring id out of range: " + ringId);
        }
        if (slotInRound < 0 || slotInRound >= MAX_SLOTS_PER_ROUND) {
            throw new IllegalArgumentException("slot in round out of range: " + slotInRound);
        }
        if (index < 0 || index >= MAX_BATCH_MESSAGES) {
            throw new IllegalArgumentException("index in batch out of range: " + index);
        }
        return round << (RING_BITS + SLOT_BITS + INDEX_BITS)
                | (long) ringId << (SLOT_BITS + INDEX_BITS)
                | (long) slotInRound << INDEX_BITS
                | index;
    }

    public static long round(long position) {
        return position >>> (RING_BITS + SLOT_BITS + INDEX_BITS);
    }

    public static int ringId(long position) {
        return (int) (position >>> (SLOT_BITS + INDEX_BITS)) & (MAX_RINGS - 1);
    }

    public static int slotInRound(long position) {
        return (int) (position >>> INDEX_BITS) & (MAX_SLOTS_PER_ROUND - 1);
    }

    public static int index(long position) {
        return (int) position & (MAX_BATCH_MESSAGES - 1);
    }

    public static String toString(long position) {
        if (position == NONE) {
            return "none";
        }
        return round(position) + "." + ringId(position) + "." + slotInRound(position) + "." + index(position);
    }
}
