package io.eyrie.multicast;

/**
 * Ballots are {@code (round, nodeId)} pairs, totally ordered by round then node id, packed into a
 * long as {@code round << 16 | nodeId} so that comparing the longs compares the pairs. Unlike
 * URingPaxos' {@code 10 + nodeId}, two nodes can never share a ballot.
 */
public final class Ballot {
    public static final int NODE_BITS = 16;
    public static final int MAX_NODE_ID = (1 << NODE_BITS) - 1;
    /** Smaller than every real ballot. */
    public static final long NONE = 0L;

    private Ballot() {
    }

    public static long of(long round, int nodeId) {
        if (round < 0 || round >= (1L << (63 - NODE_BITS))) {
            throw new IllegalArgumentException("ballot round out of range: " + round);
        }
        if (nodeId < 0 || nodeId > MAX_NODE_ID) {
            throw new IllegalArgumentException("node id out of range [0, " + MAX_NODE_ID + "]: " + nodeId);
        }
        return round << NODE_BITS | nodeId;
    }

    public static long round(long ballot) {
        return ballot >>> NODE_BITS;
    }

    public static int nodeId(long ballot) {
        return (int) (ballot & MAX_NODE_ID);
    }

    public static String toString(long ballot) {
        return "(" + round(ballot) + "," + nodeId(ballot) + ")";
    }
}
