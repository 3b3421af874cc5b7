package io.eyrie.multicast.internal.protocol;

/** Identifies one multicast for its whole life: retransmissions carry the same id. */
record ProposalId(int node, long incarnation, long seq) {

    // Written out: a coordinator does about eight set operations per proposal, and the record's
    // generated methods (bootstrapped through ObjectMethods) showed up in its profile.
    @Override
    public boolean equals(Object o) {
        return o instanceof ProposalId p && p.seq == seq && p.node == node && p.incarnation == incarnation;
    }

    @Override
    public int hashCode() {
        long h = seq * 0x9E3779B97F4A7C15L + incarnation * 31 + node;
        return (int) (h ^ (h >>> 32));
    }
}
