package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastException;
import io.eyrie.multicast.internal.protocol.Message.*;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * All protocol roles of one node (proposer, coordinator and acceptor per ring it accepts, learner
 * and merge over the rings it learns) as one deterministic state machine: no threads, sockets,
 * clocks or randomness. The runtime feeds it messages, ticks and proposals; after each step it
 * syncs the acceptor logs, then sends what the step produced.
 *
 * <p>Not thread-safe: one thread (the node's event loop) calls everything. {@code incarnation}
 * must grow with every process start of the node (a restart counter or the start time): learners
 * keep dedup state for the latest few incarnations of each proposer and drop older ones.
 */
public final class NodeProtocol {
    /** Catch-up asks for at most this many instances per fetch. */
    static final int FETCH_MAX_INSTANCES = 64;
    /**
     * A Phase 1b page carries at most one batch's worth of votes (batch.maxBytes): the transport's
     * frame limit is batch.maxBytes plus 64 KiB, and a larger page (four batches' worth before) was
     * dropped at every attempt, so that a coordinator taking over a ring of large values never
     * finished Phase 1.
     */
    static final int PHASE1_PAGE_BATCHES = 1;

    /** Test-only fault switches; production code uses {@link #NONE}. */
    record Faults(boolean acceptorsForgetPromises, boolean learnersKeepDuplicates, boolean acceptorsTrustEmptyLogs) {
        static final Faults NONE = new Faults(false, false, false);

        Faults(boolean acceptorsForgetPromises, boolean learnersKeepDuplicates) {
            this(acceptorsForgetPromises, learnersKeepDuplicates, false);
        }
    }

    /** Test hook: told of every (ring, instance, value) this node learns as decided. */
    interface DecisionObserver {
        void decided(int ring, long instance, byte[] value);
    }

    private final ClusterConfig config;
    private final ClusterConfig.Parameters params;
    private final int nodeId;
    private final FailureDetector fd;
    private final Proposer proposer;
    private final Merger merger;
    private final Map<Integer, RingAcceptor> acceptors = new TreeMap<>();
    private final Map<Integer, RingCoordinator> coordinators = new TreeMap<>();
    /** Per ring: acceptor -> what it last reported (its decided prefix and highest decided). */
    private final Map<Integer, Map<Integer, RingSummary>> reported = new HashMap<>();
    private final Map<Integer, Long> lastFetchMillis = new HashMap<>();
    private final Map<Integer, Long> lastAcceptorFetchMillis = new HashMap<>();
    /** Per ring where this acceptor's decided prefix lags: {the prefix reported ahead, when first seen}. */
    private final Map<Integer, long[]> acceptorLag = new HashMap<>();
    /** Per ring where this learner waits with nothing later buffered: {the instance, since when}. */
    private final Map<Integer, long[]> learnerLag = new HashMap<>();
    /** Fetches sent and bytes of values received in Learned pages (for monitoring). */
    private long fetchesSent;
    private long fetchedValueBytes;
    /** Rotates learner fetches over acceptors that may hold a decision nobody holds a prefix to. */
    private int fetchRotation;
    private final Map<Integer, long[]> lastSkipRequest = new HashMap<>();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NodeProtocol.class);
    /** Rings on which this learner was told it needs trimmed instances (reported once each). */
    private final java.util.Set<Integer> trimmedGapsReported = new java.util.HashSet<>();
    private Map<Integer, Long> checkpointedInstances = Map.of();
    private long lastHeartbeatMillis = Long.MIN_VALUE / 2;
    /** When a rejoining acceptor last asked for a page of its read (retransmitted after a timeout). */
    private long lastReadMillis = Long.MIN_VALUE / 2;
    /** The nodes that use this node's heartbeats (see {@link #heartbeatPeers}). */
    private final int[] heartbeatPeers;
    /** Spreads proposals over a ring's acceptors while this node trusts none of them. */
    private int proposalRotation;
    private final ArrayDeque<Message> toSelf = new ArrayDeque<>();
    /** Set by a runtime that calls {@link #endTurn}: Ordered notices wait for it and go out merged. */
    private boolean coalesceOrdered;
    /** Ordered notices of this turn, merged per proposer node, ring and incarnation. */
    private final Map<OrderedTo, LongList> orderedThisTurn = new java.util.LinkedHashMap<>();

    private record OrderedTo(int node, int ring, long incarnation) {
    }
    /** Propose messages of this turn to other nodes, per target node (see {@link #coalesceOrderedPerTurn}). */
    private final Map<Integer, List<Propose>> proposesThisTurn = new TreeMap<>();
    private Output out;
    private long now;
    private DecisionObserver decisionObserver;

    public NodeProtocol(ClusterConfig config, int nodeId, long incarnation, Map<Integer, AcceptorLog> acceptorLogs,
                        byte[] learnerCheckpoint, long nowMillis) {
        this(config, nodeId, incarnation, acceptorLogs, learnerCheckpoint, nowMillis, Faults.NONE);
    }

    NodeProtocol(ClusterConfig config, int nodeId, long incarnation, Map<Integer, AcceptorLog> acceptorLogs,
                 byte[] learnerCheckpoint, long nowMillis, Faults faults) {
        this.config = config;
        this.params = config.parameters();
        this.nodeId = nodeId;
        ClusterConfig.Node node = config.node(nodeId);
        int[] accepted = config.ringsAcceptedBy(nodeId);
        int[] given = acceptorLogs.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        if (!Arrays.equals(accepted, given)) {
            throw new IllegalArgumentException("node " + nodeId + " is an acceptor of rings " + Arrays.toString(accepted)
                    + " but acceptor logs were given for rings " + Arrays.toString(given));
        }
        this.fd = new FailureDetector(config, nodeId, nowMillis);
        this.proposer = new Proposer(nodeId, incarnation, params.retransmitTimeoutMillis());
        this.merger = new Merger(config.ringsLearnedBy(nodeId), params.slotsPerRound(), node.groups(), learnerCheckpoint);
        merger.keepDuplicates = faults.learnersKeepDuplicates();
        for (int r : accepted) {
            int[] others = Arrays.stream(config.ring(r).acceptors()).filter(x -> x != nodeId).toArray();
            RingAcceptor a = new RingAcceptor(r, acceptorLogs.get(r), faults.acceptorsForgetPromises(), others,
                    faults.acceptorsTrustEmptyLogs());
            if (a.rejoining()) {
                LOG.info("node={} ring={}: the acceptor log holds no promise (a new ring, or a lost log), so this "
                        + "acceptor rejoins: no votes until it has heard every other acceptor of the ring and read their "
                        + "logs (ADR 074)", nodeId, r);
            }
            acceptors.put(r, a);
            coordinators.put(r, new RingCoordinator(config.ring(r), nodeId, params, fd, a, this::send, nowMillis));
        }
        this.heartbeatPeers = heartbeatPeers(config, nodeId);
        this.now = nowMillis;
    }

    /**
     * Who needs to hear from {@code self} regularly: for each ring it accepts, the ring's other
     * acceptors (coordinator election, decided prefixes) and learners (catch-up targets); for each
     * ring it learns, the ring's acceptors (a coordinator routes Phase 2 past suspected learners).
     * Nobody else looks at this node's liveness, so all-to-all heartbeats would only cost CPU: a
     * node that only proposes to a ring learns its coordinator from replies (see {@link #proposalTarget}).
     */
    static int[] heartbeatPeers(ClusterConfig config, int self) {
        java.util.TreeSet<Integer> peers = new java.util.TreeSet<>();
        for (ClusterConfig.Ring r : config.rings().values()) {
            if (r.isAcceptor(self)) {
                for (int a : r.acceptors()) {
                    peers.add(a);
                }
                for (int l : r.learners()) {
                    peers.add(l);
                }
            } else if (r.isLearner(self)) {
                for (int a : r.acceptors()) {
                    peers.add(a);
                }
            }
        }
        peers.remove(self);
        return peers.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Where to send a proposal for {@code ring}: the coordinator as this node sees it. A node that
     * trusts none of the ring's acceptors (it hears no heartbeats from a ring it neither accepts
     * nor learns) tries them in turn; any live one forwards the proposal to its coordinator.
     */
    private int proposalTarget(ClusterConfig.Ring ring) {
        for (int a : ring.acceptors()) {
            if (!fd.suspected(a, now)) {
                return a;
            }
        }
        return ring.acceptors()[Math.floorMod(proposalRotation++, ring.acceptors().length)];
    }

    void observeDecisions(DecisionObserver observer) {
        this.decisionObserver = observer;
    }

    public int nodeId() {
        return nodeId;
    }

    // ---- entry points -------------------------------------------------------------------------

    /**
     * A message decoded and validated, opaque outside this package: a runtime decodes on the thread
     * that received the bytes (no copy of them, and off the event loop) and hands this over.
     */
    public static final class Inbound {
        private final Message message;

        private Inbound(Message message) {
            this.message = message;
        }
    }

    /** Decodes {@code message} (read only during the call); throws MalformedMessageException on bad bytes. */
    public static Inbound decode(ByteBuffer message) {
        return new Inbound(MessageCodec.decode(message));
    }

    public void onMessage(int fromNodeId, ByteBuffer message, long nowMillis, Output out) {
        onMessage(fromNodeId, decode(message), nowMillis, out);
    }

    public void onMessage(int fromNodeId, Inbound inbound, long nowMillis, Output out) {
        if (!config.nodes().containsKey(fromNodeId)) {
            throw new MalformedMessageException("message from node " + fromNodeId + ", which is not in the cluster file");
        }
        Message m = inbound.message;
        Output outer = begin(nowMillis, out);
        fd.heard(fromNodeId, nowMillis);
        dispatch(fromNodeId, m);
        finish(outer);
    }

    public void onTick(long nowMillis, Output out) {
        Output outer = begin(nowMillis, out);
        if (now - lastHeartbeatMillis >= params.heartbeatIntervalMillis()) {
            lastHeartbeatMillis = now;
            heartbeat();
        }
        for (RingCoordinator c : coordinators.values()) {
            c.tick(now);
        }
        if (now - lastReadMillis >= params.retransmitTimeoutMillis()) {
            for (RingAcceptor a : acceptors.values()) {
                if (a.rejoining()) {
                    sendReads(a);
                }
            }
        }
        for (Propose p : proposer.due(now)) {
            send(proposalTarget(config.ring(p.ring())), p);
        }
        catchUp();
        finish(outer);
    }

    /**
     * The earliest time {@link #onTick} may have work (a heartbeat, a retransmission, a Phase 1
     * retry, a coordinator takeover, a catch-up fetch). A runtime may sleep until then unless a
     * message or proposal arrives first; it never needs to tick sooner. A lower bound, never later
     * than the heartbeat that is due next.
     */
    public long nextTickMillis() {
        long next = lastHeartbeatMillis + params.heartbeatIntervalMillis();
        next = Math.min(next, proposer.nextDueMillis());
        for (RingCoordinator c : coordinators.values()) {
            next = Math.min(next, c.nextTickMillis(now));
        }
        for (RingAcceptor a : acceptors.values()) {
            if (a.rejoining() && !a.readsPending().isEmpty()) {
                next = Math.min(next, lastReadMillis + params.retransmitTimeoutMillis());
            }
        }
        for (int ringId : merger.ringIds()) {
            next = Math.min(next, learnerFetchDue(ringId, merger.stream(ringId)));
        }
        Merger.RingStream blocked = merger.blockedOn();
        if (blocked != null && merger.slotsNeededFrom(blocked) >= 0) {
            // A lost skip request is asked again after a timeout (see requestSkip).
            long[] last = lastSkipRequest.get(blocked.ringId);
            next = Math.min(next, last == null ? now : last[1] + params.retransmitTimeoutMillis());
        }
        for (RingAcceptor a : acceptors.values()) {
            next = Math.min(next, acceptorFetchDue(a, aheadOf(a)));
        }
        return next;
    }

    /**
     * When the learner of ring {@code ringId}, waiting at {@code s.nextInstance}, fetches it (see
     * {@link #catchUp}): never ({@link Long#MAX_VALUE}) if it holds the instance or nobody reports it
     * decided; now if a new lag is to be noted; else a retransmission timeout after the lag was noted (only
     * when nothing later is buffered) and after the last fetch.
     */
    private long learnerFetchDue(int ringId, Merger.RingStream s) {
        if (s.buffered.containsKey(s.nextInstance) || !mayFetch(ringId, s)) {
            return Long.MAX_VALUE;
        }
        Long last = lastFetchMillis.get(ringId);
        long due = last == null ? now : last + params.retransmitTimeoutMillis();
        if (s.buffered.isEmpty()) {
            long[] lag = learnerLag.get(ringId);
            if (lag == null || lag[0] != s.nextInstance) {
                return now; // a lag to note
            }
            due = Math.max(due, lag[1] + params.retransmitTimeoutMillis());
        }
        return due;
    }

    /**
     * When acceptor {@code a} fetches the decisions it lacks from {@code best} (the result of
     * {@link #aheadOf}): never if nobody is ahead; now if a new lag is to be noted; else a retransmission
     * timeout after the lag was noted and after its last fetch.
     */
    private long acceptorFetchDue(RingAcceptor a, int best) {
        if (best < 0) {
            return Long.MAX_VALUE;
        }
        long[] lag = acceptorLag.get(a.ringId());
        if (lag == null || a.firstUndecided() >= lag[0]) {
            return now; // a lag to note
        }
        Long last = lastAcceptorFetchMillis.get(a.ringId());
        long due = lag[1] + params.retransmitTimeoutMillis();
        return last == null ? due : Math.max(due, last + params.retransmitTimeoutMillis());
    }

    /** Whether a learner waiting at {@code s.nextInstance} may find it somewhere (see {@link #fetchTarget}). */
    private boolean mayFetch(int ringId, Merger.RingStream s) {
        if (!s.buffered.isEmpty()) {
            return true;
        }
        RingAcceptor own = acceptors.get(ringId);
        if (own != null && own.highestDecided() >= s.nextInstance) {
            return true;
        }
        for (RingSummary r : reported.getOrDefault(ringId, Map.of()).values()) {
            if (r.highestDecided() >= s.nextInstance) {
                return true;
            }
        }
        return false;
    }

    public long propose(int[] groups, byte[] payload, long nowMillis, Output out) {
        int[] g = groups.clone();
        Arrays.sort(g);
        for (int i = 1; i < g.length; i++) {
            if (g[i] == g[i - 1]) {
                throw new IllegalArgumentException("group " + g[i] + " listed twice in " + Arrays.toString(groups));
            }
        }
        int ring = config.ringFor(g);
        int size = new Proposal(nodeId, 0, 0, 0, g, payload).encodedSize() + 5;
        if (size > params.batchMaxBytes()) {
            throw new MulticastException("a multicast of " + payload.length + " bytes does not fit batch.maxBytes = "
                    + params.batchMaxBytes());
        }
        Propose p = proposer.propose(ring, g, payload, nowMillis);
        Output outer = begin(nowMillis, out);
        send(proposalTarget(config.ring(ring)), p);
        finish(outer);
        return p.proposal().seq();
    }

    /**
     * From now on, the runtime calls {@link #endTurn} after every batch of steps (before it sends
     * what they produced): the Ordered notices of a turn then leave as one message per proposer and
     * ring instead of one per decided instance (a coordinator under load decides many per turn), and
     * the proposals of a turn as one message per coordinator instead of one per multicast.
     */
    public void coalesceOrderedPerTurn() {
        this.coalesceOrdered = true;
    }

    /** Sends what this turn held back (see {@link #coalesceOrderedPerTurn}). */
    public void endTurn(Output out) {
        if (orderedThisTurn.isEmpty() && proposesThisTurn.isEmpty()) {
            return;
        }
        Output outer = begin(now, out);
        for (Map.Entry<Integer, List<Propose>> e : proposesThisTurn.entrySet()) {
            sendProposes(e.getKey(), e.getValue());
        }
        proposesThisTurn.clear();
        for (Map.Entry<OrderedTo, LongList> e : orderedThisTurn.entrySet()) {
            OrderedTo k = e.getKey();
            dispatchOrSend(k.node(), new Ordered(k.ring(), k.incarnation(), e.getValue().toArray()));
        }
        orderedThisTurn.clear();
        finish(outer);
    }

    public byte[] learnerCheckpoint() {
        return merger.checkpoint();
    }

    /**
     * Moves the learner to a peer's checkpoint, whose state the application took because the acceptors
     * trimmed what this learner still needed ({@link Output#behindTrimmedLogs}). Values it already
     * holds past that place are delivered at once.
     *
     * @return false, changing nothing, when the checkpoint is not ahead of this learner
     * @throws IllegalArgumentException when the checkpoint is corrupt or of other rings
     */
    public boolean repositionLearner(byte[] cp, long nowMillis, Output out) {
        Output outer = begin(nowMillis, out);
        try {
            if (!merger.reposition(cp)) {
                return false;
            }
            trimmedGapsReported.clear();
            learnerLag.clear();
            lastFetchMillis.clear();
            merger.drain(this.out::deliver);
            return true;
        } finally {
            finish(outer);
        }
    }

    public void checkpointed(byte[] cp, long nowMillis, Output out) {
        Map<Integer, Long> instances = Merger.checkpointedInstances(cp);
        Output outer = begin(nowMillis, out);
        checkpointedInstances = instances;
        announceCheckpoint();
        finish(outer);
    }

    public static byte[] encodeDirect(byte[] appMessage) {
        return MessageCodec.encode(new Direct(appMessage));
    }

    public NodeStatus status() {
        List<NodeStatus.RingStatus> rings = new ArrayList<>();
        for (ClusterConfig.Ring r : config.rings().values()) {
            RingAcceptor a = acceptors.get(r.id());
            RingCoordinator c = coordinators.get(r.id());
            Merger.RingStream s = merger.stream(r.id());
            if (a == null && s == null) {
                continue;
            }
            long ballot = c != null ? c.maxBallotSeen() : Ballot.NONE;
            long decided = a != null ? a.highestDecided() : (s != null ? s.nextInstance - 1 : -1);
            rings.add(new NodeStatus.RingStatus(r.id(), fd.coordinatorOf(r, now), ballot, decided,
                    s != null ? s.nextInstance : -1, a != null && a.rejoining()));
        }
        return new NodeStatus(nodeId, rings, merger.lastPosition(), proposer.gapResendCount(), fetchesSent,
                fetchedValueBytes);
    }

    // ---- step plumbing ------------------------------------------------------------------------

    /**
     * Starts a step; returns the output of an enclosing step, if this one runs inside it (the
     * application may propose or checkpoint from inside deliver()).
     */
    private Output begin(long nowMillis, Output o) {
        Output outer = this.out;
        this.now = Math.max(now, nowMillis);
        this.out = o;
        return outer;
    }

    /** Runs the messages this node sent itself, then lets the merge ask for skips. */
    private void finish(Output outer) {
        if (outer == null) {
            while (!toSelf.isEmpty()) {
                dispatch(nodeId, toSelf.poll());
            }
            requestSkip();
            while (!toSelf.isEmpty()) {
                dispatch(nodeId, toSelf.poll());
            }
        }
        // A nested step leaves its messages to itself to the enclosing step's loop.
        out = outer;
    }

    /** Sends {@code proposes} in as few messages as the batch size allows (one Propose stays a Propose). */
    private void sendProposes(int to, List<Propose> proposes) {
        if (proposes.size() == 1) {
            dispatchOrSend(to, proposes.get(0));
            return;
        }
        int from = 0;
        int bytes = 5;
        for (int i = 0; i < proposes.size(); i++) {
            int size = 5 + proposes.get(i).proposal().encodedSize();
            if (i > from && bytes + size > params.batchMaxBytes()) {
                dispatchOrSend(to, new Proposes(List.copyOf(proposes.subList(from, i))));
                from = i;
                bytes = 5;
            }
            bytes += size;
        }
        List<Propose> rest = proposes.subList(from, proposes.size());
        dispatchOrSend(to, rest.size() == 1 ? rest.get(0) : new Proposes(List.copyOf(rest)));
    }

    private void send(int to, Message m) {
        if (coalesceOrdered && to != nodeId && m instanceof Propose p) {
            proposesThisTurn.computeIfAbsent(to, k -> new ArrayList<>()).add(p);
            return;
        }
        if (coalesceOrdered && m instanceof Ordered o) {
            orderedThisTurn.computeIfAbsent(new OrderedTo(to, o.ring(), o.incarnation()), k -> new LongList())
                    .addAll(o.seqs());
            return;
        }
        dispatchOrSend(to, m);
    }

    private void dispatchOrSend(int to, Message m) {
        if (to == nodeId) {
            toSelf.add(m);
        } else if (m instanceof Accept a) {
            // The batch goes to the transport as it is: no copy into a message array per hop.
            out.send(to, MessageCodec.encodeAcceptHead(a), a.value());
        } else {
            out.send(to, MessageCodec.encode(m));
        }
    }

    private void dispatch(int from, Message m) {
        if (m instanceof Heartbeat h) {
            onHeartbeat(from, h);
        } else if (m instanceof Propose p) {
            onPropose(from, p, true);
        } else if (m instanceof Proposes ps) {
            // Queue them all, then batch: launching on the first would send a batch of one.
            for (Propose p : ps.proposes()) {
                onPropose(from, p, false);
            }
            for (RingCoordinator c : coordinators.values()) {
                c.proposalsArrived(now);
            }
        } else if (m instanceof Ordered o) {
            for (long seq : proposer.ordered(o.incarnation(), o.seqs(), now)) {
                out.ordered(seq);
            }
            for (Propose p : proposer.takeGapResends()) {
                send(proposalTarget(config.ring(p.ring())), p);
            }
        } else if (m instanceof Phase1a p) {
            onPhase1a(from, p);
        } else if (m instanceof Phase1b p) {
            RingAcceptor a = acceptors.get(p.ring());
            if (a != null && a.readReply(from, p)) {
                sendRead(a, from);
            }
            RingCoordinator c = coordinators.get(p.ring());
            if (c != null && !p.notAPromise()) {
                c.onPhase1b(from, p, now);
            }
        } else if (m instanceof Accept a) {
            onAccept(a);
        } else if (m instanceof Decision d) {
            onDecision(d);
        } else if (m instanceof Nack n) {
            RingAcceptor a = acceptors.get(n.ring());
            if (a != null && a.readRefused(from, n.promisedBallot())) {
                sendRead(a, from);
            }
            RingCoordinator c = coordinators.get(n.ring());
            if (c != null) {
                c.onNack(n.promisedBallot(), now);
            }
        } else if (m instanceof Fetch f) {
            RingAcceptor a = acceptors.get(f.ring());
            if (a != null) {
                List<Vote> votes = a.decidedFrom(f.fromInstance(), Math.min(f.maxCount(), FETCH_MAX_INSTANCES),
                        params.batchMaxBytes());
                send(from, new Learned(f.ring(), a.lowestInstance(), a.highestDecided(), votes));
            }
        } else if (m instanceof Learned l) {
            RingAcceptor a = acceptors.get(l.ring());
            Merger.RingStream needs = merger.stream(l.ring());
            if (needs != null && l.lowestInstance() > needs.nextInstance && trimmedGapsReported.add(l.ring())) {
                // this learner can never deliver again from here: the application must take a peer's state
                // and move the learner to that state's checkpoint (repositionLearner), once per stall
                LOG.warn("node={} ring={} needs instance {} but node {} trimmed its log below {}: this replica's "
                                + "state is older than every acceptor keeps; it needs a peer's checkpoint",
                        nodeId, l.ring(), needs.nextInstance, from, l.lowestInstance());
                out.behindTrimmedLogs(l.ring(), needs.nextInstance, l.lowestInstance());
            }
            if (a != null && a.rejoining()) {
                a.peerTrimmedBelow(l.lowestInstance());
            }
            for (Vote v : l.decided()) {
                if (a != null) {
                    a.storeDecided(v.instance(), v.ballot(), v.value());
                }
                learn(l.ring(), v.instance(), v.value());
                fetchedValueBytes += v.value().length;
            }
            if (!l.decided().isEmpty() && l.decided().get(l.decided().size() - 1).instance() < l.highestDecided()) {
                // The sender held later decisions than the page carried (it stopped at its count or byte
                // limit, or at a gap): a lagging learner need not wait a timeout for the next page. A page
                // that reached the sender's highest decision ends the chain; before ADR 045 a page "full by
                // bytes" went on, and with values near batch.maxBytes / 2 every page was, so an acceptor at
                // the live edge of a busy ring fetched each new value again, page after page.
                long next = l.decided().get(l.decided().size() - 1).instance() + 1;
                Merger.RingStream s = merger.stream(l.ring());
                // and only for what this node still lacks: a learner that meanwhile had it through the
                // ring (or buffered it) stops, else a learner behind by one value chased every new one
                boolean learnerNeeds = s != null && next >= s.nextInstance && next < s.nextInstance + Merger.WINDOW
                        && !s.buffered.containsKey(next);
                if (learnerNeeds || (a != null && next == a.firstUndecided())) {
                    fetchesSent++;
                    send(from, new Fetch(l.ring(), next, FETCH_MAX_INSTANCES));
                }
            }
        } else if (m instanceof SkipRequest r) {
            RingCoordinator c = coordinators.get(r.ring());
            if (c != null) {
                c.onSkipRequest(r, now);
            }
        } else if (m instanceof Checkpointed c) {
            RingAcceptor a = acceptors.get(c.ring());
            if (a != null) {
                a.learnerCheckpointed(from, c.instance(), config.ring(c.ring()).learners());
            }
        } else if (m instanceof Direct d) {
            out.direct(from, d.payload());
        }
    }

    // ---- handlers -----------------------------------------------------------------------------

    /** The ring that orders a message to {@code groups}, or -1 if a group is unknown. */
    private int orderedBy(int[] groups) {
        for (int g : groups) {
            if (!config.groupToRing().containsKey(g)) {
                return -1;
            }
        }
        return config.ringFor(groups);
    }

    /** A rejoining acceptor's read (ADR 074): asks every other acceptor not yet read for its next page. */
    private void sendReads(RingAcceptor a) {
        for (int peer : a.readsPending()) {
            sendRead(a, peer);
        }
    }

    private void sendRead(RingAcceptor a, int peer) {
        long[] r = a.readRequest(peer);
        if (r != null) {
            lastReadMillis = now;
            send(peer, new Phase1a(a.ringId(), r[0], r[1]));
        }
    }

    private void heartbeat() {
        List<RingSummary> rings = new ArrayList<>();
        for (RingAcceptor a : acceptors.values()) {
            rings.add(new RingSummary(a.ringId(), a.promisedBallot(), a.firstUndecided(), a.highestDecided()));
        }
        Heartbeat h = new Heartbeat(rings);
        for (int n : heartbeatPeers) {
            send(n, h);
        }
        announceCheckpoint();
    }

    /** Acceptors trim below what every learner checkpointed; repeated since messages get lost. */
    private void announceCheckpoint() {
        for (Map.Entry<Integer, Long> e : checkpointedInstances.entrySet()) {
            ClusterConfig.Ring r = config.rings().get(e.getKey());
            if (r == null) {
                continue;
            }
            for (int a : r.acceptors()) {
                send(a, new Checkpointed(r.id(), e.getValue()));
            }
        }
    }

    private void onHeartbeat(int from, Heartbeat h) {
        for (RingSummary s : h.rings()) {
            RingAcceptor mine = acceptors.get(s.ring());
            if (mine != null && mine.rejoining() && mine.peerReported(from, s.promisedBallot())) {
                LOG.info("node={} ring={}: every other acceptor heard; reading them at ballot {} to rejoin", nodeId,
                        s.ring(), Ballot.toString(mine.readBallot()));
                sendReads(mine);
            }
            RingCoordinator c = coordinators.get(s.ring());
            if (c != null && s.promisedBallot() > c.ballot() && c.phase() != RingCoordinator.Phase.IDLE) {
                c.onNack(s.promisedBallot(), now);
            } else if (c != null) {
                c.observeBallot(s.promisedBallot());
            }
            if (c != null) {
                c.observeDecidedPrefix(from, s.firstUndecided());
            }
            if (merger.stream(s.ring()) != null || acceptors.containsKey(s.ring())) {
                reported.computeIfAbsent(s.ring(), k -> new HashMap<>()).put(from, s);
            }
        }
    }

    private void onPropose(int from, Propose p, boolean launchNow) {
        if ((p.proposal().node() != from && !p.forwarded()) || orderedBy(p.proposal().groups()) != p.ring()
                || !config.nodes().containsKey(p.proposal().node())) {
            return;
        }
        RingCoordinator c = coordinators.get(p.ring());
        if (c != null && c.takesProposals(now)) {
            c.onPropose(p.proposal(), now, launchNow);
            return;
        }
        int coordinator = fd.coordinatorOf(config.ring(p.ring()), now);
        if (!p.forwarded() && coordinator != nodeId && coordinator != from) {
            send(coordinator, new Propose(p.ring(), p.proposal(), true));
        }
    }

    private void onPhase1a(int from, Phase1a p) {
        RingAcceptor a = acceptors.get(p.ring());
        if (a == null) {
            return;
        }
        RingCoordinator mine = coordinators.get(p.ring());
        if (from != nodeId && mine != null && p.ballot() > mine.ballot()) {
            mine.onNack(p.ballot(), now);
        }
        if (a.rejoining()) {
            // What it holds, promising nothing: for another acceptor's rejoin (a coordinator ignores it).
            sendVotes(from, p, a, true);
        } else if (a.promise(p.ballot())) {
            sendVotes(from, p, a, false);
        } else {
            send(from, new Nack(p.ring(), a.promisedBallot()));
        }
    }

    /** One Phase 1b page of {@code a}'s votes from the instance {@code p} asks for. */
    private void sendVotes(int to, Phase1a p, RingAcceptor a, boolean notAPromise) {
        RingAcceptor.VotePage page = a.votesFrom(p.fromInstance(), params.phase1RangeInstances(),
                PHASE1_PAGE_BATCHES * params.batchMaxBytes());
        send(to, new Phase1b(p.ring(), p.ballot(), p.fromInstance(), a.lowestInstance(), a.highestInstance(),
                page.nextFrom(), page.votes(), notAPromise));
    }

    private void onAccept(Accept m) {
        ClusterConfig.Ring ring = config.rings().get(m.ring());
        if (ring == null || m.route()[m.hop()] != nodeId) {
            return;
        }
        for (int n : m.route()) {
            if (!config.nodes().containsKey(n)) {
                return;
            }
        }
        boolean decided = m.decided();
        int votes = m.votes();
        if (m.hop() < m.acceptorHops()) {
            RingAcceptor a = acceptors.get(ring.id());
            if (a == null) {
                return;
            }
            if (decided) {
                a.storeDecided(m.instance(), m.ballot(), m.value());
            } else if (a.rejoining()) {
                // No vote: pass it on as it came (ADR 074), keeping the value for the Decision to come. Not
                // even an instance known decided marks it decided: without a promise to check its ballot
                // against, it may be a stale proposal of another value.
                a.passOn(m.instance(), m.ballot(), m.value());
            } else {
                boolean knownDecided = a.isDecided(m.instance());
                if (!a.accept(m.instance(), m.ballot(), m.value())) {
                    send(m.route()[0], new Nack(ring.id(), a.promisedBallot()));
                    return;
                }
                votes++;
                if (knownDecided || votes >= ring.quorum()) {
                    decided = true;
                    a.decide(m.instance(), m.ballot());
                    // The earlier hops hold the value already: they get ids only.
                    for (int k = 0; k < m.hop(); k++) {
                        send(m.route()[k], new Decision(ring.id(), m.ballot(), m.instance()));
                    }
                }
            }
        }
        if (decided) {
            learn(ring.id(), m.instance(), m.value());
            RingCoordinator c = coordinators.get(ring.id());
            if (c != null) {
                c.onDecided(m.instance(), m.ballot(), now);
            }
        }
        int next = m.hop() + 1;
        if (next < m.route().length && (decided || next < m.acceptorHops())) {
            send(m.route()[next], new Accept(m.ring(), m.ballot(), m.instance(), m.route(), m.acceptorHops(), next,
                    votes, decided, m.value()));
        }
    }

    private void onDecision(Decision d) {
        RingAcceptor a = acceptors.get(d.ring());
        if (a == null || !a.decide(d.instance(), d.ballot())) {
            return;
        }
        a.decidedValue(d.instance()).ifPresent(v -> learn(d.ring(), d.instance(), v));
        RingCoordinator c = coordinators.get(d.ring());
        if (c != null) {
            c.onDecided(d.instance(), d.ballot(), now);
        }
    }

    private void learn(int ring, long instance, byte[] value) {
        if (decisionObserver != null) {
            decisionObserver.decided(ring, instance, value);
        }
        RingCoordinator c = coordinators.get(ring);
        RingValue known = c == null ? null : c.launched(instance, value);
        if (merger.offer(ring, instance, value, known)) {
            merger.drain(out::deliver);
        }
    }

    /**
     * Catch-up. A learner blocked on an instance that some acceptor reports decided (or with later
     * instances buffered) fetches from an acceptor whose decided prefix covers it, else from the
     * acceptors that know later decisions in turn. An acceptor whose decided prefix lags another's
     * fetches too, so that prefixes (and with them trimming and Phase 1 ranges) keep moving.
     */
    private void catchUp() {
        for (int ringId : merger.ringIds()) {
            Merger.RingStream s = merger.stream(ringId);
            if (s.buffered.containsKey(s.nextInstance) || !mayFetch(ringId, s)) {
                learnerLag.remove(ringId);
                continue;
            }
            if (s.buffered.isEmpty()) {
                // Nothing later arrived, so nothing says the value was lost: on a busy ring it is
                // usually on its way (an acceptor ahead reported it decided while its Accept or Decision
                // travels). Fetch only if this learner still waits for it a retransmission timeout later
                // (ADR 045). A later value buffered ahead of a missing one is evidence of loss: fetch now.
                // The wait counts from when this node first sees the instance decided somewhere, not from
                // when it began to wait (an idle ring's next instance may not exist yet).
                long[] lag = learnerLag.get(ringId);
                if (lag == null || lag[0] != s.nextInstance) {
                    learnerLag.put(ringId, new long[] {s.nextInstance, now});
                    continue;
                }
            }
            if (learnerFetchDue(ringId, s) > now) {
                continue;
            }
            int target = fetchTarget(config.ring(ringId), s.nextInstance, !s.buffered.isEmpty());
            if (target >= 0) {
                lastFetchMillis.put(ringId, now);
                fetchesSent++;
                send(target, new Fetch(ringId, s.nextInstance, FETCH_MAX_INSTANCES));
            }
        }
        for (RingAcceptor a : acceptors.values()) {
            int best = aheadOf(a);
            if (best < 0) {
                acceptorLag.remove(a.ringId());
                continue;
            }
            long[] lag = acceptorLag.get(a.ringId());
            if (lag == null || a.firstUndecided() >= lag[0]) {
                // A new lag. On a busy ring the others' heartbeats nearly always report a prefix ahead
                // of this one (decisions in flight), and the Decisions close it moments later: fetching
                // then brought back values this acceptor holds already (with 10 KB requests, twice the
                // ring's own traffic, ADR 045). Only a lag that outlasts a retransmission timeout fetches.
                acceptorLag.put(a.ringId(), new long[] {reported.get(a.ringId()).get(best).firstUndecided(), now});
                continue;
            }
            if (acceptorFetchDue(a, best) > now) {
                continue;
            }
            lastAcceptorFetchMillis.put(a.ringId(), now);
            fetchesSent++;
            send(best, new Fetch(a.ringId(), a.firstUndecided(), FETCH_MAX_INSTANCES));
        }
    }

    /**
     * The unsuspected acceptor reporting the longest decided prefix of {@code a}'s ring, if that is
     * longer than {@code a}'s own; else -1.
     */
    private int aheadOf(RingAcceptor a) {
        int best = -1;
        long bestPrefix = a.firstUndecided();
        for (Map.Entry<Integer, RingSummary> e : reported.getOrDefault(a.ringId(), Map.of()).entrySet()) {
            if (e.getValue().firstUndecided() > bestPrefix && !fd.suspected(e.getKey(), now)) {
                bestPrefix = e.getValue().firstUndecided();
                best = e.getKey();
            }
        }
        return best;
    }

    private int fetchTarget(ClusterConfig.Ring ring, long instance, boolean laterBuffered) {
        Map<Integer, RingSummary> reports = reported.getOrDefault(ring.id(), Map.of());
        List<Integer> knowLater = new ArrayList<>();
        for (int a : ring.acceptors()) {
            if (fd.suspected(a, now)) {
                continue;
            }
            long prefix;
            long highest;
            if (a == nodeId) {
                prefix = acceptors.get(ring.id()).firstUndecided();
                highest = acceptors.get(ring.id()).highestDecided();
            } else {
                RingSummary r = reports.get(a);
                if (r == null) {
                    continue;
                }
                prefix = r.firstUndecided();
                highest = r.highestDecided();
            }
            if (prefix > instance) {
                return a;
            }
            if (highest >= instance || laterBuffered) {
                knowLater.add(a);
            }
        }
        if (knowLater.isEmpty()) {
            return laterBuffered ? fd.coordinatorOf(ring, now) : -1;
        }
        return knowLater.get(Math.floorMod(fetchRotation++, knowLater.size()));
    }

    /** The merge waits on an idle ring while another has a value ready: ask for a skip. */
    private void requestSkip() {
        Merger.RingStream blocked = merger.blockedOn();
        if (blocked == null) {
            return;
        }
        // Asked already for this instance and not yet due again: nothing to do.
        long[] last = lastSkipRequest.get(blocked.ringId);
        if (last != null && last[0] == blocked.nextInstance && now - last[1] < params.retransmitTimeoutMillis()) {
            return;
        }
        long target = merger.slotsNeededFrom(blocked);
        if (target < 0) {
            return;
        }
        lastSkipRequest.put(blocked.ringId, new long[] {blocked.nextInstance, now});
        send(fd.coordinatorOf(config.ring(blocked.ringId), now),
                new SkipRequest(blocked.ringId, blocked.nextInstance, blocked.slotsConsumed, target));
    }
}
