package io.eyrie.multicast.internal.protocol;

/**
 * One multicast as ordered by a ring.
 *
 * @param watermark every seq below it of the same proposer, incarnation and ring was already
 *                  decided when this proposal was sent; learners may forget dedup state below it
 */
record Proposal(int node, long incarnation, long seq, long watermark, int[] groups, byte[] payload) {
    ProposalId id() {
        return new ProposalId(node, incarnation, seq);
    }

    int encodedSize() {
        return 4 + 8 + 8 + 8 + 4 + 4 * groups.length + 4 + payload.length;
    }
}
