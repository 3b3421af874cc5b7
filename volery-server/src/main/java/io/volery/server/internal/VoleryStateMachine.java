package io.volery.server.internal;

import io.eyrie.core.Command;
import io.eyrie.core.CommandAbandonedException;
import io.eyrie.core.Partition;
import io.eyrie.core.StateImage;
import io.eyrie.core.StateMachine;
import io.eyrie.core.internal.KryoCodec;
import io.eyrie.multicast.MulticastEndpoint;
import io.volery.server.frontend.JuteTranslator;
import io.volery.server.frontend.OpCodes;
import io.volery.server.frontend.ZkCodec;
import io.volery.server.frontend.ZkReply;
import io.volery.server.frontend.ZkRequest;
import io.volery.server.admin.ReplicaProbe;
import io.volery.server.tree.ErrorCode;
import io.volery.server.tree.Id;
import io.volery.server.tree.Reply;
import io.volery.server.tree.Result;
import io.volery.server.tree.SessionTable;
import io.volery.server.tree.TreeConfig;
import io.volery.server.tree.TreeImage;
import io.volery.server.tree.WatchEvent;
import io.volery.server.tree.ZnodeTree;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One partition replica of Volery: a {@link ZnodeTree} holding this partition's subtrees plus the
 * root and its list of children, driven by Eyrie in delivery order.
 *
 * <p>How a command spans partitions ({@link Scope}):
 * <ul>
 * <li>most commands touch one subtree and run in its owner partition only;</li>
 * <li>root writes, top-level creates and session commands go to every partition, and every
 *     partition can decide them alone (each keeps the root's children), so each applies them;</li>
 * <li>deleting a top-level node goes to every partition, but only its owner knows its version and
 *     children: the owner's verdict travels as an Eyrie exchange and the others follow it;</li>
 * <li>a multi across subtrees: each partition dry-runs the operations it owns, verdicts are
 *     exchanged, all apply or none does, and the per-operation results are exchanged so that every
 *     replica can answer with the whole reply;</li>
 * <li>reads that gather (getEphemerals, getAllChildrenNumber of the root, a multiRead across
 *     subtrees) exchange partial results.</li>
 * </ul>
 * Eyrie's exchanges double as the signals of execution atomicity, and Eyrie replies only after
 * every destination partition signalled, so every command is linearizable.
 */
public final class VoleryStateMachine extends StateMachine implements io.volery.server.admin.NodeMonitor.ReplicaCounters {

    static {
        VoleryCodec.registered(); // before the first command is encoded or decoded (ADR 088)
    }
    private static final Logger log = LoggerFactory.getLogger(VoleryStateMachine.class);

    private final PathPartitioner partitioner;
    private final int me;
    private final MulticastEndpoint endpoint;
    private final TreeConfig treeConfig;
    private final SessionDirectory sessionDirectory = new SessionDirectory();
    private ZnodeTree tree;
    private long sessionClock;
    private final ReplicaProbe probe = new ReplicaProbe();
    /** The front ends the current command sent events to, and whom they acknowledge them to. */
    private final TreeSet<Integer> eventTargets = new TreeSet<>();
    private int commandFrontEnd = VoleryWire.NO_ACK;
    private long commandZxid;
    /**
     * Whether top-level creates and deletes finish in continuations (ADR 036): partitions do not stop
     * for each other's verdicts and events. Subtree partitioning only: under hash a node's parent may sit
     * in another partition, so too many single-partition commands would read what they change.
     */
    private final boolean deferTopLevel;
    /** Top-level nodes this partition follows the owner's delete of, once its verdict arrives. */
    private final java.util.Set<String> pendingDeletes = new java.util.HashSet<>();
    /**
     * Top-level nodes created or deleted by commands whose reply waits for a continuation here: until it
     * ran, another partition may not have delivered the command, so no reply may reveal its effect. Counted,
     * not a set: a delete of /x may run beside the pending create of /x (ADR 036), and the create's
     * continuation must not make /x look settled while the delete's is still to come.
     */
    private final PendingCounts pendingTopLevel = new PendingCounts();

    /** How many pending commands created or deleted each top-level node. */
    private static final class PendingCounts {
        private final java.util.Map<String, Integer> counts = new java.util.HashMap<>();

        void add(String path) {
            counts.merge(path, 1, Integer::sum);
        }

        void remove(String path) {
            counts.computeIfPresent(path, (k, n) -> n > 1 ? n - 1 : null);
        }

        boolean contains(String path) {
            return counts.containsKey(path);
        }

        boolean isEmpty() {
            return counts.isEmpty();
        }

        void clear() {
            counts.clear();
        }
    }

    /** The system property that turns deferred top-level creates and deletes off (for comparisons). */
    public static final String DEFER_TOP_LEVEL_PROPERTY = "volery.deferTopLevel";

    public VoleryStateMachine(MulticastEndpoint endpoint, VoleryOracle oracle, TreeConfig treeConfig) {
        super(endpoint, oracle);
        this.endpoint = endpoint;
        this.partitioner = oracle.partitioner();
        this.me = getLocalPartition().getId();
        this.treeConfig = treeConfig;
        this.tree = newTree();
        this.deferTopLevel = defersTopLevel(partitioner);
    }

    /** Whether replicas under {@code partitioner} finish top-level creates and deletes in continuations (ADR 036). */
    static boolean defersTopLevel(PathPartitioner partitioner) {
        return !partitioner.isHash() && Boolean.parseBoolean(System.getProperty(DEFER_TOP_LEVEL_PROPERTY, "true"));
    }

    private io.volery.server.audit.AuditLog audit;
    private String auditUser;

    /**
     * Writes ZooKeeper's audit line for every ephemeral node a session's end removes here (ADR 071), with
     * {@code user} (the server's) as ZooKeeper does; null: none.
     */
    public void setAudit(io.volery.server.audit.AuditLog audit, String user) {
        this.audit = audit;
        this.auditUser = user;
        tree.setEphemeralRemovals(audit == null ? null : this::ephemeralRemoved);
    }

    private void ephemeralRemoved(long sessionId, String path) {
        audit.log("0x" + Long.toHexString(sessionId), auditUser, null, "ephemeralZNodeDeletionOnSessionCloseOrExpire",
                path, null, null, io.volery.server.audit.AuditLog.Result.SUCCESS);
    }

    private final io.volery.server.tree.EnsembleConfig ensemble = new io.volery.server.tree.EnsembleConfig();

    /** What this replica's {@code /zookeeper/config} shows (ADR 097); publish on it from any thread. */
    public io.volery.server.tree.EnsembleConfig ensembleConfig() {
        return ensemble;
    }

    private ZnodeTree newTree() {
        ZnodeTree t = new ZnodeTree(treeConfig);
        t.setEnsembleConfig(ensemble);
        if (audit != null) {
            t.setEphemeralRemovals(this::ephemeralRemoved);
        }
        t.setTouchOnCommand(false);
        if (partitioner.isHash()) {
            // a partition holds every node but the data of its own: its stats nodes hold its share (ADR 089)
            t.holdDataOnlyOf(path -> partitioner.ownerOf(path) == me);
            // only a node's owner applies its setData, so only the owner knows when its TTL runs out
            t.setTtlArbiter(this::ttlsTheOwnersExpire);
        }
        return t;
    }

    /** The tree, for tests and monitoring (read it only while the replica is idle). */
    public ZnodeTree tree() {
        return tree;
    }

    /** Monitoring's view of this replica. */
    public ReplicaProbe probe() {
        return probe;
    }

    private Map<Partition, Object> timedExchange(Object value) {
        long start = System.nanoTime();
        try {
            return exchange(value);
        } finally {
            probe.signalWaited(System.nanoTime() - start);
        }
    }

    private Integer timedReceiveFrom(int owner, Integer verdict) {
        long start = System.nanoTime();
        try {
            return (Integer) receiveFrom(Partition.get(owner), verdict);
        } finally {
            if (owner != me) {
                probe.signalWaited(System.nanoTime() - start);
            }
        }
    }

    @Override
    public Object executeCommand(Command c) {
        Object result;
        try {
            result = execute(c);
        } catch (CommandAbandonedException e) {
            throw e; // its state is about to be replaced: no digest of a half-executed command
        } catch (RuntimeException e) {
            probe.afterCommand(tree, getCurrentPosition());
            throw e;
        }
        if (probe.digesting() && unsettled()) {
            // a digest compares replicas at a position: each settles first, so all agree on what it covers
            settle();
        }
        probe.afterCommand(tree, getCurrentPosition());
        return result;
    }

    private Object execute(Command c) {
        VoleryRequest r = (VoleryRequest) c.getNext();
        long zxid = getCurrentPosition();
        eventTargets.clear();
        commandFrontEnd = r.kind == VoleryRequest.ZK ? r.frontEnd : VoleryWire.NO_ACK;
        commandZxid = zxid;
        try {
            Object reply = execute(r, zxid);
            if (reply instanceof byte[] bytes && !eventTargets.isEmpty()) {
                // the front end of the request releases the reply once these front ends queued the events
                return new Object[] {bytes, eventTargets.stream().mapToInt(Integer::intValue).toArray(), zxid};
            }
            return reply;
        } catch (CommandAbandonedException e) {
            throw e; // not a failure: the replica takes a peer's state instead
        } catch (RuntimeException e) {
            // Eyrie sends only the message to the client; the stack trace is for the operator.
            log.error("partition={} failed to execute a request of kind {} at zxid={}", me, r.kind, zxid, e);
            throw e;
        }
    }

    private Object execute(VoleryRequest r, long zxid) {
        if (isCheckpointing()) {
            // at the first command the tree is still the one the replica started with: from then on it
            // keeps its changes, so that a checkpoint's capture costs only those (idempotent, cheap)
            tree.enableCaptures();
        }
        return switch (r.kind) {
            case VoleryRequest.ZK -> zk(r, zxid);
            case VoleryRequest.CREATE_SESSION -> createSession(r, zxid);
            case VoleryRequest.RECONNECT -> reconnect(r, zxid);
            case VoleryRequest.TOUCH -> {
                settleBeforeTick(r.timeMillis);
                yield touch(r, zxid);
            }
            case VoleryRequest.TICK -> {
                settleBeforeTick(r.timeMillis);
                yield tick(r.timeMillis, zxid);
            }
            default -> throw new IllegalArgumentException("unknown Volery request kind " + r.kind);
        };
    }

    // ---- sessions ----------------------------------------------------------------------------

    /** The identities a client's connection brings by itself: {@code ip:<address>}, as ZooKeeper's. */
    private static List<Id> connectionIds(VoleryRequest r) {
        return r.clientAddress == null ? List.of() : List.of(new Id("ip", r.clientAddress));
    }

    private Object createSession(VoleryRequest r, long zxid) {
        Result res = tree.apply(new io.volery.server.tree.Command.CreateSession(r.sessionId, r.timeoutMillis,
                        connectionIds(r)),
                zxid, sessionTime(r.timeMillis));
        if (!res.isOk()) {
            return new SessionReply(false, 0);
        }
        if (!x509Identity(r, zxid)) {
            // refused alike in every partition: the session opened above goes again, the connection closes
            tree.apply(new io.volery.server.tree.Command.CloseSession(r.sessionId), zxid, sessionTime(r.timeMillis));
            return new SessionReply(false, 0);
        }
        sessionDirectory.put(r.sessionId, r.frontEnd, r.passwd);
        return new SessionReply(true, res.reply(Reply.Session.class).timeoutMs());
    }

    /**
     * The certificate identity the connection brings (ADR 060), given to the session as ZooKeeper gives it to
     * the connection; false when the cluster does not authenticate by certificate (a front end with TLS
     * its peers lack), and the connection is then refused.
     */
    private boolean x509Identity(VoleryRequest r, long zxid) {
        if (r.x509Identity == null) {
            return true;
        }
        Result res = tree.apply(new io.volery.server.tree.Command.X509Identity(r.sessionId, r.x509Identity), zxid,
                sessionTime(r.timeMillis));
        if (!res.isOk()) {
            log.warn("session 0x{}: certificate identity '{}' refused: {}", Long.toHexString(r.sessionId),
                    r.x509Identity, res.code());
        }
        return res.isOk();
    }

    private Object reconnect(VoleryRequest r, long zxid) {
        SessionDirectory.Entry e = sessionDirectory.get(r.sessionId);
        SessionTable.Session s = tree.sessions().get(r.sessionId);
        if (e == null || s == null || !Arrays.equals(e.passwd, r.passwd)) {
            return new SessionReply(false, 0);
        }
        // identities belong to the connection (ADR 070): the new one starts with its own, and the client
        // proves the others again; a reconnect with the session's password alone carries none of them
        tree.apply(new io.volery.server.tree.Command.ConnectionIdentities(r.sessionId, connectionIds(r)), zxid,
                sessionTime(r.timeMillis));
        if (!x509Identity(r, zxid)) {
            return new SessionReply(false, 0);
        }
        // The session moves to the front end it reconnected through; requests still in flight from
        // the old one get SessionMoved.
        // reconnects are numbered, the same at every replica of every partition, so that a front end can tell a
        // late notice of an older move (a lagging or replaying replica's) from the latest (ADR 098), and an event
        // of the session's stay at a previous run of the front end it came back to (ADR 100); a reconnect through
        // the same front end counts too, since that front end may have restarted in between
        long moves = e.moves + 1;
        sessionDirectory.put(r.sessionId, r.frontEnd, e.passwd);
        sessionDirectory.get(r.sessionId).moves = moves;
        if (e.frontEnd == r.frontEnd) {
            // request numbers are the front end's: they go on after a reconnect through the same one
            sessionDirectory.get(r.sessionId).lastSeq = e.lastSeq;
        }
        tree.apply(new io.volery.server.tree.Command.TouchSessions(List.of(r.sessionId)), zxid, sessionTime(r.timeMillis));
        SessionReply reply = new SessionReply(true, s.timeoutMs());
        reply.move = moves;
        if (e.frontEnd != r.frontEnd) {
            // the old front end hands the new one the events it kept while the session was away
            endpoint.sendDirect(e.frontEnd, VoleryWire.moved(r.sessionId, r.frontEnd, moves));
            reply.previousFrontEnd = e.frontEnd;
        }
        return reply;
    }

    private Object touch(VoleryRequest r, long zxid) {
        List<Long> live = new ArrayList<>();
        for (long id : r.sessions) {
            SessionDirectory.Entry e = sessionDirectory.get(id);
            // Only the front end holding a session keeps it alive.
            if (e != null && e.frontEnd == r.frontEnd) {
                live.add(id);
            }
        }
        long time = sessionTime(r.timeMillis);
        if (!live.isEmpty()) {
            tree.apply(new io.volery.server.tree.Command.TouchSessions(live), zxid, time);
        }
        return tick(time, zxid);
    }

    /** Expires sessions and TTL nodes at the same point of every partition's order. */
    private Object tick(long timeMillis, long zxid) {
        long time = sessionTime(timeMillis);
        // every partition has the same sessions and session time, so all see the same ones expire here
        List<Long> expiring = new ArrayList<>();
        for (SessionTable.Session s : tree.sessions().all()) {
            if (s.deadline() < time) {
                expiring.add(s.id());
            }
        }
        if (expiring.isEmpty()) {
            dispatch(fired(tree.tick(zxid, time)));
        } else {
            closeInZooKeepersOrder(expiring, () -> tree.tick(zxid, time));
        }
        List<Long> expired = new ArrayList<>();
        for (Long id : sessionDirectory.ids()) {
            if (!tree.sessions().contains(id)) {
                expired.add(id);
            }
        }
        for (long id : expired) {
            SessionDirectory.Entry e = sessionDirectory.remove(id);
            log.info("partition={} session=0x{} expired at zxid={}", me, Long.toHexString(id), zxid);
            endpoint.sendDirect(e.frontEnd, VoleryWire.expired(id));
            endedElsewhere(id, e.frontEnd);
        }
        return Boolean.TRUE;
    }

    /**
     * A session ended (closed through {@code frontEnd}, or expired while held there): this node's own front end
     * drops any connection it still has of it, as every ZooKeeper server closes its connections of a session
     * whose close it applies. Such a connection is one the session moved away from (another handle reconnected
     * elsewhere with its id and password); without this its client would keep pinging a session that is gone
     * and never learn that it expired. Every node applies the end (every partition does), so every front end
     * hears it, locally: no frame crosses the network.
     */
    private void endedElsewhere(long sessionId, int frontEnd) {
        int self = endpoint.nodeId();
        if (frontEnd != self) {
            endpoint.sendDirect(self, VoleryWire.expired(sessionId));
        }
    }

    private java.util.Collection<String> ttlsTheOwnersExpire(List<String> dueHere) {
        List<String> mine = new ArrayList<>();
        for (String path : dueHere) {
            if (partitioner.ownerOf(path) == me) {
                mine.add(path);
            }
        }
        TreeSet<String> all = new TreeSet<>(mine);
        for (Object v : timedExchange(mine.toArray(new String[0])).values()) {
            all.addAll(Arrays.asList((String[]) v));
        }
        return all;
    }

    /** Session time only moves forward, so a lagging front end's clock cannot revive anything. */
    private long sessionTime(long proposed) {
        sessionClock = Math.max(sessionClock, proposed);
        return sessionClock;
    }

    // ---- ZooKeeper requests ------------------------------------------------------------------

    private Object zk(VoleryRequest r, long zxid) {
        ZkRequest q;
        try {
            q = ZkCodec.decodeRequest(r.frame);
        } catch (ZkCodec.MalformedRequestException e) {
            return error(zxid, ErrorCode.MARSHALLINGERROR);
        }
        SessionDirectory.Entry owner = sessionDirectory.get(r.sessionId);
        if (owner == null || !tree.sessions().contains(r.sessionId)) {
            return error(zxid, ErrorCode.SESSIONEXPIRED);
        }
        if (owner.frontEnd != r.frontEnd) {
            return error(zxid, ErrorCode.SESSIONMOVED);
        }
        if (r.after != 0 && owner.lastSeq < r.after) {
            // This request was ordered before the one it was pipelined behind: that one went to several
            // partitions and its ring ordered it later here (ADR 041), or a coordinator failover
            // re-proposed it late. Only single-partition requests are pipelined, so no other partition
            // waits on this one: refuse it untouched; the front end sends it again once the earlier
            // one is answered (volery_reordered_resends counts them).
            log.debug("partition={} session=0x{} request {} arrived before request {}; refused for a resend",
                    me, Long.toHexString(r.sessionId), r.seq, r.after);
            return REORDERED;
        }
        owner.lastSeq = Math.max(owner.lastSeq, r.seq);
        io.volery.server.tree.Command cmd;
        try {
            cmd = JuteTranslator.toCommand(r.sessionId, q);
        } catch (JuteTranslator.RejectedRequest e) {
            return error(zxid, e.code());
        }
        if (cmd == null) {
            // reconfig is recognised: ZooKeeper answers it so while dynamic reconfiguration is off
            return error(zxid, q.opCode() == OpCodes.RECONFIG ? ErrorCode.RECONFIGDISABLED : ErrorCode.UNIMPLEMENTED);
        }
        long time = r.timeMillis;
        if (q.opCode() == OpCodes.SET_WATCHES || q.opCode() == OpCodes.SET_WATCHES2) {
            // Its exchange waits for every partition, and another may wait for a part this partition sends
            // only in a continuation (a follower's events of a top-level delete): those run first, as before
            // any request that does not run beside them. It also reads the nodes they change.
            settleIfDeferring();
            return setWatches(q, (io.volery.server.tree.Command.SetWatches) cmd, r, zxid, time);
        }
        Scope scope = Scope.of(q, partitioner);
        if (deferTopLevel && unsettled() && !runsBesideContinuations(q, scope, cmd)) {
            settle();
        }
        Object reply = switch (scope) {
            case EVERY -> q.opCode() == OpCodes.CLOSE_SESSION ? closeSession(q, cmd, zxid, time)
                    : Scope.createsListedEverywhere(q, partitioner) ? applyEverywhere(q, cmd, zxid, time)
                    : q.opCode() == OpCodes.SET_ACL ? answerWithTheOwnersStat(q, cmd, zxid, time)
                    : q.opCode() == OpCodes.SET_DATA && partitioner.rootHome() ? applyWithTheRootOwnersEvents(q, cmd, zxid, time)
                    : applyHere(q, cmd, zxid, time);
            case OWNER, LOCAL -> applyHere(q, cmd, zxid, time);
            case OWNER_VERDICT -> ownerVerdict(q, cmd, zxid, time);
            case MULTI -> multi(q, (io.volery.server.tree.Command.Multi) cmd, zxid, time);
            case GATHER -> gather(q, cmd, zxid, time);
        };
        if (q.opCode() == OpCodes.CLOSE_SESSION) {
            sessionDirectory.remove(r.sessionId);
            endedElsewhere(r.sessionId, r.frontEnd);
        }
        return reply;
    }

    private void settleIfDeferring() {
        if (deferTopLevel && unsettled()) {
            settle();
        }
    }

    /** A tick that expires a session (its ephemerals) or may reap containers and TTL nodes reads the root. */
    private void settleBeforeTick(long proposedTime) {
        if (deferTopLevel && unsettled() && tree.tickMayDelete(Math.max(sessionClock, proposedTime))) {
            settle();
        }
    }

    /** Whether a request (or one of a multi's operations) names a path that {@code test} accepts. */
    private static boolean namesAny(ZkRequest q, java.util.function.Predicate<String> test) {
        if (!q.ops().isEmpty()) {
            for (ZkRequest op : q.ops()) {
                if (test.test(Scope.pathOf(op.body()))) {
                    return true;
                }
            }
            return false;
        }
        return test.test(Scope.pathOf(q.body()));
    }

    /** Whether a request (or one of a multi's operations) names the root or /zookeeper/quota (ADR 072). */
    private static boolean namesListingNode(ZkRequest q) {
        return namesAny(q, PathPartitioner::listsEverywhere);
    }

    /** Whether a request on owned subtrees names a top-level node a pending command created or deleted here. */
    private boolean namesPendingTopLevel(ZkRequest q) {
        return !pendingTopLevel.isEmpty()
                && namesAny(q, path -> pendingTopLevel.contains(PathPartitioner.listedAncestorOf(path)));
    }

    /**
     * Whether a request may execute while continuations of earlier top-level creates and deletes have not
     * run (ADR 036). Those change only the root's list of children (a follower's copy of a deleted node),
     * one-shot watches on the root or the node, and send events. A request on a path this partition owns
     * below the root touches none of it; a top-level create or delete changes the root's list too, which
     * commutes unless it creates a sequential node (named by the root's cversion), names a node whose
     * delete is pending here, or could fire a watch the pending ones could fire first.
     */
    private boolean runsBesideContinuations(ZkRequest q, Scope scope, io.volery.server.tree.Command cmd) {
        return switch (scope) {
            // the root's owner answers reads of the root (ADR 053): they wait like any read of a pending node
            case OWNER -> !namesListingNode(q) && !namesPendingTopLevel(q);
            case EVERY -> Scope.createsListedEverywhere(q, partitioner)
                    && cmd instanceof io.volery.server.tree.Command.Create c && !c.mode().isSequential()
                    && !pendingDeletes.contains(c.path()) && !tree.topLevelChangeWatched(c.path());
            case OWNER_VERDICT -> cmd instanceof io.volery.server.tree.Command.Delete d
                    && !pendingDeletes.contains(d.path()) && !tree.topLevelChangeWatched(d.path());
            default -> false;
        };
    }

    /** A top-level create: every partition lists the node, the owner keeps it; their events merge. */
    private Object applyEverywhere(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        Result res = tree.apply(cmd, zxid, time);
        if (!deferTopLevel) {
            dispatchMerged(List.of(cmd), fired(res));
            return encode(JuteTranslator.toReply(q, res, zxid));
        }
        String path = Scope.pathOf(q.body());
        pendingTopLevel.add(path);
        // the node as created (a sequential create's name), whose owner is one of the parts' senders
        String created = res.reply() instanceof Reply.Created c ? c.path() : path;
        return mergeEventsLater(List.of(cmd), fired(res), encode(JuteTranslator.toReply(q, res, zxid)), path, created);
    }

    /**
     * {@link #dispatchMerged} without stopping the executor: this partition's events leave now, and the
     * reply (with the front ends the merged events went to) follows once every partition's are in.
     */
    private Object mergeEventsLater(List<? extends io.volery.server.tree.Command> ops, List<WatchEvent> events,
                                    byte[] reply, String topLevel) {
        return mergeEventsLater(ops, events, reply, topLevel, topLevel);
    }

    /** @param node the node created or deleted, whose owner sends its part (ADR 053) */
    private Object mergeEventsLater(List<? extends io.volery.server.tree.Command> ops, List<WatchEvent> events,
                                    byte[] reply, String topLevel, String node) {
        Object[] part = eventsPart(ops, events);
        // ADR 053: only the node's owner and the root's owner tell; their parts are all any reader waits for
        int[] senders = partitioner.topLevelEventSenders(node);
        // the front end's partition, or -1 without one (NO_ACK) or for a client-only node: then every partition receives
        int frontEnd = senders == null || !FRONT_END_ANSWERS ? -1 : partitionOfNode(commandFrontEnd);
        Round round;
        boolean merges = true;
        if (senders == null) {
            round = exchangeLater(part);
        } else {
            List<Partition> telling = java.util.Arrays.stream(senders).mapToObj(Partition::get).toList();
            if (frontEnd < 0) {
                round = receiveLater(telling, part);
            } else {
                // ADR 054: the senders and the front end's partition merge the events and may answer; the
                // senders still wait for each other (each one's reads must not reveal the change before the
                // other applied it). A partition that is none of them neither waits nor dispatches nor
                // answers: every watch a top-level change fires is in a sender's part.
                java.util.TreeSet<Integer> receivers = new java.util.TreeSet<>();
                for (int s : senders) {
                    receivers.add(s);
                }
                receivers.add(frontEnd);
                List<Partition> answering = receivers.stream().map(Partition::get).toList();
                replyOnlyFrom(answering);
                round = receiveLater(telling, answering, part);
                merges = receivers.contains(me);
            }
        }
        boolean mergesHere = merges;
        return continueLater(round, parts -> {
            if (mergesHere) {
                List<Object> others = new ArrayList<>();
                parts.forEach((partition, value) -> {
                    if (partition.getId() != me) {
                        others.add(value);
                    }
                });
                dispatchParts(part, others);
            }
            pendingTopLevel.remove(topLevel); // the runtime sends the reply once the signals are in too
            return reply;
        });
    }

    /**
     * Whether a top-level create's or delete's parts go to its senders and its front end's partition only,
     * which alone answer it (ADR 054); {@code -Dvolery.frontEndAnswers=false} makes every partition wait for
     * the senders' parts and answer (ADR 053), for comparison. Every node of a cluster must agree.
     */
    private static final boolean FRONT_END_ANSWERS = !"false".equals(System.getProperty("volery.frontEndAnswers"));

    /**
     * {@link #later} with this command's event context (the front end to acknowledge events to, the
     * zxid, the front ends sent events) restored around {@code then}, and the reply carrying those front
     * ends as {@link #execute(Command)} does.
     */
    private Object continueLater(Round round, java.util.function.Function<Map<Partition, Object>, Object> then) {
        int frontEnd = commandFrontEnd;
        long zxid = commandZxid;
        return later(round, values -> {
            int outerFrontEnd = commandFrontEnd;
            long outerZxid = commandZxid;
            List<Integer> outerTargets = new ArrayList<>(eventTargets);
            commandFrontEnd = frontEnd;
            commandZxid = zxid;
            eventTargets.clear();
            try {
                Object reply = then.apply(values);
                if (reply instanceof byte[] bytes && !eventTargets.isEmpty()) {
                    return new Object[] {bytes, eventTargets.stream().mapToInt(Integer::intValue).toArray(), zxid};
                }
                return reply;
            } finally {
                commandFrontEnd = outerFrontEnd;
                commandZxid = outerZxid;
                eventTargets.clear();
                eventTargets.addAll(outerTargets);
            }
        });
    }

    /**
     * A change every partition applies alike but whose reply carries the node's Stat (setACL under
     * hash): only the owner's copy has the current data version and length, so all answer with its reply.
     */
    private byte[] answerWithTheOwnersStat(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        byte[] mine = applyHere(q, cmd, zxid, time);
        String path = Scope.pathOf(q.body());
        if (PathPartitioner.isRoot(path)) {
            return mine;
        }
        int owner = partitioner.ownerOf(path);
        Map<Partition, Object> others = timedExchange(owner == me ? mine : null);
        return owner == me ? mine : (byte[]) others.get(Partition.get(owner));
    }

    /**
     * A write of the root: every partition applies it, and the root's owner, which holds the root's
     * watches (ADR 053), tells the others its events, which each dispatches with its own before it may
     * answer: a session watching the root sees the event before the reply, whichever replica answers.
     */
    private Object applyWithTheRootOwnersEvents(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        Result res = tree.apply(cmd, zxid, time);
        int home = partitioner.ownerOf("/");
        Object[] part = eventsPart(List.of(cmd), fired(res));
        byte[] reply = encode(JuteTranslator.toReply(q, res, zxid));
        if (!deferTopLevel) {
            Object homePart = receiveFrom(Partition.get(home), home == me ? part : null);
            dispatchParts(part, home == me ? List.of() : List.of(homePart));
            return reply;
        }
        // the others go on executing (nothing they run reads the root: its readers are at its owner) and
        // dispatch and answer once the owner's events are in; a later command with events settles first
        return continueLater(receiveLater(Partition.get(home), home == me ? part : null), parts -> {
            dispatchParts(part, home == me ? List.of() : List.of(parts.get(Partition.get(home))));
            return reply;
        });
    }

    private byte[] applyHere(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        Result res = tree.apply(cmd, zxid, time);
        dispatch(fired(res));
        return encode(JuteTranslator.toReply(q, res, zxid));
    }

    /**
     * Closing a session deletes its ephemerals in every partition. ZooKeeper deletes them one by one in
     * the order of its session set, and the watch events follow that order; here each partition knows
     * only its own, so the partitions exchange their ephemerals (with creation zxids and set table) and
     * the events each deletion caused, and every replica sends the front ends the whole list in
     * ZooKeeper's order (the front end keeps the first copy of each event).
     */
    private byte[] closeSession(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        Result res = closeInZooKeepersOrder(List.of(cmd.sessionId()), () -> tree.apply(cmd, zxid, time));
        return encode(JuteTranslator.toReply(q, res, zxid));
    }

    /**
     * Runs {@code close}, which ends the sessions {@code closing} (in that order) in every partition, and
     * dispatches the watch events of their ephemerals' deletion in ZooKeeper's order: session by session,
     * each session's ephemerals in the order of its set. Each partition knows only its own ephemerals, so
     * the partitions exchange them (with creation zxids and set table) and the events each deletion
     * caused, and every replica sends the front ends the whole list (a front end keeps the first copy
     * of each event). Events the deletions did not cause (reaped containers) follow, from their partition.
     */
    private Result closeInZooKeepersOrder(List<Long> closing, java.util.function.Supplier<Result> close) {
        List<String> localOrder = new ArrayList<>();
        Object[][] sessionParts = new Object[closing.size()][];
        for (int i = 0; i < closing.size(); i++) {
            SessionTable.Session session = tree.sessions().get(closing.get(i));
            localOrder.addAll(session == null ? List.of() : session.ephemerals());
            sessionParts[i] = ownedEphemerals(session);
        }
        Result res = close.get();
        // Events of deleting p name p or its parent, in deletion order: cut the list where it moves on.
        Map<String, List<WatchEvent>> byEphemeral = new HashMap<>();
        List<WatchEvent> unattributed = new ArrayList<>();
        int at = 0;
        for (WatchEvent e : fired(res)) {
            while (at < localOrder.size() && !causedBy(e, localOrder.get(at))) {
                at++;
            }
            if (at < localOrder.size()) {
                byEphemeral.computeIfAbsent(localOrder.get(at), k -> new ArrayList<>()).add(e);
            } else {
                unattributed.add(e);
            }
        }
        // Every partition sends the events it fired for each ephemeral: the node's own watches and its
        // parent's may sit in different partitions (hash), or a copy may hold the root's (subtree).
        List<String> fired = new ArrayList<>();
        for (String path : localOrder) {
            if (byEphemeral.containsKey(path)) {
                fired.add(path);
            }
        }
        byte[][] events = new byte[fired.size()][];
        for (int i = 0; i < fired.size(); i++) {
            events[i] = VoleryWire.events(byEphemeral.get(fired.get(i)));
        }
        Object[] part = {sessionParts, fired.toArray(new String[0]), events, me};
        List<Object[]> parts = new ArrayList<>();
        parts.add(part);
        for (Object v : timedExchange(part).values()) {
            parts.add((Object[]) v);
        }
        parts.sort(java.util.Comparator.comparingInt(p -> (Integer) p[3]));
        Map<String, List<WatchEvent>> eventsByPath = new HashMap<>();
        for (Object[] p : parts) {
            String[] paths = (String[]) p[1];
            byte[][] encoded = (byte[][]) p[2];
            for (int i = 0; i < paths.length; i++) {
                eventsByPath.computeIfAbsent(paths[i], k -> new ArrayList<>())
                        .addAll(((VoleryWire.Events) VoleryWire.decode(encoded[i])).events());
            }
        }
        List<WatchEvent> ordered = new ArrayList<>();
        for (int i = 0; i < closing.size(); i++) {
            List<Object[]> ofSession = new ArrayList<>();
            for (Object[] p : parts) {
                ofSession.add(((Object[][]) p[0])[i]);
            }
            for (String path : mergedEphemeralOrder(ofSession)) {
                List<WatchEvent> of = eventsByPath.get(path);
                if (of != null) {
                    ordered.addAll(deletionOrder(path, of));
                }
            }
        }
        ordered.addAll(unattributed);
        dispatch(ordered);
        return res;
    }

    /**
     * setWatches re-arms each watch in the partition that owns its path, and fires at once the events
     * the client missed. ZooKeeper fires them in one pass: data watches, then exist watches, then child
     * watches, each in the client's order; the partitions exchange theirs and every replica sends the
     * whole list in that order. Their zxid marks the command (see {@link VoleryWire#setWatchesZxid}), so
     * the front end keeps the events of one reconnect apart from those of the next.
     */
    private byte[] setWatches(ZkRequest q, io.volery.server.tree.Command.SetWatches all, VoleryRequest r,
                              long zxid, long time) {
        io.volery.server.tree.Command.SetWatches mine = SetWatchesSplitter.restrict(all, partitioner, me);
        Result res = tree.apply(mine, zxid, time);
        List<String> keyed = new ArrayList<>();
        keyed.addAll(all.dataWatches());
        keyed.addAll(all.existWatches());
        keyed.addAll(all.childWatches());
        int existFrom = all.dataWatches().size();
        int childFrom = existFrom + all.existWatches().size();
        List<WatchEvent> events = new ArrayList<>();
        int[] keys = new int[res.events().size()];
        int last = -1;
        for (WatchEvent e : res.events()) {
            int from = switch (e.type()) {
                case NODE_DATA_CHANGED -> 0;
                case NODE_CREATED -> existFrom;
                case NODE_CHILDREN_CHANGED -> childFrom;
                case NODE_DELETED -> last < existFrom && all.dataWatches().contains(e.path()) ? 0 : childFrom;
            };
            int key = Math.max(from, last + 1);
            while (key < keyed.size() && !keyed.get(key).equals(e.path())) {
                key++;
            }
            last = Math.min(key, keyed.size() - 1);
            keys[events.size()] = key;
            events.add(new WatchEvent(e.sessionId(), e.type(), e.path(), VoleryWire.setWatchesZxid(zxid)).withFiredIn(WatchEvent.partitionSet(me)));
        }
        Object[] part = {VoleryWire.events(events), keys};
        List<Object[]> parts = new ArrayList<>();
        parts.add(part);
        for (Object v : timedExchange(part).values()) {
            parts.add((Object[]) v);
        }
        record Keyed(int key, WatchEvent event) {
        }
        List<Keyed> merged = new ArrayList<>();
        for (Object[] p : parts) {
            List<WatchEvent> theirs = ((VoleryWire.Events) VoleryWire.decode((byte[]) p[0])).events();
            int[] theirKeys = (int[]) p[1];
            for (int i = 0; i < theirs.size(); i++) {
                merged.add(new Keyed(theirKeys[i], theirs.get(i)));
            }
        }
        merged.sort(java.util.Comparator.comparingInt(Keyed::key));
        dispatch(merged.stream().map(Keyed::event).toList());
        return encode(JuteTranslator.toReply(q, res, zxid));
    }

    /**
     * The events of deleting {@code path}, gathered from several partitions, as ZooKeeper fires them:
     * the node's own watches before its parent's, each event once (persistent watches are kept by
     * several partitions under hash, and each fires).
     */
    private static List<WatchEvent> deletionOrder(String path, List<WatchEvent> gathered) {
        List<WatchEvent> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int pass = 0; pass < 2; pass++) {
            for (WatchEvent e : gathered) {
                boolean own = e.path().equals(path);
                if (own == (pass == 0) && seen.add(e.sessionId() + "/" + e.type() + "/" + e.path())) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private static boolean causedBy(WatchEvent e, String deleted) {
        if (e.path().equals(deleted)) {
            return true;
        }
        int slash = deleted.lastIndexOf('/');
        String parent = slash == 0 ? "/" : deleted.substring(0, slash);
        return e.path().equals(parent);
    }

    /** Deleting a top-level node: its owner decides, every partition follows. */
    private Object ownerVerdict(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        io.volery.server.tree.Command.Delete d = (io.volery.server.tree.Command.Delete) cmd;
        int owner = partitioner.ownerOf(d.path());
        if (deferTopLevel) {
            return ownerVerdictLater(q, d, owner, zxid, time);
        }
        Result res = null;
        Integer verdict = null;
        if (owner == me) {
            res = tree.apply(cmd, zxid, time);
            verdict = res.code().code();
        }
        // one way (ADR 034): the owner tells the others and goes on; it needs nothing from them
        Integer told = timedReceiveFrom(owner, verdict);
        if (owner != me) {
            res = followVerdict(d, told, zxid, time);
        }
        dispatchMerged(List.of(d), fired(res));
        return encode(JuteTranslator.toReply(q, res, zxid));
    }

    /** A follower's side of the owner's delete: drops its copy of the node if the owner did. */
    private Result followVerdict(io.volery.server.tree.Command.Delete d, int verdict, long zxid, long time) {
        if (verdict != ErrorCode.OK.code()) {
            return new Result(ErrorCode.of(verdict), Reply.Empty.INSTANCE, List.of());
        }
        // This partition's copy of the node has neither version nor children of its own.
        Result res = tree.apply(new io.volery.server.tree.Command.Delete(d.sessionId(), d.path(), -1), zxid, time);
        if (!res.isOk()) {
            throw new IllegalStateException("partition " + me + " cannot follow the owner's delete of "
                    + d.path() + ": " + res.code());
        }
        return res;
    }

    /**
     * {@link #ownerVerdict} without the wait (ADR 036): the owner applies the delete and tells the others,
     * as before; a follower records the delete as pending and goes on, and applies it (at the delete's
     * zxid) when the verdict arrives, or earlier if a command that reads the root settles. Then the
     * partitions merge their events, also later.
     */
    private Object ownerVerdictLater(ZkRequest q, io.volery.server.tree.Command.Delete d, int owner, long zxid,
                                     long time) {
        pendingTopLevel.add(d.path());
        if (owner == me) {
            Result res = tree.apply(d, zxid, time);
            receiveFrom(Partition.get(owner), res.code().code()); // one way: nothing to wait for
            return mergeEventsLater(List.of(d), fired(res), encode(JuteTranslator.toReply(q, res, zxid)), d.path());
        }
        pendingDeletes.add(d.path());
        return continueLater(receiveLater(Partition.get(owner), null), told -> {
            pendingDeletes.remove(d.path());
            Result res = followVerdict(d, (Integer) told.get(Partition.get(owner)), zxid, time);
            return mergeEventsLater(List.of(d), fired(res), encode(JuteTranslator.toReply(q, res, zxid)), d.path());
        });
    }

    /** A multi across subtrees: dry-run, exchange verdicts, apply all or none, exchange results. */
    private byte[] multi(ZkRequest q, io.volery.server.tree.Command.Multi m, long zxid, long time) {
        List<io.volery.server.tree.Command.MultiOp> ops = m.ops();
        List<Integer> mine = new ArrayList<>();
        List<io.volery.server.tree.Command.MultiOp> myOps = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            io.volery.server.tree.Command.MultiOp op = ops.get(i);
            String path = MultiPaths.pathOf(op);
            boolean every = MultiPaths.listedEverywhere(op, partitioner);
            if (partitioner.ownerOf(path) == me || every) {
                mine.add(i);
                myOps.add(every && partitioner.ownerOf(path) != me ? MultiPaths.followerCopy(op) : op);
            }
        }
        // Dry run: a failing sentinel at the end makes the tree undo everything and report the first
        // failure among this partition's operations, if any comes before the sentinel.
        List<io.volery.server.tree.Command.MultiOp> probe = new ArrayList<>(myOps);
        probe.add(new io.volery.server.tree.Command.Check(m.sessionId(), "/", Integer.MIN_VALUE));
        Result dry = tree.apply(new io.volery.server.tree.Command.Multi(m.sessionId(), probe), zxid, time);
        int[] myVerdict = null;
        List<Result> dryResults = ((Reply.MultiResults) dry.reply()).results();
        for (int k = 0; k < myOps.size(); k++) {
            ErrorCode code = dryResults.get(k).code();
            if (code != ErrorCode.OK) {
                myVerdict = new int[] {mine.get(k), code.code(), me};
                break;
            }
        }
        int[] failure = myVerdict;
        for (Object v : timedExchange(myVerdict).values()) {
            int[] theirs = (int[]) v;
            // A copy fails a delete for its structure (no node, children) and so does the owner, which
            // also checks the version first: at the same operation the owner's code is ZooKeeper's.
            if (theirs != null && (failure == null || theirs[0] < failure[0] || theirs[0] == failure[0]
                    && theirs[2] == partitioner.ownerOf(MultiPaths.pathOf(ops.get(theirs[0]))))) {
                failure = theirs;
            }
        }
        if (failure != null) {
            List<ZkReply.OpResult> results = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) {
                int err = i < failure[0] ? 0 : i == failure[0] ? failure[1] : ErrorCode.RUNTIMEINCONSISTENCY.code();
                results.add(new ZkReply.OpResult(OpCodes.ERROR, err, null));
            }
            return encode(ZkReply.multi(0, zxid, results));
        }
        Result applied = tree.apply(new io.volery.server.tree.Command.Multi(m.sessionId(), myOps), zxid, time);
        if (!applied.isOk() && !(applied.reply() instanceof Reply.MultiResults mr && allOk(mr))) {
            throw new IllegalStateException("partition " + me + ": a multi that passed its dry run failed: " + applied.code());
        }
        dispatchMerged(ops, fired(applied));
        List<Result> myResults = ((Reply.MultiResults) applied.reply()).results();
        TreeMap<Integer, byte[]> fragments = new TreeMap<>();
        for (int k = 0; k < mine.size(); k++) {
            int i = mine.get(k);
            int op = JuteTranslator.multiResultType(q.ops().get(i).opCode());
            if (partitioner.ownerOf(MultiPaths.pathOf(ops.get(i))) == me) {
                fragments.put(i, ZkCodec.encodeMultiFragment(new ZkReply.OpResult(op, 0,
                        op == OpCodes.CHECK ? null : JuteTranslator.body(op, myResults.get(k).reply()))));
            }
        }
        return assemble(fragments, ops.size(), zxid);
    }

    private static boolean allOk(Reply.MultiResults mr) {
        return mr.results().stream().allMatch(Result::isOk);
    }

    /** Exchanges per-operation reply fragments and assembles the whole reply in operation order. */
    @SuppressWarnings("unchecked")
    private byte[] assemble(TreeMap<Integer, byte[]> mine, int count, long zxid) {
        TreeMap<Integer, byte[]> all = new TreeMap<>(mine);
        for (Object v : timedExchange(new HashMap<>(mine)).values()) {
            all.putAll((Map<Integer, byte[]>) v);
        }
        if (all.size() != count) {
            throw new IllegalStateException("partition " + me + ": assembled " + all.size() + " of " + count
                    + " operation results");
        }
        return ZkCodec.encodeMultiReply(0, zxid, new ArrayList<>(all.values()));
    }

    /** Reads whose answer is spread over partitions. */
    private byte[] gather(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        if (cmd instanceof io.volery.server.tree.Command.MultiRead mr) {
            Map<Integer, Long> statsBytes = partitioner.isHash() ? summedQuotaStats(mr) : Map.of();
            TreeMap<Integer, byte[]> fragments = new TreeMap<>();
            for (int i = 0; i < mr.ops().size(); i++) {
                io.volery.server.tree.Command.ReadOp op = mr.ops().get(i);
                String path = MultiPaths.pathOf(op);
                boolean answerHere = PathPartitioner.isRoot(path) ? me == partitioner.partitions()[0]
                        : partitioner.ownerOf(path) == me;
                if (answerHere) {
                    Result res = tree.apply(op, zxid, time);
                    dispatch(fired(res));
                    if (statsBytes.containsKey(i) && res.reply() instanceof Reply.Data d) {
                        res = new Result(ErrorCode.OK, summedStats(d.data(), d.stat(), statsBytes.get(i), true), List.of());
                    }
                    int code = q.ops().get(i).opCode();
                    fragments.put(i, ZkCodec.encodeMultiFragment(res.isOk()
                            ? new ZkReply.OpResult(code, 0, JuteTranslator.body(code, res.reply()))
                            : new ZkReply.OpResult(OpCodes.ERROR, res.code().code(), null)));
                }
            }
            return assemble(fragments, mr.ops().size(), zxid);
        }
        if (cmd instanceof io.volery.server.tree.Command.GetData || cmd instanceof io.volery.server.tree.Command.Exists) {
            return gatherQuotaStats(q, cmd, zxid, time);
        }
        Result res = tree.apply(cmd, zxid, time);
        if (cmd instanceof io.volery.server.tree.Command.RemoveWatches
                || cmd instanceof io.volery.server.tree.Command.CheckWatches) {
            return encode(JuteTranslator.toReply(q, anyPartitionHadTheWatch(res), zxid));
        }
        if (cmd instanceof io.volery.server.tree.Command.GetEphemerals g) {
            return encode(JuteTranslator.toReply(q, gatherEphemerals(g, res), zxid));
        }
        // getAllChildrenNumber of the root (or of /zookeeper, /zookeeper/quota: ADR 072): every partition
        // counts the nodes it owns below it
        String below = ((io.volery.server.tree.Command.GetAllChildrenNumber) cmd).path();
        int mineCount = res.isOk() ? tree.countBelow(below, p -> partitioner.ownerOf(p) == me) : 0;
        int total = mineCount;
        for (Object v : timedExchange(mineCount).values()) {
            total += (Integer) v;
        }
        if (!res.isOk()) {
            return encode(JuteTranslator.toReply(q, res, zxid));
        }
        return encode(JuteTranslator.toReply(q, new Result(ErrorCode.OK, new Reply.Count(total), List.of()), zxid));
    }

    /**
     * getData or exists of a quota's stats node under hash (ADR 089): every partition's copy counts each node of
     * the quota's subtree but only the bytes of the nodes it owns, so the answer is the stats node's owner's
     * (its result, Stat and watch) with the bytes summed over the partitions, and the Stat's dataLength that of
     * the text answered. A share some partition cannot read (a client wrote other text there) leaves the
     * owner's text as it is.
     */
    private byte[] gatherQuotaStats(ZkRequest q, io.volery.server.tree.Command cmd, long zxid, long time) {
        String path = Scope.pathOf(q.body());
        int owner = partitioner.ownerOf(path);
        long[] share = tree.quotaStatsShare(path);
        Long bytes = share == null ? null : share[1];
        Object[] part;
        if (owner == me) {
            Result res = tree.apply(cmd, zxid, time);
            dispatch(fired(res));
            io.volery.server.tree.Stat s = res.reply() instanceof Reply.Data d ? d.stat()
                    : res.reply() instanceof Reply.StatReply r ? r.stat() : null;
            part = new Object[] {bytes, res.code().code(), s == null ? null : tree.data(path), s == null ? null : s.fields()};
        } else {
            part = new Object[] {bytes};
        }
        Map<Partition, Object> others = timedExchange(part);
        Object[] theOwners = owner == me ? part : (Object[]) others.get(Partition.get(owner));
        boolean whole = bytes != null;
        long total = whole ? bytes : 0;
        for (Object v : others.values()) {
            Long theirs = (Long) ((Object[]) v)[0];
            whole &= theirs != null;
            total += theirs == null ? 0 : theirs;
        }
        ErrorCode code = ErrorCode.of((Integer) theOwners[1]);
        if (code != ErrorCode.OK) {
            return encode(JuteTranslator.toReply(q, new Result(code, Reply.Empty.INSTANCE, List.of()), zxid));
        }
        io.volery.server.tree.Stat stat = io.volery.server.tree.Stat.ofFields((long[]) theOwners[3]);
        Reply reply = summedStats((byte[]) theOwners[2], stat, whole ? total : null,
                cmd instanceof io.volery.server.tree.Command.GetData);
        return encode(JuteTranslator.toReply(q, new Result(ErrorCode.OK, reply, List.of()), zxid));
    }

    /**
     * The stats node's reply with {@code bytes} (null: unknown, some share unreadable) in place of the owner's
     * share, and the Stat's dataLength that of the text answered; the owner's text as it is when it is not a
     * stats text.
     */
    private static Reply summedStats(byte[] text, io.volery.server.tree.Stat stat, Long bytes, boolean withData) {
        byte[] summed = bytes == null ? null : ZnodeTree.quotaStatsWithBytes(text, bytes);
        if (summed != null) {
            text = summed;
            stat = stat.withDataLength(summed.length);
        }
        return withData ? new Reply.Data(text, stat) : new Reply.StatReply(stat);
    }

    /**
     * The bytes of the quota stats nodes a multiRead reads under hash, summed over every partition's share
     * (ADR 089), by operation index (null where a share is unreadable); empty when it reads none.
     */
    private Map<Integer, Long> summedQuotaStats(io.volery.server.tree.Command.MultiRead mr) {
        HashMap<Integer, Long> mine = new HashMap<>();
        for (int i = 0; i < mr.ops().size(); i++) {
            if (mr.ops().get(i) instanceof io.volery.server.tree.Command.GetData g && ZnodeTree.isQuotaStatsNode(g.path())) {
                long[] share = tree.quotaStatsShare(g.path());
                mine.put(i, share == null ? null : share[1]);
            }
        }
        if (mine.isEmpty()) {
            return Map.of();
        }
        HashMap<Integer, Long> sums = new HashMap<>(mine);
        for (Object v : timedExchange(mine).values()) {
            ((Map<Integer, Long>) v).forEach((i, b) -> sums.put(i, sums.get(i) == null || b == null ? null : sums.get(i) + b));
        }
        return sums;
    }

    /**
     * removeWatches and checkWatches under hash: a path's one-shot watches sit in its owner and its
     * persistent ones in every partition, so the answer is OK when any partition found a watch.
     */
    private Result anyPartitionHadTheWatch(Result local) {
        int code = local.code().code();
        boolean found = local.isOk();
        for (Object v : timedExchange(code).values()) {
            found |= (Integer) v == ErrorCode.OK.code();
        }
        return found ? new Result(ErrorCode.OK, local.isOk() ? local.reply() : Reply.Empty.INSTANCE, List.of()) : local;
    }

    /**
     * A session's ephemerals from every partition, in ZooKeeper's order: each partition sends the ones it
     * owns with their creation zxids (a global order) and its set's table size, and all merge alike.
     */
    private Result gatherEphemerals(io.volery.server.tree.Command.GetEphemerals g, Result local) {
        Object[] mine = ownedEphemerals(tree.sessions().get(g.sessionId()));
        List<Object[]> parts = new ArrayList<>();
        parts.add(mine);
        for (Object v : timedExchange(mine).values()) {
            parts.add((Object[]) v);
        }
        if (!local.isOk()) {
            return local;
        }
        String prefix = g.prefix() == null ? "" : g.prefix().trim();
        List<String> out = new ArrayList<>();
        for (String p : mergedEphemeralOrder(parts)) {
            if (prefix.isEmpty() || prefix.equals("/") || p.startsWith(prefix)) {
                out.add(p);
            }
        }
        return new Result(ErrorCode.OK, new Reply.Paths(out), List.of());
    }

    /**
     * This partition's part of a session's ephemerals: {paths it owns in creation order, their creation
     * zxids, its set's table size, this partition}.
     */
    private Object[] ownedEphemerals(SessionTable.Session session) {
        List<String> owned = new ArrayList<>();
        List<Long> created = new ArrayList<>();
        int table = 0;
        if (session != null) {
            table = session.ephemeralTable();
            for (String p : session.ephemeralsInCreationOrder()) {
                if (!partitioner.listedEverywhere(p) || partitioner.ownerOf(p) == me) {
                    owned.add(p);
                    created.add(tree.stat(p).czxid());
                }
            }
        }
        return new Object[] {owned.toArray(new String[0]), created.stream().mapToLong(Long::longValue).toArray(),
            table, me};
    }

    /**
     * A session's ephemerals from every partition's part, in the order ZooKeeper lists them. Creation
     * zxids are a global order; several ephemerals of one multi share one, and keep their order within
     * a partition, the lower partition's first (an approximation of the multi's op order).
     */
    private static List<String> mergedEphemeralOrder(List<Object[]> parts) {
        List<Object[]> sorted = new ArrayList<>(parts);
        sorted.sort(java.util.Comparator.comparingInt(part -> (Integer) part[3]));
        record Created(long zxid, String path) {
        }
        List<Created> all = new ArrayList<>();
        int table = 0;
        for (Object[] part : sorted) {
            String[] paths = (String[]) part[0];
            long[] zxids = (long[]) part[1];
            for (int i = 0; i < paths.length; i++) {
                all.add(new Created(zxids[i], paths[i]));
            }
            table = Math.max(table, (Integer) part[2]);
        }
        all.sort(java.util.Comparator.comparingLong(Created::zxid)); // stable
        return SessionTable.ephemeralOrder(all.stream().map(Created::path).toList(), table);
    }

    // ---- events ------------------------------------------------------------------------------

    /**
     * Hands the front ends the events of a command that ran in several partitions in ZooKeeper's order:
     * operation by operation, and for each the events on its path before those on its parent (a node's
     * own watches fire before its parent's child watches). The partitions exchange their events, and
     * every replica sends the whole list; a front end keeps the first copy of each event.
     *
     * @param ops the command's operations, in order
     */
    private void dispatchMerged(List<? extends io.volery.server.tree.Command> ops, List<WatchEvent> events) {
        Object[] part = eventsPart(ops, events);
        dispatchParts(part, timedExchange(part).values());
    }

    /** This partition's events of a command, keyed by the operation and kind that fired them, for merging. */
    private Object[] eventsPart(List<? extends io.volery.server.tree.Command> ops, List<WatchEvent> events) {
        // Events come in operation order; an operation's events name its path or its parent, one per
        // session and watch kind, so an event seen before for the current operation belongs to a later one.
        int[] keys = new int[events.size()];
        int op = 0;
        java.util.Set<String> seenForOp = new java.util.HashSet<>();
        for (int k = 0; k < events.size(); k++) {
            WatchEvent e = events.get(k);
            String signature = e.sessionId() + "/" + e.type() + "/" + e.path();
            int from = seenForOp.contains(signature) ? op + 1 : op;
            int found = -1;
            for (int i = from; i < ops.size() && found < 0; i++) {
                io.volery.server.tree.Command o = ops.get(i);
                String path = MultiPaths.pathOf(o);
                boolean createOrDelete = o instanceof io.volery.server.tree.Command.Create
                        || o instanceof io.volery.server.tree.Command.Delete;
                boolean own = e.path().equals(path) && switch (e.type()) {
                    case NODE_DATA_CHANGED -> o instanceof io.volery.server.tree.Command.SetData;
                    case NODE_CREATED -> o instanceof io.volery.server.tree.Command.Create;
                    case NODE_DELETED -> o instanceof io.volery.server.tree.Command.Delete;
                    case NODE_CHILDREN_CHANGED -> false;
                };
                if (own) {
                    found = 2 * i;
                } else if (createOrDelete && e.type() == io.volery.server.tree.EventType.NODE_CHILDREN_CHANGED
                        && causedBy(e, path) && !e.path().equals(path)) {
                    found = 2 * i + 1;
                }
            }
            int previous = k == 0 ? 0 : keys[k - 1];
            // an event on neither path (a recursive watch's ancestor sees the node's path) stays in place
            keys[k] = found < 0 ? previous : Math.max(found, previous);
            if (keys[k] / 2 != op) {
                op = keys[k] / 2;
                seenForOp.clear();
            }
            seenForOp.add(signature);
        }
        return new Object[] {VoleryWire.events(events), keys, me};
    }

    /** Merges this partition's {@link #eventsPart} with the others' and hands the events to the front ends. */
    private void dispatchParts(Object[] part, java.util.Collection<Object> others) {
        List<Object[]> parts = new ArrayList<>();
        parts.add(part);
        for (Object v : others) {
            parts.add((Object[]) v);
        }
        parts.sort(java.util.Comparator.comparingInt(p -> (Integer) p[2]));
        record Keyed(int key, WatchEvent event) {
        }
        List<Keyed> merged = new ArrayList<>();
        Map<String, Integer> taken = new HashMap<>();
        for (Object[] p : parts) {
            List<WatchEvent> theirs = ((VoleryWire.Events) VoleryWire.decode((byte[]) p[0])).events();
            int[] theirKeys = (int[]) p[1];
            Map<String, Integer> ours = new HashMap<>();
            for (int i = 0; i < theirs.size(); i++) {
                WatchEvent e = theirs.get(i);
                // a change every partition made (the root's child list) fires a watch every partition holds
                // (a recursive watch on the root) once per partition: keep one copy, which names them all
                String copy = theirKeys[i] + "/" + e.sessionId() + "/" + e.type() + "/" + e.path();
                Integer first = taken.get(copy);
                if (first == null) {
                    ours.putIfAbsent(copy, merged.size());
                    merged.add(new Keyed(theirKeys[i], e));
                } else {
                    Keyed k = merged.get(first);
                    merged.set(first, new Keyed(k.key(), k.event().alsoFiredIn(e)));
                }
            }
            ours.forEach(taken::putIfAbsent);
        }
        merged.sort(java.util.Comparator.comparingInt(Keyed::key)); // stable
        dispatch(merged.stream().map(Keyed::event).toList());
    }

    /** Hands watch events to the front ends of their sessions (each deduplicates across replicas). */
    private void dispatch(List<WatchEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        // events of deferred commands go first, so that every session sees its events in zxid order
        settleIfDeferring();
        Map<Integer, List<WatchEvent>> byFrontEnd = new TreeMap<>();
        for (WatchEvent e : events) {
            SessionDirectory.Entry s = sessionDirectory.get(e.sessionId());
            if (s != null) {
                byFrontEnd.computeIfAbsent(s.frontEnd, k -> new ArrayList<>()).add(e);
            }
        }
        byFrontEnd.forEach((node, list) -> {
            if (commandFrontEnd != VoleryWire.NO_ACK) {
                eventTargets.add(node);
            }
            // which stay of its session at that front end each event belongs to (ADR 100)
            long[] moves = new long[list.size()];
            for (int i = 0; i < moves.length; i++) {
                moves[i] = sessionDirectory.get(list.get(i).sessionId()).moves;
            }
            endpoint.sendDirect(node, VoleryWire.events(list, commandFrontEnd, commandZxid, moves));
        });
    }

    /**
     * The events a command fired here, naming this partition: the front end orders an event against a
     * reply by the execution order of the partitions that fired it (ADR 078).
     */
    private List<WatchEvent> fired(Result res) {
        List<WatchEvent> events = res.events();
        if (events.isEmpty()) {
            return events;
        }
        long here = WatchEvent.partitionSet(me);
        List<WatchEvent> out = new ArrayList<>(events.size());
        for (WatchEvent e : events) {
            out.add(e.withFiredIn(here));
        }
        return out;
    }

    private static byte[] error(long zxid, ErrorCode code) {
        return encode(ZkReply.error(0, zxid, code.code()));
    }

    private static byte[] encode(ZkReply reply) {
        return ZkCodec.encodeReply(reply);
    }

    // ---- checkpoints -------------------------------------------------------------------------

    /**
     * Captures the tree in time proportional to its changes since the previous checkpoint (see
     * {@link ZnodeTree#capture}) and copies the session directory (one small entry per session);
     * the tree's canonical form and the Kryo encoding are written later by the checkpoint writer
     * thread while commands go on executing.
     */
    @Override
    protected Object snapshotState() {
        tree.enableCaptures();
        TreeImage image = tree.capture();
        SessionDirectory directory = sessionDirectory.copy();
        long clock = sessionClock;
        return (StateImage) out -> {
            ByteArrayOutputStream treeBytes = new ByteArrayOutputStream();
            image.writeTo(treeBytes);
            out.write(KryoCodec.encode(new Object[] {treeBytes.toByteArray(), directory, clock, directory.movesById()}));
        };
    }

    /**
     * For a peer's state transfer: the same bytes as an image, from the live tree, encoded now, so the
     * tree's capture order (which the checkpoint writer relies on) is left alone.
     */
    @Override
    protected Object snapshotStateNow() {
        try {
            ByteArrayOutputStream treeBytes = new ByteArrayOutputStream();
            tree.snapshot(treeBytes);
            SessionDirectory directory = sessionDirectory.copy();
            byte[] written = KryoCodec.encode(new Object[] {treeBytes.toByteArray(), directory, sessionClock,
                    directory.movesById()});
            return (StateImage) out -> out.write(written);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Takes what {@link #snapshotState} wrote (or, from a checkpoint of an older build, the object it returned). */
    @Override
    protected void restoreState(Object state) {
        pendingDeletes.clear(); // their continuations went with the replaced state
        pendingTopLevel.clear();
        Object[] s = (Object[]) (state instanceof byte[] written ? KryoCodec.decode(written) : state);
        try {
            ZnodeTree t = newTree();
            t.restore(new ByteArrayInputStream((byte[]) s[0]));
            // restoring happens at startup, before commands: the time for the one full pass captures start with
            t.enableCaptures();
            tree = t;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        sessionDirectory.restore((SessionDirectory) s[1]);
        if (s.length > 3) {
            @SuppressWarnings("unchecked")
            java.util.Map<Long, Long> moves = (java.util.Map<Long, Long>) s[3];
            sessionDirectory.restoreMoves(moves);
        }
        sessionClock = (Long) s[2];
    }

    /** The answer to a request that arrived before the request of its session it must follow. */
    public static final class Reordered {
        public Reordered() {
        }
    }

    static final Reordered REORDERED = new Reordered();

    /** The answer to a session command. */
    public static final class SessionReply {
        public boolean accepted;
        public int timeoutMillis;
        /** On a reconnect through another front end: the one the session left, else -1. */
        public int previousFrontEnd = -1;
        /** The session's reconnects so far, this one included (ADR 098, ADR 100). */
        public long move;

        public SessionReply() {
        }

        SessionReply(boolean accepted, int timeoutMillis) {
            this.accepted = accepted;
            this.timeoutMillis = timeoutMillis;
        }
    }
}
