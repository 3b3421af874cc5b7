package io.eyrie.multicast.internal.protocol;

/** Identifies one multicast for its whole life: retransmissions carry the same id. */
record ProposalId(int node, long incarnation, long seq) {
}
