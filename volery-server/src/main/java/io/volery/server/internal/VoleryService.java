package io.volery.server.internal;

import io.eyrie.core.Command;
import io.eyrie.core.EyrieClient;
import io.eyrie.multicast.MulticastEndpoint;
import io.volery.server.frontend.ClientConnection;
import io.volery.server.frontend.ZkReply;
import io.volery.server.frontend.ZkRequest;
import io.volery.server.frontend.ZkService;
import io.volery.server.tree.ErrorCode;
import io.volery.server.tree.WatchEvent;
import org.apache.zookeeper.proto.ConnectRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node's front-end service: the Eyrie client of the sessions connected to this node. It turns
 * requests into multicast commands, keeps each session's requests in order, keeps sessions alive
 * with touches ordered to every partition, and hands watch events from the replicas to the
 * connections.
 */
public final class VoleryService implements ZkService, AutoCloseable {

    static {
        VoleryCodec.registered(); // before the first command is encoded or decoded (ADR 088)
    }
    private static final Logger log = LoggerFactory.getLogger(VoleryService.class);
    /** Events (and moved sessions) a front end remembers; {@code -Dvolery.eventKeysRemembered} for tests. */
    private static final int EVENT_KEYS_REMEMBERED = Integer.getInteger("volery.eventKeysRemembered", 100_000);
    /** How long a reply waits for front ends to queue the events its command fired. */
    public static final long EVENT_ACK_TIMEOUT_MILLIS = 5_000;

    private final EyrieClient client;
    private final MulticastEndpoint endpoint;
    private final EventAcknowledgements acks;
    /**
     * {@code -Dvolery.comparePositionsAcrossPartitions=true}: a kept event goes out before any reply whose
     * zxid is at least its own, whichever partitions ordered them (before ADR 077; for tests).
     */
    static final boolean COMPARE_ACROSS_PARTITIONS = Boolean.getBoolean("volery.comparePositionsAcrossPartitions");
    private final SessionMailboxes mailboxes;
    /** Sessions that reconnected through another front end, and where to (for events still on their way here). */
    private final Map<Long, VoleryWire.Moved> movedTo = java.util.Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, VoleryWire.Moved> eldest) {
                    return size() > EVENT_KEYS_REMEMBERED;
                }
            });
    /**
     * How long a session that reconnected here waits for the events its old front end kept, unless that front
     * end refuses connections (its process is gone: nothing will come, ADR 082).
     */
    static final long HANDOFF_TIMEOUT_MILLIS = 2_000;
    /**
     * When a session waiting for a hand-off first looks again whether its old front end refuses connections; each
     * later look waits twice as long (a dead node refuses within a redial, ~20 ms: most sessions that reconnect
     * see it at once, and thousands moving off a node that is only cut off look a few times each, not eighty).
     */
    static final long HANDOFF_CHECK_MILLIS = 25;
    private final AtomicLong handoffsFromDeadFrontEnds = new AtomicLong();
    private final AtomicLong handoffsTimedOut = new AtomicLong();
    /**
     * Per sending replica, the position of the newest command whose events it sent here (ADR 099): a replica
     * sends in its execution order, so an older one comes from a replica that restarted and replays.
     */
    private final Map<Integer, Long> eventsHeardUpTo = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicLong replayedEventsDropped = new AtomicLong();
    /** For tests: while set, incoming event messages wait here instead of reaching the sessions. */
    private java.util.List<Runnable> heldEvents;
    /** For tests: while set, replies to requests of {@link #heldSession} wait here instead of going out. */
    private volatile java.util.List<Runnable> heldReplies;
    private volatile long heldSession;
    private final VoleryOracle oracle;
    private final int nodeId;
    private final SecureRandom random = new SecureRandom();
    private final Map<Long, ClientConnection> connections = new ConcurrentHashMap<>();
    private final Map<Long, SessionOrder> order = new ConcurrentHashMap<>();
    private final AtomicLong lastZxid = new AtomicLong();
    private final AtomicLong reorderedResends = new AtomicLong();
    private final ScheduledExecutorService timer;
    /**
     * Whether touches go out at wall-clock multiples of the interval (ADR 075); {@code -Dvolery.alignedTouches=false}
     * restores a fixed delay from each node's start, for comparisons.
     */
    private static final boolean ALIGNED_TOUCHES = !"false".equals(System.getProperty("volery.alignedTouches"));
    private final long touchIntervalMillis;
    private final Map<String, Boolean> seenEvents = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > EVENT_KEYS_REMEMBERED;
        }
    };

    /**
     * @param touchIntervalMillis how often this front end orders a touch of its sessions (and a tick)
     */
    public VoleryService(MulticastEndpoint endpoint, EyrieClient client, VoleryOracle oracle, long touchIntervalMillis) {
        this.client = client;
        this.endpoint = endpoint;
        this.oracle = oracle;
        this.nodeId = endpoint.nodeId();
        this.mailboxes = new SessionMailboxes(COMPARE_ACROSS_PARTITIONS
                ? SessionMailboxes.Precedence.ONE_PARTITION : new EventPrecedence(endpoint.config(), oracle.partitioner()::ownerOf));
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "volery-touch-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        this.acks = new EventAcknowledgements(nodeId, timer, EVENT_ACK_TIMEOUT_MILLIS);
        endpoint.onDirect(this::onDirect);
        this.touchIntervalMillis = touchIntervalMillis;
        if (ALIGNED_TOUCHES) {
            scheduleTouch(alignedAfter(System.currentTimeMillis(), touchIntervalMillis));
        } else {
            timer.scheduleWithFixedDelay(this::touch, touchIntervalMillis, touchIntervalMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The first wall-clock multiple of {@code interval} after {@code nowMillis}. Every front end touches at these
     * instants (ADR 075), so that the ALL ring's coordinator gets the cluster's touches at about the same time
     * and orders them in one or two instances instead of one each.
     */
    static long alignedAfter(long nowMillis, long interval) {
        return nowMillis - Math.floorMod(nowMillis, interval) + interval;
    }

    /**
     * When the touch after the one planned for {@code plannedMillis} is due: the next multiple of the interval,
     * or, if the wall clock stepped (that one is already past, or more than two intervals ahead), the first
     * multiple after now. A timer that fired a little early still plans the next multiple, not the one it
     * was run for. {@link #scheduleTouch} never waits more than an interval whatever the clock does.
     */
    static long nextTouchAfter(long plannedMillis, long nowMillis, long interval) {
        long next = plannedMillis + interval;
        return next <= nowMillis || next > nowMillis + 2 * interval ? alignedAfter(nowMillis, interval) : next;
    }

    private void scheduleTouch(long atMillis) {
        long delay = Math.min(touchIntervalMillis, Math.max(0, atMillis - System.currentTimeMillis()));
        try {
            timer.schedule(() -> {
                touch();
                scheduleTouch(nextTouchAfter(atMillis, System.currentTimeMillis(), touchIntervalMillis));
            }, delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closed: no more touches
        }
    }

    @Override
    public CompletableFuture<ConnectOutcome> connect(ConnectRequest request, ClientConnection connection) {
        VoleryRequest r = new VoleryRequest();
        r.frontEnd = nodeId;
        r.timeMillis = System.currentTimeMillis();
        r.timeoutMillis = request.getTimeOut();
        if (request.getSessionId() == 0) {
            r.kind = VoleryRequest.CREATE_SESSION;
            r.sessionId = newSessionId();
            r.passwd = new byte[16];
            random.nextBytes(r.passwd);
        } else {
            r.kind = VoleryRequest.RECONNECT;
            r.sessionId = request.getSessionId();
            r.passwd = request.getPasswd();
        }
        r.clientAddress = connection.remoteAddress() == null ? null
                : connection.remoteAddress().getAddress().getHostAddress();
        r.x509Identity = connection.x509Identity();
        long sessionId = r.sessionId;
        byte[] passwd = r.passwd;
        return client.executeAsync(new Command(r)).thenApply(o -> {
            VoleryStateMachine.SessionReply s = (VoleryStateMachine.SessionReply) o;
            if (!s.accepted) {
                return ConnectOutcome.rejected();
            }
            boolean fromElsewhere = s.previousFrontEnd >= 0 && s.previousFrontEnd != nodeId;
            movedTo.remove(sessionId);
            mailboxes.connected(sessionId, connection, fromElsewhere, s.move);
            if (fromElsewhere) {
                // the old front end may be gone: stop waiting for its kept events once it refuses connections,
                // or after a while
                awaitHandoff(sessionId, s.previousFrontEnd, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANDOFF_TIMEOUT_MILLIS),
                        HANDOFF_CHECK_MILLIS);
            }
            ClientConnection previous = connections.put(sessionId, connection);
            if (previous != null && previous != connection) {
                previous.close("session 0x" + Long.toHexString(sessionId) + " reconnected on another connection");
            }
            return new ConnectOutcome(true, sessionId, s.timeoutMillis, passwd);
        });
    }

    /**
     * Until the hand-off of a session that moved here from {@code from} comes (the session's replies are held
     * meanwhile): goes on without it as soon as {@code from} refuses connections (killed: its kept events are gone
     * with it), or at {@code deadlineNanos} (it may be cut off, or slow). Looks now, then after
     * {@code nextCheckMillis}, doubling. One line a session at debug level; mntr counts both outcomes.
     */
    private void awaitHandoff(long sessionId, int from, long deadlineNanos, long nextCheckMillis) {
        if (!mailboxes.awaitingHandoff(sessionId)) {
            return; // it came (or the session moved on)
        }
        if (endpoint.peerRefuses(from)) {
            handoffsFromDeadFrontEnds.incrementAndGet();
            log.debug("node={} session 0x{} moved here from node {}, which refuses connections: going on without its hand-off",
                    nodeId, Long.toHexString(sessionId), from);
            mailboxes.handoff(sessionId, List.of());
        } else if (System.nanoTime() - deadlineNanos >= 0) {
            handoffsTimedOut.incrementAndGet();
            log.debug("node={} session 0x{} moved here from node {}: no hand-off within {} ms, going on without it",
                    nodeId, Long.toHexString(sessionId), from, HANDOFF_TIMEOUT_MILLIS);
            mailboxes.handoff(sessionId, List.of());
        } else {
            try {
                long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) + 1;
                timer.schedule(() -> awaitHandoff(sessionId, from, deadlineNanos, 2 * nextCheckMillis),
                        Math.min(nextCheckMillis, left), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }
    }

    /** Sessions that went on without their old front end's hand-off because it refused connections (ADR 082). */
    public long handoffsFromDeadFrontEnds() {
        return handoffsFromDeadFrontEnds.get();
    }

    /** Sessions that went on without their old front end's hand-off because it did not come in time. */
    public long handoffsTimedOut() {
        return handoffsTimedOut.get();
    }

    /** A setWatches request's last zxid and one-shot watches (as the replicas will read them); null for any other request. */
    private static SessionMailboxes.Rearm rearm(long sessionId, ZkRequest request) {
        int op = request.opCode();
        if (op != io.volery.server.frontend.OpCodes.SET_WATCHES && op != io.volery.server.frontend.OpCodes.SET_WATCHES2) {
            return null;
        }
        try {
            if (io.volery.server.frontend.JuteTranslator.toCommand(sessionId, request)
                    instanceof io.volery.server.tree.Command.SetWatches w) {
                return new SessionMailboxes.Rearm(w.relativeZxid(), java.util.Set.copyOf(w.dataWatches()),
                        java.util.Set.copyOf(w.existWatches()), java.util.Set.copyOf(w.childWatches()));
            }
        } catch (io.volery.server.frontend.JuteTranslator.RejectedRequest | RuntimeException e) {
            // a malformed setWatches: the replicas reject it, and nothing is looked back on
        }
        return null;
    }

    private long newSessionId() {
        // The node id in the top bits keeps front ends from colliding; the rest is random.
        return ((long) nodeId << 48) | (random.nextLong() & 0x0000_FFFF_FFFF_FFFFL) | 1;
    }

    @Override
    public CompletableFuture<ZkReply> submit(ClientConnection connection, ZkRequest request) {
        long sessionId = connection.sessionId();
        VoleryRequest r = VoleryRequest.zk(sessionId, request, System.currentTimeMillis(), nodeId);
        int[] destinations = oracle.destinations(r);
        // events kept for the session go out before this request's answer
        mailboxes.requestArrived(sessionId, connection, rearm(sessionId, request), destinations);
        SessionOrder o = order.computeIfAbsent(sessionId,
                k -> new SessionOrder(reorderedResends, oracle.localPartition(), oracle.partitioner().partitions().length));
        boolean placedOnDelivery = destinations.length > 1 && oracle.placedOnDelivery(r);
        CompletableFuture<byte[]> answered = o.submit(destinations, placedOnDelivery, r,
                (req, deliveredHere) -> client.executeAsync(new Command(req), deliveredHere), this::afterEventsQueued);
        if (heldReplies != null && heldSession == sessionId) {
            answered = answered.thenCompose(this::held);
        }
        CompletableFuture<ZkReply> reply = answered
                .thenApply(bytes -> {
                    ZkReply rep = ZkReply.encoded(request.xid(), bytes);
                    lastZxid.accumulateAndGet(rep.zxid(), Math::max);
                    if (request.opCode() == io.volery.server.frontend.OpCodes.CLOSE_SESSION) {
                        mailboxes.closing(sessionId);
                    }
                    if (rep.err() == ErrorCode.SESSIONMOVED.code()) {
                        // ZooKeeper answers nothing and drops the connection of a moved session.
                        connection.close("session moved to another server");
                        return null;
                    }
                    return rep;
                });
        return reply;
    }

    /**
     * A reply whose command fired watch events comes with the front ends it sent them to; it is released
     * once they have all queued them (see {@link EventAcknowledgements}).
     */
    private CompletableFuture<byte[]> afterEventsQueued(Object result) {
        return acks.released(result).thenApply(bytes -> (byte[]) bytes);
    }

    @Override
    public void writeReply(ClientConnection connection, long zxid, Runnable write) {
        mailboxes.replying(connection.sessionId(), connection, zxid, write);
    }

    @Override
    public long ping(ClientConnection connection) {
        return lastZxid.get();
    }

    @Override
    public void disconnected(ClientConnection connection) {
        connections.remove(connection.sessionId(), connection);
        mailboxes.disconnected(connection.sessionId(), connection);
    }

    /** Orders a touch of every session connected here; it also advances session time everywhere. */
    private void touch() {
        try {
            VoleryRequest r = new VoleryRequest();
            r.kind = VoleryRequest.TOUCH;
            r.frontEnd = nodeId;
            r.timeMillis = System.currentTimeMillis();
            r.sessions = connections.keySet().stream().mapToLong(Long::longValue).toArray();
            // ahead of the clients' requests waiting in the node (ADR 064): a live session's touch must not
            // wait behind an overload until its session expires
            client.executeUrgent(new Command(r)).exceptionally(e -> {
                log.debug("node={} touch failed: {}", nodeId, e.toString());
                return null;
            });
        } catch (RuntimeException e) {
            log.warn("node={} cannot order a touch: {}", nodeId, e.toString());
        }
    }

    private void onDirect(int from, byte[] message) {
        VoleryWire.Message m;
        try {
            m = VoleryWire.decode(message);
        } catch (IllegalArgumentException e) {
            log.warn("node={} dropped a malformed Volery message from node {}: {}", nodeId, from, e.getMessage());
            return;
        }
        if (m instanceof VoleryWire.Events ev) {
            if (replayed(from, ev.ackZxid())) {
                // this front end had the events of later commands from that replica already: it restarted and
                // replays the order from its checkpoint, and sent these before its crash (ADR 099)
                replayedEventsDropped.addAndGet(ev.events().size());
                return;
            }
            synchronized (this) {
                if (heldEvents != null) {
                    heldEvents.add(() -> deliver(ev));
                    return;
                }
            }
            deliver(ev);
        } else if (m instanceof VoleryWire.EventsQueued q) {
            acks.acknowledged(from, q.zxid());
        } else if (m instanceof VoleryWire.Moved mv) {
            // every replica of every partition says so; the first copy hands the kept events over
            // (a late copy of an older move, from a lagging or replaying replica, finds nothing: ADR 098)
            SessionMailboxes.Away away = mailboxes.movedAway(mv.sessionId(), mv.move());
            if (away != null) {
                movedTo.put(mv.sessionId(), mv);
                endpoint.sendDirect(mv.to(), VoleryWire.handoff(mv.sessionId(), away.kept(), away.handed(), mv.move()));
            }
        } else if (m instanceof VoleryWire.Handoff h) {
            mailboxes.handoff(h.sessionId(), h.events(), h.handed(), h.move());
        } else if (m instanceof VoleryWire.Expired x) {
            ClientConnection c = connections.remove(x.sessionId());
            order.remove(x.sessionId());
            mailboxes.forget(x.sessionId());
            if (c != null) {
                c.close("session 0x" + Long.toHexString(x.sessionId()) + " expired or was closed through another connection");
            }
        }
    }

    /** Whether {@code from} sent the events of a later command than {@code position} here already (ADR 099). */
    private boolean replayed(int from, long position) {
        long[] before = {Long.MIN_VALUE};
        eventsHeardUpTo.merge(from, position, (was, now) -> {
            before[0] = was;
            return Math.max(was, now);
        });
        return position < before[0];
    }

    /** Events dropped as a replaying replica's: sent here before (ADR 099), or for this node's previous run (ADR 100). */
    public long replayedEventsDropped() {
        return replayedEventsDropped.get();
    }

    private void deliver(VoleryWire.Events ev) {
        Map<String, Integer> occurrences = new java.util.HashMap<>();
        long[] moves = ev.moves();
        for (int i = 0; i < ev.events().size(); i++) {
            WatchEvent e = ev.events().get(i);
            if (moves != null && mailboxes.ofAnEarlierRun(e.sessionId(), moves[i])) {
                // fired while the session was at this node's previous run, sent again by a replaying replica
                replayedEventsDropped.incrementAndGet();
                continue;
            }
            // Every replica of the partition (and every partition, for commands they all run) sends
            // the same list; the first copy of each event wins. One command may fire the same event
            // twice (a persistent watch and two setData in a multi): its occurrence tells them apart.
            String event = e.sessionId() + "/" + e.zxid() + "/" + e.type().code() + "/" + e.path();
            String key = event + "#" + occurrences.merge(event, 1, Integer::sum);
            synchronized (seenEvents) {
                if (seenEvents.putIfAbsent(key, Boolean.TRUE) != null) {
                    continue;
                }
            }
            if (!mailboxes.offer(e)) {
                VoleryWire.Moved to = movedTo.get(e.sessionId());
                if (to != null) {
                    // fired before the session moved, but arrived after its kept events left
                    endpoint.sendDirect(to.to(), VoleryWire.handoff(e.sessionId(), List.of(e), to.move()));
                }
            }
        }
        acks.queued(ev, endpoint);
    }

    /**
     * For tests: holds incoming watch events (and so their acknowledgements) until {@link #releaseEvents},
     * as a slow network between a partition and this front end would.
     */
    public synchronized void holdEvents() {
        if (heldEvents == null) {
            heldEvents = new ArrayList<>();
        }
    }

    /** For tests: delivers the held events in arrival order and stops holding. */
    public synchronized void releaseEvents() {
        if (heldEvents != null) {
            heldEvents.forEach(Runnable::run);
            heldEvents = null;
        }
    }

    /**
     * For tests: holds the replies to the requests of {@code sessionId} submitted from now on (once the
     * partitions have answered) until {@link #releaseReplies}, as a slow replica would.
     */
    public synchronized void holdRepliesOf(long sessionId) {
        heldSession = sessionId;
        heldReplies = new ArrayList<>();
    }

    /** For tests: how many replies are held. */
    public synchronized int heldReplyCount() {
        return heldReplies == null ? 0 : heldReplies.size();
    }

    /** For tests: lets the held replies go, in the order they were answered, and stops holding. */
    public void releaseReplies() {
        List<Runnable> released;
        synchronized (this) {
            released = heldReplies;
            heldReplies = null;
        }
        if (released != null) {
            released.forEach(Runnable::run);
        }
    }

    private CompletableFuture<byte[]> held(byte[] bytes) {
        synchronized (this) {
            if (heldReplies != null) {
                CompletableFuture<byte[]> later = new CompletableFuture<>();
                heldReplies.add(() -> later.complete(bytes));
                return later;
            }
        }
        return CompletableFuture.completedFuture(bytes);
    }

    private volatile io.volery.server.audit.AuditLog audit;

    /** ZooKeeper's audit log of this node's clients' changes (ADR 071); null: none. */
    public void setAudit(io.volery.server.audit.AuditLog audit) {
        this.audit = audit;
    }

    @Override
    public io.volery.server.audit.AuditLog audit() {
        return audit;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        for (ClientConnection c : new ArrayList<>(connections.values())) {
            c.close("server shutting down");
        }
    }

    /**
     * Requests the replicas refused because they arrived before the request they were pipelined
     * behind (the earlier one was held up, by a refusal or a failover), and that were sent again.
     */
    public long reorderedResends() {
        return reorderedResends.get();
    }

    /** For tests and tools: the sessions connected here. */
    public List<Long> connectedSessions() {
        return new ArrayList<>(connections.keySet());
    }
}
