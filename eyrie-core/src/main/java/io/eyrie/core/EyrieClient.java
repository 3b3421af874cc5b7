package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;
import io.eyrie.core.internal.Wire;
import io.eyrie.multicast.MulticastEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Submits commands to the partitions the oracle names and returns the first reply. Every command
 * carries (clientId, seq); one not answered within the retry timeout is multicast again with the
 * same pair, and the replicas' reply table makes sure it executes at most once. At most
 * {@code window} commands are outstanding; {@link #executeAsync} blocks while the window is full.
 * At most {@code multicastWindow} multicasts per ring are at the node's proposer at once (the
 * multicast layer refuses more); later ones wait here in submission order, and {@link #pressured()}
 * tells a front end to stop taking requests meanwhile (ADR 021).
 *
 * <p>The node of the endpoint must have no groups in the cluster file (clients deliver nothing), and
 * it must be running: its owner starts it (a {@code MulticastNode} of a pure client with
 * {@code node.start(delivery -> { }, null)}) so that it can multicast and receive the replies.
 */
public final class EyrieClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EyrieClient.class);
    public static final int DEFAULT_WINDOW = 64;
    public static final long DEFAULT_RETRY_MILLIS = 2000;

    /** How soon a multicast the local node refused (backpressure) is tried again. */
    static final long REFUSED_RETRY_MILLIS = 20;

    /** How long a command that asked for a local reply waits for it before every replica is asked. */
    public static final long DEFAULT_LOCAL_REPLY_TIMEOUT_MILLIS = 2000;

    /**
     * Multicasts this client keeps at its node's proposer at once per ring, by default: below the
     * multicast layer's limit of 256 pending per ring (beyond it the node refuses them), leaving room
     * for anything else on the node that multicasts. Per ring, so that commands spread over four
     * partitions reach each ring's coordinator in batches as large as one partition's (ADR 033).
     */
    public static final int DEFAULT_MULTICAST_WINDOW = 240;

    /** Where a command's latest multicast is: waiting for room at the proposer, at it, or ordered. */
    private enum SendState { QUEUED, AT_PROPOSER, ORDERED }

    private static final class Pending {
        final long seq;
        final int[] groups;
        /** The ring that orders it (its multicast window is per ring). */
        final int ring;
        final Wire.Request request;
        /** What is multicast: the request, first as asked, then (after a local-reply timeout) for everyone. */
        volatile byte[] payload;
        /** The replica the copy sent last asked to answer alone, or {@link Wire.Request#EVERY_REPLICA}. */
        volatile int replier;
        final CompletableFuture<Object> future = new CompletableFuture<>();
        /** When the copy sent last was handed to the proposer, then when the ring ordered it. */
        volatile long sentNanos;
        /** Guarded by {@link #sendLock}. */
        SendState state = SendState.ORDERED;
        /** Handed to the proposer at least once and not yet answered (counted in {@link #inService}); guarded by {@link #sendLock}. */
        boolean inService;
        /** Goes ahead of the commands waiting for a place and takes none (see {@link #executeUrgent}). */
        boolean urgent;
        /** Runs once this node's replica delivers the command (see {@link #observeOrderAt}); taken once. */
        final java.util.concurrent.atomic.AtomicReference<Runnable> onDeliveredHere = new java.util.concurrent.atomic.AtomicReference<>();

        Pending(long seq, int[] groups, int ring, Wire.Request request) {
            this.seq = seq;
            this.groups = groups;
            this.ring = ring;
            this.request = request;
            this.replier = request.replier();
            this.payload = Wire.encode(request);
        }
    }

    private final MulticastEndpoint endpoint;
    private final PartitioningOracle oracle;
    private final long clientId;
    private final Semaphore window;
    private final long retryMillis;
    private final ConcurrentSkipListMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
    private final ScheduledExecutorService retries;
    private long nextSeq = 1;
    /** Partitions whose replica on this node is caught up now (see {@link #answerLocallyWhile}). */
    private volatile java.util.function.IntPredicate localReplicaCaughtUp = g -> false;
    private volatile long localReplyTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(DEFAULT_LOCAL_REPLY_TIMEOUT_MILLIS);
    private final java.util.concurrent.atomic.AtomicLong localReplyFallbacks = new java.util.concurrent.atomic.AtomicLong();
    /** Replicas that may answer for each partition (nodes of that partition alone), ascending. */
    private final Map<Integer, int[]> repliersByPartition = new java.util.HashMap<>();
    /** Whether commands no local replica answers name one replica of a destination to answer them. */
    private volatile boolean nameRemoteReplier;
    /** Replicas that let a named reply time out, and until when (System.nanoTime) none is asked of them. */
    private final Map<Integer, Long> avoidedUntilNanos = new java.util.concurrent.ConcurrentHashMap<>();
    /** How long a replica that let a named reply time out is not named again. */
    static final long AVOID_MILLIS = 10_000;
    private volatile boolean closed;
    /** Set by {@link #close}: no new commands; retires may still go out until {@link #closed}. */
    private volatile boolean closing;
    /** How long {@link #close()} waits for the replicas to confirm the client's retires (ADR 058). */
    public static final long RETIRE_WAIT_MILLIS = 1000;
    /** The destination sets this client sent commands to, by {@code ReplyTable.destinations}. */
    private final Map<String, int[]> usedSets = new java.util.concurrent.ConcurrentHashMap<>();
    /** When this client was made (this node's clock): a node's later client retires an earlier one. */
    private final long startedMillis = System.currentTimeMillis();
    private final java.util.concurrent.atomic.AtomicBoolean warnedRetired = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean warnedMulticastFailure =
            new java.util.concurrent.atomic.AtomicBoolean();

    /*
     * The multicast window: at most multicastWindow multicasts per ring at the proposer; the rest wait
     * in the backlog, in submission order (a session's pipelined requests must reach the ring in the
     * order they were sent), and none passes the oldest one waiting, even for another ring with room.
     * Multicasts start under the lock so that no later one overtakes an earlier one.
     */
    private final Object sendLock = new Object();
    private final int multicastWindow;
    private final int backlogHigh;
    private final java.util.ArrayDeque<Pending> backlog = new java.util.ArrayDeque<>();
    /** Copies of commands in service and urgent commands waiting only for room at the proposer; they start first. */
    private final java.util.ArrayDeque<Pending> ahead = new java.util.ArrayDeque<>();
    /** Per ring: this client's multicasts at the proposer. Guarded by {@link #sendLock}. */
    private final Map<Integer, int[]> atProposer = new java.util.HashMap<>();
    private volatile boolean pressured;
    private volatile Runnable pressureListener = () -> { };
    private final java.util.concurrent.atomic.AtomicLong multicastsRefused = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong multicastsQueued = new java.util.concurrent.atomic.AtomicLong();
    /** Commands handed to the proposer and not yet answered (ADR 064). Guarded by {@link #sendLock}. */
    private int inService;
    /** The most commands in service at once; later first sends wait in the backlog. */
    private volatile int serviceLimit = Integer.MAX_VALUE;
    private final java.util.concurrent.atomic.AtomicLong resends = new java.util.concurrent.atomic.AtomicLong();

    public EyrieClient(MulticastEndpoint endpoint, PartitioningOracle oracle) {
        this(endpoint, oracle, DEFAULT_WINDOW, DEFAULT_RETRY_MILLIS);
    }

    /**
     * @param window      most commands outstanding at once
     * @param retryMillis how long to wait for a reply before multicasting the command again
     */
    public EyrieClient(MulticastEndpoint endpoint, PartitioningOracle oracle, int window, long retryMillis) {
        this(endpoint, oracle, window, retryMillis, DEFAULT_MULTICAST_WINDOW);
    }

    /**
     * @param window          most commands outstanding at once
     * @param retryMillis     how long to wait for a reply before multicasting the command again
     * @param multicastWindow most multicasts at the node's proposer at once (not yet ordered); later
     *                        ones wait in this client, in order, and {@link #pressured()} says so
     */
    public EyrieClient(MulticastEndpoint endpoint, PartitioningOracle oracle, int window, long retryMillis,
                       int multicastWindow) {
        if (multicastWindow < 1) {
            throw new IllegalArgumentException("multicastWindow must be at least 1, got " + multicastWindow);
        }
        this.multicastWindow = multicastWindow;
        // Hysteresis: pressure starts once half a window waits and ends when nothing waits, so that a
        // front end toggles its readers about once per half window ordered, not once per command.
        this.backlogHigh = Math.max(1, multicastWindow / 2);
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, got " + window);
        }
        if (retryMillis < 1) {
            throw new IllegalArgumentException("retryMillis must be at least 1, got " + retryMillis);
        }
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.oracle = Objects.requireNonNull(oracle, "oracle");
        Partition.install(endpoint.config());
        oracle.serve(endpoint.config());
        // a fresh session number per client object, so that a restarted client's seqs are new commands
        this.clientId = ((long) endpoint.nodeId() << 32) | (new SecureRandom().nextInt() & 0x7fffffffL);
        this.window = new Semaphore(window);
        this.retryMillis = retryMillis;
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "eyrie-client-retry-" + endpoint.nodeId());
            t.setDaemon(true);
            return t;
        });
        io.eyrie.multicast.ClusterConfig config = endpoint.config();
        for (int g : config.groups()) {
            repliersByPartition.put(g, Arrays.stream(config.nodesInGroup(g))
                    .filter(n -> config.node(n).groups().length == 1 && n != endpoint.nodeId()).toArray());
        }
        endpoint.onDirect(this::onDirect);
        long scan = Math.max(1, Math.min(retryMillis, DEFAULT_LOCAL_REPLY_TIMEOUT_MILLIS) / 4);
        retries.scheduleWithFixedDelay(this::retryOverdue, scan, scan, TimeUnit.MILLISECONDS);
    }

    /** Executes {@code c} and waits for its result. */
    public Object execute(Command c) {
        try {
            return executeAsync(c).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EyrieException("interrupted while waiting for " + c, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof EyrieException ee) {
                throw ee;
            }
            throw new EyrieException("command " + c + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Submits {@code c}; blocks while {@code window} commands are outstanding. */
    public CompletableFuture<Object> executeAsync(Command c) {
        return executeAsync(c, null);
    }

    /**
     * Submits {@code c}, as {@link #executeAsync(Command)}, and runs {@code onDeliveredHere} (on this
     * client's own thread) once the replica given to {@link #observeOrderAt} delivers it: from then on it
     * has its place in that replica's partition order, and anything this node multicasts to that
     * partition afterwards is ordered after it there (a learner delivers a value only after every value
     * of every ring it learns that the merge puts before it, so the rings' next instances come after).
     * Never runs if the command does not go to that partition or no replica is observed; may run after
     * the result is complete.
     */
    public CompletableFuture<Object> executeAsync(Command c, Runnable onDeliveredHere) {
        return submit(c, onDeliveredHere, false);
    }

    /**
     * Submits {@code c} ahead of the commands waiting in this client for a place in service or at the
     * proposer (ADR 064), without taking a place: for a service's own housekeeping that must not wait behind
     * its clients' load, such as Volery's session touches. It is still ordered by the ring like any command,
     * after what the proposer already holds.
     */
    public CompletableFuture<Object> executeUrgent(Command c) {
        return submit(c, null, true);
    }

    private CompletableFuture<Object> submit(Command c, Runnable onDeliveredHere, boolean urgent) {
        if (closing) {
            throw new IllegalStateException("client closed");
        }
        Set<Partition> dests = oracle.getDestinations(c);
        if (dests.isEmpty()) {
            throw new IllegalArgumentException("PartitioningOracle.getDestinations(" + c + ") is empty");
        }
        int[] groups = dests.stream().mapToInt(Partition::getId).sorted().distinct().toArray();
        int ring = endpoint.config().ringFor(groups); // an unknown partition fails here, before taking room
        String set = io.eyrie.core.internal.ReplyTable.destinations(groups);
        if (!usedSets.containsKey(set)) {
            usedSets.putIfAbsent(set, groups);
        }
        window.acquireUninterruptibly();
        Pending p;
        synchronized (this) {
            long seq = nextSeq++;
            long ackedBelow = ackedBelow(seq);
            int replier = Wire.Request.EVERY_REPLICA;
            java.util.function.IntPredicate caughtUp = localReplicaCaughtUp;
            for (int g : groups) {
                if (caughtUp.test(g)) {
                    replier = endpoint.nodeId();
                    break;
                }
            }
            if (replier == Wire.Request.EVERY_REPLICA && nameRemoteReplier) {
                replier = remoteReplier(groups[0], seq);
            }
            p = new Pending(seq, groups, ring, new Wire.Request(clientId, seq, ackedBelow, replier, KryoCodec.encode(c)));
            p.onDeliveredHere.set(onDeliveredHere);
            p.urgent = urgent;
            pending.put(seq, p);
        }
        p.future.whenComplete((r, t) -> window.release());
        multicast(p);
        return p.future;
    }

    /**
     * Lets this client learn when {@code localReplica}, a replica on this client's own node, delivers the
     * client's commands (for {@link #executeAsync(Command, Runnable)}). Call after the replica runs.
     */
    public void observeOrderAt(StateMachine localReplica) {
        io.eyrie.core.internal.ReplicaRuntime rt = localReplica.runtime();
        if (rt == null) {
            throw new IllegalStateException("observeOrderAt needs a running replica (after runStateMachine())");
        }
        if (rt.nodeId() != endpoint.nodeId()) {
            throw new IllegalArgumentException("replica of node " + rt.nodeId() + " is not on this client's node "
                    + endpoint.nodeId());
        }
        rt.observeDeliveries(this::deliveredHere);
    }

    /** The observed replica delivered command {@code seq} of client {@code id} (its delivery thread). */
    private void deliveredHere(long id, long seq) {
        if (id != clientId) {
            return;
        }
        Pending p = pending.get(seq);
        Runnable r = p == null ? null : p.onDeliveredHere.getAndSet(null);
        if (r != null && !closed) {
            try {
                retries.execute(r);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }
    }

    /**
     * A replica of {@code partition} to answer command {@code seq} alone: in turn by seq, so that the
     * replicas share the replies, skipping those that recently let a reply time out; or
     * {@link Wire.Request#EVERY_REPLICA} if none is left.
     */
    private int remoteReplier(int partition, long seq) {
        int[] replicas = repliersByPartition.get(partition);
        if (replicas == null || replicas.length == 0) {
            return Wire.Request.EVERY_REPLICA;
        }
        long now = System.nanoTime();
        for (int i = 0; i < replicas.length; i++) {
            int node = replicas[(int) ((seq + i) % replicas.length)];
            Long until = avoidedUntilNanos.get(node);
            if (until == null || until - now <= 0) {
                return node;
            }
        }
        return Wire.Request.EVERY_REPLICA;
    }

    public long clientId() {
        return clientId;
    }

    /**
     * Whether a command that no replica on this node answers names one replica of a destination
     * partition to answer it alone (default false): the other replicas then send nothing, two network
     * replies fewer per command with three replicas. A named replica that has not answered within the
     * local-reply timeout (it failed, or lags) is replaced by every replica for that command, and is
     * not named again for {@value #AVOID_MILLIS} ms.
     *
     * <p>Off by default because of what it gives up: when every replica answers, the first reply of a
     * command reaches the client before the first copy of anything a replica sent after executing it
     * (each replica's link is FIFO), so replies come in execution order and before the watch events or
     * other messages that later commands cause. A named replica's reply can come after another
     * replica's later messages: a client that turns this on must put replies and such messages in order
     * itself (ADR 030).
     */
    public void nameRemoteReplier(boolean on) {
        this.nameRemoteReplier = on;
    }

    /**
     * For a client on a node that also runs replicas: while {@code partitionCaughtUp} holds for one of
     * a command's destination partitions, the command asks that only this node's replica answer it (the
     * other replicas execute it but send nothing, which saves two replies per command in a partition of
     * three). The predicate says whether this node's replica of the partition is caught up (e.g.
     * {@link StateMachine#isCaughtUp}); it is asked once per command, so keep it cheap. A command that
     * asked for a local reply and got none within the local-reply timeout is multicast again for every
     * replica to answer (from their reply tables: it is not executed twice). Default: never local.
     */
    public void answerLocallyWhile(java.util.function.IntPredicate partitionCaughtUp) {
        this.localReplicaCaughtUp = Objects.requireNonNull(partitionCaughtUp, "partitionCaughtUp");
    }

    /**
     * How long a command that named one replica to answer (this node's, or a remote one) waits before
     * every replica is asked (default 2 s; checked about every 0.5 s).
     */
    public void setLocalReplyTimeoutMillis(long millis) {
        if (millis < 1) {
            throw new IllegalArgumentException("local reply timeout must be at least 1 ms, got " + millis);
        }
        this.localReplyTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Commands that named one replica to answer, got no reply in time, and were sent again for every replica. */
    public long localReplyFallbacks() {
        return localReplyFallbacks.get();
    }

    /** Commands waiting for a reply. */
    public int outstanding() {
        return pending.size();
    }

    /**
     * Whether commands wait in this client for room at the proposer (the multicast window is full and
     * a backlog of half a window built up); it turns false once the backlog is gone. A front end stops
     * reading from its clients meanwhile. Read it again on every {@link #onPressureChange} call: the
     * calls may come from several threads, but the value read last is the current one.
     */
    public boolean pressured() {
        return pressured;
    }

    /** Called (on any thread) whenever {@link #pressured()} may have changed. */
    public void onPressureChange(Runnable listener) {
        this.pressureListener = Objects.requireNonNull(listener, "listener");
    }

    /** Multicasts the local node refused (it was full, or not running) and that were tried again. */
    public long multicastsRefused() {
        return multicastsRefused.get();
    }

    /**
     * At most {@code limit} commands in service at once (ADR 064): handed to the proposer and not yet answered.
     * Later commands wait in this client, in order and unordered by the rings, where no reply timer runs for
     * them, until answers free places; {@link #pressured()} says so as when the proposer is full. Bounds how
     * long an ordered command waits for its reply under overload, so that timers do not fire on commands that
     * are only queued and copies of them do not add to the overload. Default: no limit.
     */
    public void setServiceLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("service limit must be at least 1, got " + limit);
        }
        serviceLimit = limit;
        startWaitingOnes();
    }

    /** Commands handed to the proposer and not yet answered. */
    public int inService() {
        synchronized (sendLock) {
            return inService;
        }
    }

    /** Commands multicast again because no reply came within the retry period. */
    public long resends() {
        return resends.get();
    }

    /** Multicasts that had to wait in this client for room at the proposer. */
    public long multicastsQueued() {
        return multicastsQueued.get();
    }

    /** Multicasts waiting in this client for room at the proposer now. */
    public int backlog() {
        synchronized (sendLock) {
            return backlog.size() + ahead.size();
        }
    }

    public int multicastWindow() {
        return multicastWindow;
    }

    private record Started(Pending p, CompletableFuture<Void> ordered) {
    }

    /** Multicasts {@code p} now or queues it; false if a copy is already waiting or at the proposer. */
    private boolean multicast(Pending p) {
        Started started;
        boolean changed = false;
        synchronized (sendLock) {
            if (p.state != SendState.ORDERED) {
                return false; // already waiting or at the proposer: a second copy would only take room
            }
            // A copy of a command in service (a resend) and an urgent command go ahead of first sends: they
            // take no new place in service, and the commands they would wait behind may wait for places that
            // only answers free.
            boolean goesAhead = p.inService || p.urgent;
            if (!roomAtProposer(p.ring) || !ahead.isEmpty()
                    || (!goesAhead && (!backlog.isEmpty() || inService >= serviceLimit))) {
                p.state = SendState.QUEUED;
                if (goesAhead) {
                    ahead.add(p);
                } else {
                    backlog.add(p);
                }
                multicastsQueued.incrementAndGet();
                if (!pressured && backlog.size() >= backlogHigh) {
                    pressured = true;
                    changed = true;
                }
                started = null;
            } else {
                started = start(p);
            }
        }
        if (changed) {
            pressureListener.run();
        }
        if (started != null) {
            watch(started);
        }
        return true;
    }

    /** Whether {@code ring} has room in the multicast window; the caller holds {@link #sendLock}. */
    private boolean roomAtProposer(int ring) {
        int[] n = atProposer.get(ring);
        return n == null || n[0] < multicastWindow;
    }

    /** Hands {@code p} to the proposer; the caller holds {@link #sendLock}. */
    private Started start(Pending p) {
        if (!p.inService && !p.urgent) {
            p.inService = true;
            inService++;
        }
        atProposer.computeIfAbsent(p.ring, r -> new int[1])[0]++;
        p.state = SendState.AT_PROPOSER;
        p.sentNanos = System.nanoTime();
        return new Started(p, endpoint.multicast(p.groups, p.payload));
    }

    private void watch(Started s) {
        s.ordered().whenComplete((v, t) -> {
            Pending p = s.p();
            if (t == null) {
                // The reply timers run from here: before, the multicast layer itself resends until the
                // ring orders the command, and under overload that alone can take longer than a timer,
                // whose copy would then only add to the load (ADR 024).
                p.sentNanos = System.nanoTime();
            }
            released(p);
            if (t == null) {
                return;
            }
            if (!closed) {
                multicastsRefused.incrementAndGet();
                // Refused before it left this node (the proposer is full, or the node is not running):
                // nothing was sent, so waiting a whole retry period for a reply would only stall the
                // command and everything ordered behind it; try again shortly instead.
                try {
                    retries.schedule(() -> {
                        if (!closed && pending.get(p.seq) == p) {
                            multicast(p);
                        }
                    }, REFUSED_RETRY_MILLIS, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // the client is closing
                }
            }
            // the first failure is worth a warning, since a node that was never started fails every
            // multicast and the client would wait silently
            if (!closed && !warnedMulticastFailure.getAndSet(true)) {
                log.warn("client={} multicast of seq={} failed ({}); retrying in {} ms. Is the client's "
                                + "endpoint started?", Long.toHexString(clientId), p.seq, t.toString(), REFUSED_RETRY_MILLIS);
            } else {
                log.debug("client={} seq={} multicast failed: {}", Long.toHexString(clientId), p.seq, t.toString());
            }
        });
    }

    /** {@code p} left the proposer (ordered or refused): the next waiting multicasts take its room. */
    private void released(Pending p) {
        synchronized (sendLock) {
            atProposer.get(p.ring)[0]--;
            p.state = SendState.ORDERED;
        }
        startWaitingOnes();
    }

    /** {@code p} was answered (or failed): its place in service goes to the next waiting command. */
    private void leftService(Pending p) {
        synchronized (sendLock) {
            if (!p.inService) {
                return;
            }
            p.inService = false;
            inService--;
        }
        startWaitingOnes();
    }

    /** Room was freed: starts the waiting multicasts that may start now and reports the end of pressure. */
    private void startWaitingOnes() {
        java.util.List<Started> next;
        boolean changed = false;
        synchronized (sendLock) {
            next = startWaiting();
            if (pressured && backlog.isEmpty()) {
                pressured = false;
                changed = true;
            }
        }
        if (changed) {
            pressureListener.run();
        }
        if (next != null) {
            next.forEach(this::watch);
        }
    }

    /** Starts the waiting multicasts that may start now, in order; the caller holds {@link #sendLock}. */
    private java.util.List<Started> startWaiting() {
        java.util.List<Started> next = null; // made on first need: this runs on every answer
        while (!ahead.isEmpty() && roomAtProposer(ahead.peek().ring)) {
            next = startIfWaited(ahead.poll(), next);
        }
        while (ahead.isEmpty() && !backlog.isEmpty() && roomAtProposer(backlog.peek().ring)
                && (backlog.peek().inService || inService < serviceLimit)) {
            next = startIfWaited(backlog.poll(), next);
        }
        return next;
    }

    /** Starts {@code q}, taken from a queue, unless an earlier copy's answer or a failure ended it meanwhile. */
    private java.util.List<Started> startIfWaited(Pending q, java.util.List<Started> next) {
        if (pending.get(q.seq) != q) {
            q.state = SendState.ORDERED;
            return next;
        }
        java.util.List<Started> list = next == null ? new java.util.ArrayList<>() : next;
        list.add(start(q));
        return list;
    }

    private void retryOverdue() {
        long now = System.nanoTime();
        for (Pending p : pending.values()) {
            if (closed) {
                return;
            }
            if (p.replier != Wire.Request.EVERY_REPLICA && now - p.sentNanos >= localReplyTimeoutNanos
                    && fallBackToEveryReplica(p)) {
                continue;
            }
            if (now - p.sentNanos < TimeUnit.MILLISECONDS.toNanos(retryMillis)) {
                continue;
            }
            log.debug("client={} seq={} no reply yet, multicasting again", Long.toHexString(clientId), p.seq);
            if (multicast(p)) {
                resends.incrementAndGet();
            }
        }
    }

    /**
     * The local replica did not answer in time (it fell behind after the command was sent, or it
     * failed): the command goes out again for every replica to answer. Only once it has left the
     * proposer, so that the copy asked for locally cannot be overtaken by a queue of its own.
     */
    private boolean fallBackToEveryReplica(Pending p) {
        int replier;
        synchronized (sendLock) {
            if (p.state != SendState.ORDERED) {
                return false;
            }
            Wire.Request r = p.request;
            p.payload = Wire.encode(r.toEveryReplica());
            replier = p.replier;
            p.replier = Wire.Request.EVERY_REPLICA;
        }
        if (replier != endpoint.nodeId() && avoid(replier)) {
            log.info("client={} replica {} did not answer seq={} in time: asking every replica, and not it for {} ms",
                    Long.toHexString(clientId), replier, p.seq, AVOID_MILLIS);
        }
        localReplyFallbacks.incrementAndGet();
        log.debug("client={} seq={} no reply from replica {} in time, asking every replica", Long.toHexString(clientId),
                p.seq, replier);
        multicast(p);
        return true;
    }

    /** Names {@code replica} no more for a while; true if it was not avoided already. */
    private boolean avoid(int replica) {
        long now = System.nanoTime();
        Long before = avoidedUntilNanos.put(replica, now + TimeUnit.MILLISECONDS.toNanos(AVOID_MILLIS));
        return before == null || before - now <= 0;
    }

    private void onDirect(int from, byte[] message) {
        // Every message on the node's channel comes here (exchanges, other clients' replies, other
        // protocols): only a reply to a command still waiting is decoded.
        if (!Wire.isReply(message) || Wire.replyClientId(message) != clientId
                || !pending.containsKey(Wire.replySeq(message))) {
            return;
        }
        Wire.Reply r;
        try {
            r = (Wire.Reply) Wire.decodeDirect(message);
        } catch (RuntimeException e) {
            log.warn("client={} dropped a malformed message from node {}: {}", Long.toHexString(clientId), from,
                    e.getMessage());
            return;
        }
        Pending p = pending.remove(r.seq());
        if (p == null) {
            return; // a later reply to a command already answered: the first one won
        }
        leftService(p);
        if (r.ok()) {
            p.future.complete(KryoCodec.decode(r.body()));
        } else {
            String why = new String(r.body(), StandardCharsets.UTF_8);
            if (why.startsWith(Wire.retiredPrefix(clientId)) && warnedRetired.compareAndSet(false, true)) {
                log.error("client={} was retired by a later client of node {} (ADR 058): every command it sends is "
                                + "refused. Is another process running as node {}?", Long.toHexString(clientId),
                        endpoint.nodeId(), endpoint.nodeId());
            }
            p.future.completeExceptionally(new EyrieException("command failed at the replicas: " + why));
        }
    }

    /**
     * Makes this client its node's one client from now on (ADR 058): the client the node ran before (a
     * previous process, killed or not) leaves every partition's reply table, and a late copy of one of its
     * commands is refused instead of executed. Call it only when no other client of this node id is in
     * use; it takes effect where this client started later than that one (by this node's clock). Goes
     * to every partition through the ring of all of them; completes once one replica answered.
     */
    public CompletableFuture<Object> retireEarlierIncarnations() {
        int[] all = endpoint.config().groups().stream().mapToInt(Integer::intValue).sorted().toArray();
        try {
            return submitControl(all, Wire.Request.RETIRE_NODE,
                    java.nio.ByteBuffer.allocate(Long.BYTES).putLong(startedMillis).array());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new EyrieException("cannot retire this node's earlier clients: " + e, e));
        }
    }

    /** Below which seq this client holds every reply, for a request numbered {@code seq}; under this client's lock. */
    private long ackedBelow(long seq) {
        // One read: replies remove entries outside this lock, so isEmpty() then firstKey() could
        // throw NoSuchElementException (seen under failover), failing the command and leaking a permit.
        Map.Entry<Long, Pending> oldest = pending.firstEntry();
        return oldest == null ? seq : Math.min(seq, oldest.getKey());
    }

    /** A request of the client's own (no command, no window permit), answered by every replica. */
    private CompletableFuture<Object> submitControl(int[] groups, byte kind, byte[] body) {
        int ring = endpoint.config().ringFor(groups);
        Pending p;
        synchronized (this) {
            long seq = nextSeq++;
            p = new Pending(seq, groups, ring, new Wire.Request(clientId, seq, ackedBelow(seq), Wire.Request.EVERY_REPLICA,
                    body, kind));
            pending.put(seq, p);
        }
        multicast(p);
        return p.future;
    }

    /** Closes after retiring from the replicas' reply tables, waiting at most {@link #RETIRE_WAIT_MILLIS}. */
    @Override
    public void close() {
        close(RETIRE_WAIT_MILLIS);
    }

    /**
     * Closes this client. Commands still waiting fail; they may have run or not. With
     * {@code retireWaitMillis > 0} the client first leaves each destination set it used (ADR 058): the
     * replicas drop its replies, and refuse a late copy of its commands instead of running it; it waits
     * that long at most for the replicas to confirm. With 0 it leaves its replies behind (a node's next
     * client retires them with {@link #retireEarlierIncarnations}).
     */
    public void close(long retireWaitMillis) {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        for (Pending p : pending.values()) {
            if (pending.remove(p.seq, p)) {
                p.future.completeExceptionally(new EyrieException("client closed before a reply to seq " + p.seq));
            }
        }
        if (retireWaitMillis > 0 && !usedSets.isEmpty()) {
            List<CompletableFuture<Object>> retires = new java.util.ArrayList<>();
            for (int[] groups : usedSets.values()) {
                try {
                    retires.add(submitControl(groups, Wire.Request.RETIRE, new byte[0]));
                } catch (RuntimeException e) {
                    log.debug("client={} cannot retire from {}: {}", Long.toHexString(clientId), Arrays.toString(groups),
                            e.toString());
                }
            }
            try {
                CompletableFuture.allOf(retires.toArray(CompletableFuture[]::new)).get(retireWaitMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                log.debug("client={} closes without every retire confirmed: {}", Long.toHexString(clientId), e.toString());
            }
        }
        closed = true;
        retries.shutdownNow();
        for (Pending p : pending.values()) {
            p.future.completeExceptionally(new EyrieException("client closed before a reply to seq " + p.seq));
        }
        pending.clear();
    }
}
