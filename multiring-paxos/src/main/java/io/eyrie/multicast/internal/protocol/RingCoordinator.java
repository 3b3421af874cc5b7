package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.internal.protocol.Message.*;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The coordinator of one ring, active while this node is the first acceptor (config order) it
 * does not suspect. Phase 1 with a ballot above any seen, covering every instance from its own
 * decided prefix on; re-proposal of what Phase 1 finds (a zero-slot skip for a gap); then Phase 2
 * of queued proposals in opportunistic batches, at most ring.maxInFlight undecided at once.
 */
final class RingCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(RingCoordinator.class);
    static final int MAX_QUEUE = 4096;
    static final int RECENTLY_DECIDED = 4096;

    enum Phase { IDLE, PHASE1, ACTIVE }

    interface Sender {
        void send(int to, Message m);
    }

    /**
     * Most bytes of values launched and not yet decided (besides ring.maxInFlight instances), at
     * least one value: half of a peer link's default outbound queue (8 MiB). With large batches (a
     * Volery cluster allows 1 MiB, one jute.maxbuffer request) 64 instances in flight were 64 MiB:
     * the links dropped what did not fit and the ring stalled in retransmission back-off (10 KB
     * setData fell to 63 requests/s at a 15 % cap while ZooKeeper did 1,155).
     */
    static final long MAX_IN_FLIGHT_BYTES = 4L << 20;

    private static final class InFlight {
        final byte[] value;
        /** {@code value} decoded: this node's learner takes it instead of decoding the bytes again. */
        final RingValue decoded;
        final List<ProposalId> ids;
        /** Merge slots the value takes: 1 for a batch, k for a skip of k. */
        final long slots;
        final long launchedMillis;
        long lastSentMillis;
        int retransmissions;

        InFlight(byte[] value, RingValue decoded, List<ProposalId> ids, long slots, long now) {
            this.value = value;
            this.decoded = decoded;
            this.ids = ids;
            this.slots = slots;
            this.launchedMillis = now;
            this.lastSentMillis = now;
        }
    }

    private final ClusterConfig.Ring ring;
    private final int self;
    private final ClusterConfig.Parameters params;
    private final FailureDetector fd;
    private final RingAcceptor acceptor;
    private final Sender net;

    private Phase phase = Phase.IDLE;
    private long ballot = Ballot.NONE;
    private long maxBallotSeen = Ballot.NONE;
    /**
     * Per other acceptor of the ring, the decided prefix it last reported: below the highest nothing
     * needs re-proposing. The last report, not the highest ever: an acceptor that lost its state (ADR 074)
     * no longer holds what it once reported, and an instance below a prefix nobody holds was never
     * proposed again (a ring stalled on it).
     */
    private final Map<Integer, Long> reportedPrefixes = new HashMap<>();
    private long retryAtMillis;
    /** The first instance of the Phase 1 page being collected. */
    private long phase1From;
    /** The highest instance any Phase 1 reply reported so far. */
    private long phase1Highest;
    private long phase1SentMillis;
    private final Map<Integer, Phase1b> phase1Replies = new HashMap<>();
    private long nextInstance;
    private final TreeMap<Long, byte[]> reproposals = new TreeMap<>();
    private final ArrayDeque<Proposal> queue = new ArrayDeque<>();
    /** Sum of {@link Proposal#encodedSize()} over {@link #queue}. */
    private long queuedBytes;
    private final Set<ProposalId> queuedIds = new HashSet<>();
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();
    /** Bytes of the values in {@link #inFlight}. */
    private long inFlightBytes;
    /** Moving average of launch-to-decision time of values decided without a retransmission (ms). */
    private long decisionMillisAverage;
    private final Set<ProposalId> inFlightIds = new HashSet<>();
    /** No in-flight instance is due for retransmission before this (a lower bound). */
    private long inFlightDueMillis = Long.MAX_VALUE;
    /** When the queue last went from empty to not empty (ring.lingerMillis counts from here; ADR 087). */
    private long queuedSinceMillis = Long.MAX_VALUE;
    private final LinkedHashMap<ProposalId, Boolean> recentlyDecided = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ProposalId, Boolean> eldest) {
            return size() > RECENTLY_DECIDED;
        }
    };

    RingCoordinator(ClusterConfig.Ring ring, int self, ClusterConfig.Parameters params, FailureDetector fd,
                    RingAcceptor acceptor, Sender net, long startMillis) {
        this.ring = ring;
        this.self = self;
        this.params = params;
        this.fd = fd;
        this.acceptor = acceptor;
        this.net = net;
        // Hear the other acceptors' decided prefixes first, so that Phase 1 after a restart does
        // not ask for (and re-propose) everything since the beginning.
        this.retryAtMillis = startMillis + 2 * params.heartbeatIntervalMillis();
    }

    Phase phase() {
        return phase;
    }

    long ballot() {
        return ballot;
    }

    long maxBallotSeen() {
        return Math.max(maxBallotSeen, Math.max(ballot, acceptor.promisedBallot()));
    }

    long nextInstance() {
        return nextInstance;
    }

    void observeBallot(long b) {
        maxBallotSeen = Math.max(maxBallotSeen, b);
    }

    void observeDecidedPrefix(int acceptor, long firstUndecided) {
        if (ring.isAcceptor(acceptor) && acceptor != self) {
            reportedPrefixes.put(acceptor, firstUndecided);
        }
    }

    void tick(long now) {
        if (fd.coordinatorOf(ring, now) != self) {
            if (phase != Phase.IDLE) {
                stepDown();
            }
            return;
        }
        switch (phase) {
            case IDLE -> {
                if (now >= retryAtMillis) {
                    startPhase1(now);
                }
            }
            case PHASE1 -> {
                if (now - phase1SentMillis >= params.retransmitTimeoutMillis()) {
                    phase1SentMillis = now;
                    for (int a : ring.acceptors()) {
                        if (!phase1Replies.containsKey(a)) {
                            net.send(a, new Phase1a(ring.id(), ballot, phase1From));
                        }
                    }
                }
            }
            case ACTIVE -> {
                if (now >= inFlightDueMillis) {
                    long earliest = Long.MAX_VALUE;
                    long resent = 0;
                    for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
                        InFlight f = e.getValue();
                        // Back off like the proposers: a loaded ring is slow, not lossy, and resending
                        // whole batches every timeout would multiply its load. For the same reason at
                        // most about one batch of bytes goes out again per timeout, oldest first: with
                        // megabyte batches on a CPU-capped node, resending every overdue batch at once
                        // overran the peer links' queues, whose drops made more batches overdue.
                        if (now - f.lastSentMillis >= retransmitWait(f)) {
                            if (resent > 0 && resent + f.value.length > params.batchMaxBytes()) {
                                earliest = Math.min(earliest, now + params.retransmitTimeoutMillis());
                                continue;
                            }
                            resent += f.value.length;
                            f.lastSentMillis = now;
                            f.retransmissions++;
                            sendAccept(e.getKey(), f.value, now);
                        }
                        earliest = Math.min(earliest, f.lastSentMillis + retransmitWait(f));
                    }
                    inFlightDueMillis = earliest;
                }
                pump(now);
            }
        }
    }

    /**
     * The configured timeout, or four times the usual time to a decision when the ring is slower
     * than that (a loaded, CPU-capped ring takes hundreds of milliseconds for megabyte batches, and
     * resending them after 100 ms only loaded it more), doubled per retransmission up to 16x.
     */
    private long retransmitWait(InFlight f) {
        long base = Math.max(params.retransmitTimeoutMillis(), Math.min(4 * decisionMillisAverage, 10_000));
        return base << Math.min(f.retransmissions, 4);
    }

    /**
     * When {@link #tick} may next have something to do (Long.MAX_VALUE: only after a message or a
     * change of suspicion); the runtime sleeps until then. Never later than the truth.
     */
    long nextTickMillis(long now) {
        return switch (phase) {
            case IDLE -> fd.coordinatorOf(ring, now) == self ? retryAtMillis : fd.nextSuspicionMillis(ring, self, now);
            case PHASE1 -> phase1SentMillis + params.retransmitTimeoutMillis();
            case ACTIVE -> Math.min(Math.min(inFlight.isEmpty() ? Long.MAX_VALUE : inFlightDueMillis, lingerEndsMillis()),
                    fd.coordinatorOf(ring, now) == self ? Long.MAX_VALUE : now);
        };
    }

    private void startPhase1(long now) {
        long seen = maxBallotSeen();
        ballot = Ballot.of(Ballot.round(seen) + 1, self);
        phase = Phase.PHASE1;
        phase1Replies.clear();
        // Instances below another acceptor's decided prefix are decided and held there (learners and
        // this acceptor fetch them): only what may be undecided needs Phase 1 and re-proposal.
        long reportedPrefix = 0;
        for (long p : reportedPrefixes.values()) {
            reportedPrefix = Math.max(reportedPrefix, p);
        }
        phase1From = Math.max(acceptor.firstUndecided(), reportedPrefix);
        phase1Highest = phase1From - 1;
        reproposals.clear();
        phase1SentMillis = now;
        for (int a : ring.acceptors()) {
            net.send(a, new Phase1a(ring.id(), ballot, phase1From));
        }
    }

    /**
     * Collects a quorum of replies for the current page; re-proposes the highest-ballot vote of
     * each instance (a zero-slot skip where the quorum has none), then asks for the next page
     * (same ballot: the promise covers every instance) until no reply knows anything beyond.
     */
    void onPhase1b(int from, Phase1b m, long now) {
        if (phase != Phase.PHASE1 || m.ballot() != ballot || m.fromInstance() != phase1From) {
            return;
        }
        phase1Replies.put(from, m);
        if (phase1Replies.size() < ring.quorum()) {
            return;
        }
        // Instances an acceptor trimmed are decided and held by every learner: never re-propose them,
        // as that acceptor no longer reports its vote.
        long pageFrom = phase1From;
        long covered = Long.MAX_VALUE;
        for (Phase1b r : phase1Replies.values()) {
            pageFrom = Math.max(pageFrom, r.lowestInstance());
            phase1Highest = Math.max(phase1Highest, r.highestInstance());
            covered = Math.min(covered, r.nextFrom());
        }
        TreeMap<Long, Vote> best = new TreeMap<>();
        for (Phase1b r : phase1Replies.values()) {
            for (Vote v : r.accepted()) {
                if (v.instance() < pageFrom || v.instance() >= covered) {
                    continue;
                }
                Vote cur = best.get(v.instance());
                if (cur == null || (!cur.decided() && (v.decided() || v.ballot() > cur.ballot()))) {
                    best.put(v.instance(), v);
                }
            }
        }
        long end = Math.min(covered, phase1Highest + 1);
        for (long i = pageFrom; i < end; i++) {
            Vote v = best.get(i);
            // A gap nobody in the quorum accepted was never decided: fill it with a no-op.
            reproposals.put(i, v != null ? v.value() : RingValue.encodeSkip(0));
        }
        phase1Replies.clear();
        if (covered > phase1Highest) {
            nextInstance = Math.max(phase1Highest + 1, pageFrom);
            phase = Phase.ACTIVE;
            LOG.debug("ring {}: node {} coordinates with ballot {}, re-proposing {} instances, next instance {}",
                    ring.id(), self, Ballot.toString(ballot), reproposals.size(), nextInstance);
            pump(now);
            return;
        }
        phase1From = Math.max(covered, pageFrom);
        phase1SentMillis = now;
        for (int a : ring.acceptors()) {
            net.send(a, new Phase1a(ring.id(), ballot, phase1From));
        }
    }

    /** Leading, or about to (first in line): proposals are queued here. */
    boolean takesProposals(long now) {
        return phase != Phase.IDLE || fd.coordinatorOf(ring, now) == self;
    }

    /**
     * Queues a proposal; with {@code launchNow} also launches what the in-flight bound allows (else
     * the caller calls {@link #proposalsArrived} after the last of several).
     */
    void onPropose(Proposal p, long now, boolean launchNow) {
        if (!takesProposals(now)) {
            return;
        }
        ProposalId id = p.id();
        if (recentlyDecided.containsKey(id)) {
            net.send(p.node(), new Ordered(ring.id(), p.incarnation(), new long[] {p.seq()}));
            return;
        }
        if (queuedIds.contains(id) || inFlightIds.contains(id) || queue.size() >= MAX_QUEUE) {
            return;
        }
        if (queue.isEmpty()) {
            queuedSinceMillis = now;
        }
        queue.add(p);
        queuedBytes += p.encodedSize();
        queuedIds.add(id);
        if (launchNow) {
            proposalsArrived(now);
        }
    }

    /** Launches what is queued as far as the in-flight bound allows. */
    void proposalsArrived(long now) {
        if (phase == Phase.ACTIVE) {
            pump(now);
        }
    }

    /**
     * Proposes what is queued. A batch that is not full goes out only while fewer than
     * ring.partialBatchesInFlight instances are undecided: an idle ring launches a proposal at once,
     * and a busy one lets proposals gather into fuller batches behind the instances in flight
     * instead of spending an Accept, a Decision and their system calls on every few proposals (on
     * CPU-capped nodes, 4 rings each launching batches of about 10 commands spent 1.8x the CPU per
     * command of one ring with batches of hundreds). Full batches go out up to ring.maxInFlight. A
     * batch is full at batch.maxMessages proposals or at batch.targetBytes (batch.maxBytes if smaller):
     * a proposal that would take it past that waits for the next batch, unless it is the first (ADR 045).
     */
    private void pump(long now) {
        while (phase == Phase.ACTIVE && inFlight.size() < params.maxInFlightInstances()
                && (inFlight.isEmpty() || inFlightBytes < MAX_IN_FLIGHT_BYTES)) {
            if (!reproposals.isEmpty()) {
                Map.Entry<Long, byte[]> e = reproposals.pollFirstEntry();
                relaunch(e.getKey(), e.getValue(), now);
                continue;
            }
            if (queue.isEmpty()) {
                queuedSinceMillis = Long.MAX_VALUE;
                return;
            }
            int closeBytes = params.batchCloseBytes();
            boolean fullBatch = queue.size() >= params.batchMaxMessages() || RingValue.BATCH_HEADER_BYTES + queuedBytes >= closeBytes;
            if (!fullBatch && inFlight.size() >= params.partialBatchesInFlight()) {
                return; // the next decision (onDecided pumps) launches what gathered meanwhile
            }
            if (!fullBatch && params.lingerMillis() > 0 && now < queuedSinceMillis + params.lingerMillis()) {
                return; // ring.lingerMillis: a partial batch waits that long for company (the tick launches it)
            }
            List<Proposal> batch = new ArrayList<>(Math.min(queue.size(), params.batchMaxMessages()));
            List<ProposalId> ids = new ArrayList<>(Math.min(queue.size(), params.batchMaxMessages()));
            int bytes = RingValue.BATCH_HEADER_BYTES;
            while (!queue.isEmpty() && batch.size() < params.batchMaxMessages()
                    && (batch.isEmpty() || bytes + queue.peek().encodedSize() <= closeBytes)) {
                Proposal p = queue.poll();
                queuedBytes -= p.encodedSize();
                ProposalId id = p.id();
                queuedIds.remove(id);
                batch.add(p);
                ids.add(id);
                bytes += p.encodedSize();
            }
            launch(nextInstance++, RingValue.encodeBatch(batch), new RingValue.Batch(batch), ids, 1, now);
        }
    }

    /**
     * When a partial batch that waits only for ring.lingerMillis may go (Long.MAX_VALUE: nothing lingers). Not
     * while the in-flight bound holds it anyway: a decision launches it then, and the tick need not come sooner.
     */
    private long lingerEndsMillis() {
        if (params.lingerMillis() == 0 || queue.isEmpty() || inFlight.size() >= params.partialBatchesInFlight()) {
            return Long.MAX_VALUE;
        }
        return queuedSinceMillis + params.lingerMillis();
    }

    /** Launches a value found by Phase 1, whose proposals this coordinator must learn from its bytes. */
    private void relaunch(long instance, byte[] value, long now) {
        List<ProposalId> ids = new ArrayList<>();
        RingValue decoded = RingValue.decode(value);
        if (decoded instanceof RingValue.Batch b) {
            for (Proposal p : b.proposals()) {
                ids.add(p.id());
            }
        }
        launch(instance, value, decoded, ids, decoded.slots(), now);
    }

    private void launch(long instance, byte[] value, RingValue decoded, List<ProposalId> ids, long slots, long now) {
        InFlight previous = inFlight.put(instance, new InFlight(value, decoded, ids, slots, now));
        inFlightBytes += value.length - (previous == null ? 0 : previous.value.length);
        inFlightDueMillis = Math.min(inFlightDueMillis, now + params.retransmitTimeoutMillis());
        inFlightIds.addAll(ids);
        sendAccept(instance, value, now);
    }

    /** Phase 2 along the ring: live acceptors from this one on, then the other live learners. */
    private void sendAccept(long instance, byte[] value, long now) {
        int[] acceptors = ring.acceptors();
        int start = 0;
        while (acceptors[start] != self) {
            start++;
        }
        List<Integer> route = new ArrayList<>();
        for (int k = 0; k < acceptors.length; k++) {
            int a = acceptors[(start + k) % acceptors.length];
            if (!fd.suspected(a, now)) {
                route.add(a);
            }
        }
        int acceptorHops = route.size();
        if (acceptorHops < ring.quorum()) {
            return; // no live majority: retransmission tries again when suspicion clears
        }
        for (int l : ring.learners()) {
            if (!route.contains(l) && !fd.suspected(l, now)) {
                route.add(l);
            }
        }
        int[] r = route.stream().mapToInt(Integer::intValue).toArray();
        net.send(self, new Accept(ring.id(), ballot, instance, r, acceptorHops, 0, 0, false, value));
    }

    /**
     * The decoded form of {@code value} if it is the very array this coordinator launched in
     * {@code instance} (still undecided here), else null: the local learner then skips decoding it.
     */
    RingValue launched(long instance, byte[] value) {
        InFlight f = inFlight.get(instance);
        return f != null && f.value == value ? f.decoded : null;
    }

    /** {@code instance} was decided at {@code decidedBallot}. */
    void onDecided(long instance, long decidedBallot, long now) {
        if (phase != Phase.ACTIVE || decidedBallot != ballot) {
            return;
        }
        InFlight f = inFlight.remove(instance);
        if (f == null) {
            return;
        }
        inFlightBytes -= f.value.length;
        if (f.retransmissions == 0) {
            long sample = Math.max(0, now - f.launchedMillis);
            decisionMillisAverage = decisionMillisAverage == 0 ? sample : (7 * decisionMillisAverage + sample) / 8;
        }
        List<ProposalId> ids = f.ids;
        long[] seqs = new long[ids.size()];
        for (int i = 0; i < ids.size(); ) {
            // One notice per run of the same proposer incarnation (a batch holds long runs: the
            // proposals of one proposer's turn arrive together); the runtime merges them per turn.
            ProposalId first = ids.get(i);
            int n = 0;
            for (; i < ids.size() && ids.get(i).node() == first.node()
                    && ids.get(i).incarnation() == first.incarnation(); i++) {
                ProposalId id = ids.get(i);
                inFlightIds.remove(id);
                recentlyDecided.put(id, Boolean.TRUE);
                seqs[n++] = id.seq();
            }
            net.send(first.node(), new Ordered(ring.id(), first.incarnation(), java.util.Arrays.copyOf(seqs, n)));
        }
        pump(now);
    }

    /** Someone holds a higher ballot: step down, and try again later if still first in line. */
    void onNack(long promisedBallot, long now) {
        observeBallot(promisedBallot);
        if (phase != Phase.IDLE && promisedBallot > ballot) {
            stepDown();
            retryAtMillis = now + params.retransmitTimeoutMillis();
        }
    }

    /**
     * A learner waits on this ring at {@code instance}: if nothing is queued or undecided, order a
     * skip covering the slots it needs, and more so that a busy peer ring is not stopped again soon.
     */
    void onSkipRequest(SkipRequest r, long now) {
        if (phase != Phase.ACTIVE || !reproposals.isEmpty() || r.instance() > nextInstance
                || r.targetSlot() <= r.slot()) {
            return;
        }
        // Where this ring's slot stream ends once everything launched is decided: the learner knows
        // where instance r.instance() starts, this coordinator the slots of what it launched since.
        // Waiting for in-flight instances to be decided first would cost the merge a round trip per
        // skip, which under load is what makes an idle ring tax a busy one.
        long frontier = r.slot();
        for (long i = r.instance(); i < nextInstance; i++) {
            InFlight f = inFlight.get(i);
            if (f == null) {
                // Decided since the learner asked: its next request will say where it stands.
                return;
            }
            frontier += f.slots;
        }
        if (frontier > r.targetSlot()) {
            return;
        }
        // A little beyond the need: the learner already asks for everything its busy rings hold,
        // and skipping further ahead would only delay this ring's own next values (measured:
        // doubling the gap halved the throughput of two merged busy rings).
        long gap = r.targetSlot() - frontier + 1;
        long slots = gap + 16L * params.slotsPerRound();
        launch(nextInstance++, RingValue.encodeSkip(slots), new RingValue.Skip(slots), List.of(), slots, now);
    }

    private void stepDown() {
        LOG.debug("ring {}: node {} steps down from ballot {} (highest seen {})", ring.id(), self,
                Ballot.toString(ballot), Ballot.toString(maxBallotSeen()));
        phase = Phase.IDLE;
        phase1Replies.clear();
        reproposals.clear();
        queue.clear();
        queuedBytes = 0;
        queuedIds.clear();
        inFlight.clear();
        inFlightBytes = 0;
        inFlightIds.clear();
    }
}
