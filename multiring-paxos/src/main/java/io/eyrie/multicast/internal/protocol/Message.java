package io.eyrie.multicast.internal.protocol;

import java.util.List;

/** The messages nodes exchange; {@link MessageCodec} gives their wire form. */
sealed interface Message {

    /** Liveness plus, per ring the sender accepts, its promise and decided prefix. */
    record Heartbeat(List<RingSummary> rings) implements Message {
    }

    /**
     * @param firstUndecided every instance below it is decided and held by the sender
     * @param highestDecided the highest instance the sender knows decided
     */
    record RingSummary(int ring, long promisedBallot, long firstUndecided, long highestDecided) {
    }

    /**
     * Proposer to coordinator; a node that is not the coordinator forwards it once (then
     * {@code forwarded}) to the coordinator it sees, for a proposer whose view differs.
     */
    record Propose(int ring, Proposal proposal, boolean forwarded) implements Message {
    }

    /**
     * Several Propose messages to one node in one message: what a proposer's turn produced for the
     * same coordinator, so that a loaded proposer pays one frame per turn, not one per multicast.
     */
    record Proposes(List<Propose> proposes) implements Message {
    }

    /** Coordinator to proposer: these seqs of that incarnation are decided. */
    record Ordered(int ring, long incarnation, long[] seqs) implements Message {
    }

    record Phase1a(int ring, long ballot, long fromInstance) implements Message {
    }

    /**
     * The votes of instances [fromInstance, nextFrom) (a page: see ring.phase1Range); nextFrom is
     * Long.MAX_VALUE when the reply is complete. {@code notAPromise}: the sender is rejoining (ADR 074)
     * and promised nothing; only another rejoining acceptor reading the ring takes such a reply.
     */
    record Phase1b(int ring, long ballot, long fromInstance, long lowestInstance, long highestInstance, long nextFrom,
                   List<Vote> accepted, boolean notAPromise) implements Message {
        Phase1b(int ring, long ballot, long fromInstance, long lowestInstance, long highestInstance, long nextFrom,
                List<Vote> accepted) {
            this(ring, ballot, fromInstance, lowestInstance, highestInstance, nextFrom, accepted, false);
        }
    }

    /** What an acceptor holds for one instance. */
    record Vote(long instance, long ballot, boolean decided, byte[] value) {
    }

    /**
     * Phase 2 travelling along {@code route}: the first {@code acceptorHops} entries are acceptors,
     * the rest learners. {@code hop} is the index of the receiver.
     */
    record Accept(int ring, long ballot, long instance, int[] route, int acceptorHops, int hop, int votes,
                  boolean decided, byte[] value) implements Message {
    }

    /** Ids only: to route members that already hold the value. */
    record Decision(int ring, long ballot, long instance) implements Message {
    }

    /** An acceptor refused {@code ballot}-lower work: it promised {@code promisedBallot}. */
    record Nack(int ring, long promisedBallot) implements Message {
    }

    /** Learner catch-up: decided instances from {@code fromInstance}, at most {@code maxCount}. */
    record Fetch(int ring, long fromInstance, int maxCount) implements Message {
    }

    /**
     * Decided values (catch-up reply); {@code lowestInstance} tells a learner what was trimmed, and
     * {@code highestDecided} (the sender's highest decided instance, -1 for none) whether there is more.
     */
    record Learned(int ring, long lowestInstance, long highestDecided, List<Vote> decided) implements Message {
    }

    /** A learner's merge waits on ring {@code ring} at {@code instance}, whose first slot is {@code slot}. */
    record SkipRequest(int ring, long instance, long slot, long targetSlot) implements Message {
    }

    /** A learner durably checkpointed everything below {@code instance} of the ring. */
    record Checkpointed(int ring, long instance) implements Message {
    }

    /** An application message sharing the node's connections. */
    record Direct(byte[] payload) implements Message {
    }
}
