package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.Position;

import java.util.List;

/**
 * A node's protocol state for monitoring.
 *
 * @param proposalGapResends multicasts this node's proposer sent again because their ring ordered a
 *                           later one of them first (a proposal lost on the way), since the start
 * @param fetchesSent        catch-up requests (Fetch) this node sent for decided values, since the start
 * @param fetchedValueBytes  bytes of decided values that came back to this node in catch-up pages
 */
public record NodeStatus(int nodeId, List<RingStatus> rings, long lastDeliveredPosition, long proposalGapResends,
                         long fetchesSent, long fetchedValueBytes) {

    /**
     * @param coordinatorId           the coordinator as this node sees it
     * @param ballot                  the highest ballot this node knows for the ring
     * @param highestDecidedInstance  the highest instance known decided here (-1: none)
     * @param learnerNextInstance     the next instance the merge needs (-1: not a learner of the ring)
     * @param acceptorRejoining       this node's acceptor of the ring lost its state and has not yet rejoined
     *                                (ADR 074): it casts no vote
     */
    public record RingStatus(int ringId, int coordinatorId, long ballot, long highestDecidedInstance,
                             long learnerNextInstance, boolean acceptorRejoining) {
        @Override
        public String toString() {
            return "ring " + ringId + ": coordinator " + coordinatorId + " ballot " + Ballot.toString(ballot)
                    + " decided<=" + highestDecidedInstance + " learner@" + learnerNextInstance
                    + (acceptorRejoining ? " acceptor rejoining" : "");
        }
    }

    @Override
    public String toString() {
        return "node " + nodeId + " " + rings + " last " + Position.toString(lastDeliveredPosition);
    }
}
