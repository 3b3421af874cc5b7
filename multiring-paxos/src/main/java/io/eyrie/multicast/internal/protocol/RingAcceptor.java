package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.AcceptorLog.AcceptedValue;
import io.eyrie.multicast.internal.protocol.Message.Vote;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The acceptor of one ring: one promise for all instances (Phase 1 covers every instance from a
 * start on), per instance the accepted ballot and value and whether it is decided. The log is the
 * state: everything is appended before the step's messages leave (the runtime syncs first).
 */
final class RingAcceptor {
    /** Bytes a vote adds to a page besides its value (instance, ballot, flag, length), rounded up. */
    static final int VOTE_OVERHEAD_BYTES = 32;

    private final int ringId;
    private final AcceptorLog log;
    private final boolean forgetPromises;
    private long promisedBallot;
    private long highestInstance;
    /** Every instance below it is decided and held here (from the log's lowest instance on). */
    private long firstUndecided;
    /** The highest instance known decided here (-1: none). */
    private long highestDecided = -1;
    /** Per learner node: the instance below which it has checkpointed everything. */
    private final Map<Integer, Long> learnerCheckpoints = new HashMap<>();

    RingAcceptor(int ringId, AcceptorLog log, boolean forgetPromises) {
        this.ringId = ringId;
        this.log = log;
        this.forgetPromises = forgetPromises;
        AcceptorLog.RecoveredState rs = log.recovered();
        this.promisedBallot = rs.promisedBallot();
        this.highestInstance = Math.max(rs.highestInstance(), rs.lowestInstance() - 1);
        for (AcceptedValue a : rs.accepted().values()) {
            highestInstance = Math.max(highestInstance, a.instance());
            if (a.decided()) {
                highestDecided = Math.max(highestDecided, a.instance());
            }
        }
        this.firstUndecided = log.lowestInstance();
        advanceDecidedPrefix();
    }

    int ringId() {
        return ringId;
    }

    long promisedBallot() {
        return promisedBallot;
    }

    long highestInstance() {
        return highestInstance;
    }

    long firstUndecided() {
        return firstUndecided;
    }

    long highestDecided() {
        return Math.max(highestDecided, firstUndecided - 1);
    }

    long lowestInstance() {
        return log.lowestInstance();
    }

    /** Phase 1b: true if {@code ballot} is promised (now or already). */
    boolean promise(long ballot) {
        if (ballot < promisedBallot && !forgetPromises) {
            return false;
        }
        if (ballot > promisedBallot) {
            promisedBallot = ballot;
            log.appendPromise(ballot);
        }
        return true;
    }

    /** Votes of instances [from, nextFrom): one Phase 1b page; {@link #COMPLETE} if nothing is left. */
    record VotePage(List<Vote> votes, long nextFrom) {
        static final long COMPLETE = Long.MAX_VALUE;
    }

    /**
     * What this acceptor holds from {@code from} on (for a new coordinator's Phase 1), at most
     * {@code maxInstances} instances and about {@code maxBytes}; at least one vote if any.
     */
    VotePage votesFrom(long from, long maxInstances, int maxBytes) {
        List<Vote> votes = new ArrayList<>();
        long start = Math.max(from, log.lowestInstance());
        int bytes = 0;
        for (long i = start; i <= highestInstance; i++) {
            if (i - start >= maxInstances) {
                return new VotePage(votes, i);
            }
            Optional<AcceptedValue> a = log.read(i);
            if (a.isPresent()) {
                AcceptedValue v = a.get();
                // Stop before the page outgrows maxBytes (one value always goes): the page travels in
                // one frame, and a frame over the transport's limit is dropped, every time it is asked for.
                if (!votes.isEmpty() && bytes + v.value().length + VOTE_OVERHEAD_BYTES > maxBytes) {
                    return new VotePage(votes, i);
                }
                votes.add(new Vote(i, v.ballot(), v.decided(), v.value()));
                bytes += v.value().length + VOTE_OVERHEAD_BYTES;
            }
        }
        return new VotePage(votes, VotePage.COMPLETE);
    }

    /** Phase 2: true if this acceptor votes for {@code value} in {@code instance} at {@code ballot}. */
    boolean accept(long instance, long ballot, byte[] value) {
        if (!promise(ballot)) {
            return false;
        }
        if (instance < log.lowestInstance()) {
            // Trimmed, hence decided at a ballot this acceptor promised: a ballot that passed the
            // promise carries the decided value (see storeDecided), so this vote is harmless.
            return true;
        }
        long held = log.acceptedBallot(instance);
        if (held != AcceptorLog.NO_VOTE && (held == ballot || log.isDecided(instance))) {
            // Already voted for this ballot (a retransmission), or the instance is decided: its
            // value is the only one any higher ballot may carry.
            return true;
        }
        log.appendAccept(instance, ballot, value);
        highestInstance = Math.max(highestInstance, instance);
        return true;
    }

    /** Trimmed instances count as decided: trimming stays below the decided prefix. */
    boolean isDecided(long instance) {
        if (instance < log.lowestInstance()) {
            return true;
        }
        return log.isDecided(instance);
    }

    /** The decided value of {@code instance}, if held. */
    Optional<byte[]> decidedValue(long instance) {
        Optional<AcceptedValue> cur = log.read(instance);
        return cur.isPresent() && cur.get().decided() ? Optional.of(cur.get().value()) : Optional.empty();
    }

    /** The value accepted at exactly {@code ballot}, if held. */
    Optional<byte[]> valueAt(long instance, long ballot) {
        Optional<AcceptedValue> cur = log.read(instance);
        return cur.isPresent() && cur.get().ballot() == ballot ? Optional.of(cur.get().value()) : Optional.empty();
    }

    /** The value accepted at {@code ballot} is decided; true if this acceptor now knows it decided. */
    boolean decide(long instance, long ballot) {
        long held = log.acceptedBallot(instance);
        if (held == AcceptorLog.NO_VOTE) {
            return false;
        }
        if (!log.isDecided(instance)) {
            if (held != ballot) {
                return false;
            }
            log.appendDecision(instance, ballot);
        }
        highestDecided = Math.max(highestDecided, instance);
        advanceDecidedPrefix();
        return true;
    }

    /**
     * Stores a value known to be decided (it travelled past the quorum). Safe whatever the promise:
     * a decided value is the only value any ballot may carry for that instance.
     */
    void storeDecided(long instance, long ballot, byte[] value) {
        if (instance < log.lowestInstance() || isDecided(instance)) {
            return;
        }
        // Promise the decided ballot: a stale lower-ballot proposal for this instance must then be
        // refused rather than counted as a vote for an instance known decided (see accept).
        if (ballot > promisedBallot) {
            promisedBallot = ballot;
            log.appendPromise(ballot);
        }
        log.appendAccept(instance, ballot, value);
        log.appendDecision(instance, ballot);
        highestInstance = Math.max(highestInstance, instance);
        highestDecided = Math.max(highestDecided, instance);
        advanceDecidedPrefix();
    }

    /** Consecutive decided values from {@code from}, at most {@code maxCount} and about {@code maxBytes}. */
    List<Vote> decidedFrom(long from, int maxCount, int maxBytes) {
        List<Vote> out = new ArrayList<>();
        int bytes = 0;
        for (long i = Math.max(from, log.lowestInstance()); out.size() < maxCount; i++) {
            Optional<AcceptedValue> a = log.read(i);
            if (a.isEmpty() || !a.get().decided()) {
                break;
            }
            // As in votesFrom: the page must fit one frame, or the learner asking for it never gets it.
            if (!out.isEmpty() && bytes + a.get().value().length + VOTE_OVERHEAD_BYTES > maxBytes) {
                break;
            }
            out.add(new Vote(i, a.get().ballot(), true, a.get().value()));
            bytes += a.get().value().length + VOTE_OVERHEAD_BYTES;
        }
        return out;
    }

    /**
     * Records that {@code learner} checkpointed below {@code instance}; trims below the minimum
     * over {@code learners} once each has reported, and never above the decided prefix.
     */
    void learnerCheckpointed(int learner, long instance, int[] learners) {
        learnerCheckpoints.merge(learner, instance, Math::max);
        long min = Long.MAX_VALUE;
        for (int l : learners) {
            Long c = learnerCheckpoints.get(l);
            if (c == null) {
                return;
            }
            min = Math.min(min, c);
        }
        long trimTo = Math.min(min, firstUndecided);
        if (trimTo > log.lowestInstance()) {
            log.trimBelow(trimTo);
        }
    }

    private void advanceDecidedPrefix() {
        firstUndecided = Math.max(firstUndecided, log.lowestInstance());
        while (firstUndecided <= highestInstance) {
            if (!log.isDecided(firstUndecided)) {
                break;
            }
            firstUndecided++;
        }
    }
}
