package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.AcceptorLog.AcceptedValue;
import io.eyrie.multicast.internal.protocol.Message.Vote;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The acceptor of one ring: one promise for all instances (Phase 1 covers every instance from a
 * start on), per instance the accepted ballot and value and whether it is decided. The log is the
 * state: everything is appended before the step's messages leave (the runtime syncs first).
 *
 * <p>An acceptor whose log holds no promise may have lost its state (an in-memory log after a
 * restart, a wiped directory), and an acceptor that forgets votes and promises breaks Paxos. So it
 * starts <em>rejoining</em> (ADR 074): it casts no vote and makes no promise, but passes Phase 2 on
 * along the ring and keeps the decided values it learns. Once it has heard every other acceptor of
 * the ring (a heartbeat), it reads them all, Phase 1 style, at a ballot above every promise they
 * reported: each reply comes from an acceptor that promised at least that ballot, hence above any
 * ballot this acceptor may have voted in before, so nothing it sent before can add a vote there
 * afterwards. It adopts the highest-ballot vote of each instance as its own: any value chosen with a
 * vote it lost had another voter, whose vote (or a later one for the same value) it now holds. Then
 * it promises the read's ballot (in its log: a restart after that is an ordinary one) and votes again.
 * A rejoining acceptor answers a Phase 1 with what it holds, marked as no promise: coordinators
 * ignore it, another rejoining acceptor reads it (at a ring's first start every acceptor rejoins).
 */
final class RingAcceptor {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RingAcceptor.class);
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

    /** The ring's other acceptors. */
    private final int[] others;
    /** Rejoining (see the class comment): no votes, no Phase 1 replies. */
    private boolean rejoining;
    /** While rejoining: the other acceptors that reported, and the highest promise among them. */
    private final java.util.Set<Integer> reported = new java.util.HashSet<>();
    private long reportedPromise = Ballot.NONE;
    /** While rejoining, once every other acceptor reported: the ballot of the read and the promise to join with. */
    private long readBallot = Ballot.NONE;
    /** The read, per other acceptor: {ballot asked at, next instance to ask for}; Long.MAX_VALUE: read. */
    private final Map<Integer, long[]> reads = new TreeMap<>();
    /** While rejoining: values passed on without a vote, by instance, so that a Decision can name them. */
    private final TreeMap<Long, AcceptedValue> passedOn = new TreeMap<>();
    private static final int PASSED_ON_MAX = 1024;

    RingAcceptor(int ringId, AcceptorLog log, boolean forgetPromises) {
        this(ringId, log, forgetPromises, new int[0], true);
    }

    /**
     * @param others the ring's other acceptors
     * @param trustEmptyLog take an empty log for a new acceptor and vote at once (the behaviour ADR 074
     *        replaced; kept as a planted fault for the simulation)
     */
    RingAcceptor(int ringId, AcceptorLog log, boolean forgetPromises, int[] others, boolean trustEmptyLog) {
        this.ringId = ringId;
        this.log = log;
        this.forgetPromises = forgetPromises;
        this.others = others.clone();
        AcceptorLog.RecoveredState rs = log.recovered();
        this.rejoining = !trustEmptyLog && rs.promisedBallot() == Ballot.NONE && others.length > 0;
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
        if (rejoining) {
            return false;
        }
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
        if (rejoining) {
            throw new IllegalStateException("a rejoining acceptor does not vote: passOn instead");
        }
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
            AcceptedValue p = passedOn.get(instance);
            if (p != null && p.ballot() == ballot) {
                storeDecided(instance, ballot, p.value());
                return isDecided(instance);
            }
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
        // A rejoining acceptor votes for nothing, and a promise in its log would make its next start
        // take it for one that completed its rejoin.
        if (ballot > promisedBallot && !rejoining) {
            promisedBallot = ballot;
            log.appendPromise(ballot);
        }
        log.appendAccept(instance, ballot, value);
        log.appendDecision(instance, ballot);
        highestInstance = Math.max(highestInstance, instance);
        highestDecided = Math.max(highestDecided, instance);
        advanceDecidedPrefix();
    }

    /** Rejoining: casts no vote and answers no Phase 1 (see the class comment). */
    boolean rejoining() {
        return rejoining;
    }

    /**
     * Rejoining: a Phase 2 value passed on along the ring without a vote; kept (not logged) so that the
     * Decision that names it by id can be learned.
     */
    void passOn(long instance, long ballot, byte[] value) {
        if (instance < firstUndecided || isDecided(instance)) {
            return;
        }
        passedOn.put(instance, new AcceptedValue(instance, ballot, value, false));
        while (passedOn.size() > PASSED_ON_MAX) {
            passedOn.pollFirstEntry();
        }
    }

    /**
     * Rejoining: another acceptor of the ring reported its promise (a heartbeat). Once every other one
     * has, the read begins, at a ballot above all those promises; true then (the caller asks {@link #readsPending}).
     */
    boolean peerReported(int peer, long peerPromise) {
        if (!rejoining || readBallot != Ballot.NONE || !isOther(peer)) {
            return false;
        }
        reported.add(peer);
        reportedPromise = Math.max(reportedPromise, peerPromise);
        if (reported.size() < others.length) {
            return false;
        }
        // Node id 0 is no node's: no coordinator ever holds this ballot.
        readBallot = Ballot.of(Ballot.round(reportedPromise) + 1, 0);
        for (int o : others) {
            reads.put(o, new long[] {readBallot, 0});
        }
        return true;
    }

    /** The peers whose read is still under way (none before it began, or once joined). */
    List<Integer> readsPending() {
        List<Integer> pending = new ArrayList<>();
        if (rejoining) {
            reads.forEach((peer, r) -> {
                if (r[1] != VotePage.COMPLETE) {
                    pending.add(peer);
                }
            });
        }
        return pending;
    }

    /** The next page to ask {@code peer} for: {ballot, from instance}; null if its read is not under way. */
    long[] readRequest(int peer) {
        long[] r = rejoining ? reads.get(peer) : null;
        return r == null || r[1] == VotePage.COMPLETE ? null : r.clone();
    }

    /**
     * Rejoining: {@code peer} refused the read's ballot, having promised {@code promise}. Its promise is
     * above the read's, which is all the read needs of it: ask again at that ballot. True if asked again.
     */
    boolean readRefused(int peer, long promise) {
        long[] r = rejoining ? reads.get(peer) : null;
        if (r == null || r[1] == VotePage.COMPLETE || promise <= r[0]) {
            return false;
        }
        r[0] = promise;
        return true;
    }

    /**
     * Rejoining: a page of {@code peer}'s votes for the read. Adopts the highest-ballot vote of each
     * instance; true if the page was the one asked for (the caller then asks for the next, if any).
     */
    boolean readReply(int peer, Message.Phase1b m) {
        long[] r = rejoining ? reads.get(peer) : null;
        if (r == null || r[1] == VotePage.COMPLETE || m.ballot() != r[0] || m.fromInstance() != r[1]) {
            return false;
        }
        peerTrimmedBelow(m.lowestInstance());
        for (Vote v : m.accepted()) {
            adopt(v);
        }
        r[1] = m.nextFrom() == VotePage.COMPLETE ? VotePage.COMPLETE : Math.max(m.nextFrom(), m.lowestInstance());
        tryJoin();
        return true;
    }

    private void adopt(Vote v) {
        if (v.instance() < log.lowestInstance() || isDecided(v.instance())) {
            return;
        }
        if (v.decided()) {
            storeDecided(v.instance(), v.ballot(), v.value());
            return;
        }
        long held = log.acceptedBallot(v.instance());
        if (held == AcceptorLog.NO_VOTE || held < v.ballot()) {
            log.appendAccept(v.instance(), v.ballot(), v.value());
            highestInstance = Math.max(highestInstance, v.instance());
        }
    }

    /**
     * Rejoining: another acceptor trimmed below {@code instance}, so every instance below it is decided
     * and checkpointed by every learner; this acceptor need not hold them.
     */
    void peerTrimmedBelow(long instance) {
        if (rejoining && instance > firstUndecided) {
            log.trimBelow(instance);
            highestInstance = Math.max(highestInstance, instance - 1);
            advanceDecidedPrefix();
        }
    }

    /** The ballot of the rejoin's read (NONE until every other acceptor reported). */
    long readBallot() {
        return readBallot;
    }

    private boolean isOther(int peer) {
        for (int o : others) {
            if (o == peer) {
                return true;
            }
        }
        return false;
    }

    private void tryJoin() {
        if (!rejoining || readBallot == Ballot.NONE) {
            return;
        }
        for (long[] r : reads.values()) {
            if (r[1] != VotePage.COMPLETE) {
                return;
            }
        }
        rejoining = false;
        passedOn.clear();
        reads.clear();
        promisedBallot = Math.max(promisedBallot, readBallot);
        log.appendPromise(promisedBallot);
        LOG.info("ring={}: acceptor rejoined holding instances {}..{}, promising at least {} (ADR 074)", ringId,
                log.lowestInstance(), highestInstance, Ballot.toString(promisedBallot));
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
