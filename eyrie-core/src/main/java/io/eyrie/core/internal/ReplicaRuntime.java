package io.eyrie.core.internal;

import io.eyrie.core.Command;
import io.eyrie.core.CommandAbandonedException;
import io.eyrie.core.PRObject;
import io.eyrie.core.Partition;
import io.eyrie.core.PartitioningOracle;
import io.eyrie.core.StateImage;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.DeliveryListener;
import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One S-SMR replica: Algorithm 1 of Bezerra, Pedone and van Renesse (DSN 2014). Deliveries are
 * queued (bounded) by the multicast's delivery thread and executed one at a time, in delivery order,
 * by this replica's executor thread:
 * <ol>
 *   <li>on delivering C, the partition's designated sender (its lowest node id) sends every other
 *   partition in dests(C) an exchange: a signal plus the values of its objects C reads. A bare signal
 *   (C reads no objects) leaves as the delivery thread queues C, not when the executor reaches it
 *   (ADR 034): it says only that this partition delivered C;</li>
 *   <li>C executes; a call on a remote object waits for that object's value from its owner;</li>
 *   <li>the reply is sent only once an exchange (signal or objects) from every other partition in
 *   dests(C) has arrived. This is what makes the system linearizable (Figure 1).</li>
 * </ol>
 * A replica that waits longer than the exchange timeout asks every replica of the missing partition;
 * any of them that has executed C answers, so the loss of a message or of the designated sender
 * costs a timeout, not liveness.
 */
public final class ReplicaRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReplicaRuntime.class);
    /** The id under which an exchanged value travels in an {@link Wire.Exchange}. */
    private static final String VALUE_ID = "$value";

    /**
     * Test-only: false makes replicas neither send nor await signals (objects still travel). The
     * system property lets the jepsen/ mutation check switch them off in a node process.
     */
    private static volatile boolean signalsEnabled = !Boolean.getBoolean("eyrie.testing.signalsOff");

    /** Test only: switches the signals of Algorithm 1 off, to show the Figure 1 anomaly. */
    public static void setSignalsEnabledForTesting(boolean enabled) {
        signalsEnabled = enabled;
    }

    /** Test-only: false stops progress reports (ADR 049), for tests that count every message of one command. */
    private static volatile boolean progressReports = true;

    public static void setProgressReportsForTesting(boolean on) {
        progressReports = on;
    }

    public static boolean signalsEnabled() {
        return signalsEnabled;
    }

    private sealed interface Work permits Deliver, Stop, CaptureImage, Wake, Reposition {
    }

    /** An exchange for a deferred round arrived: run the continuations that are ready. */
    private record Wake() implements Work {
    }

    private static final Wake WAKE = new Wake();

    /** What {@code later} returns to the runtime in place of a command's result. */
    private static final class Later {
        final CommandRun run;
        final int round;
        /** The partitions whose round-{@code round} values the continuation needs. */
        final int[] senders;
        /** The values the continuation gets without waiting (a one-way round's sender: its own). */
        final Map<Integer, Object> known;
        final java.util.function.Function<Map<Integer, Object>, Object> then;

        Later(LaterRound r, java.util.function.Function<Map<Integer, Object>, Object> then) {
            this.run = r.run();
            this.round = r.round();
            this.senders = r.senders();
            this.known = r.known();
            this.then = then;
        }
    }

    /** A round sent by {@code exchangeLater}, not yet awaited. */
    private record LaterRound(CommandRun run, int round, int[] senders, Map<Integer, Object> known) {
    }

    /** A command whose result waits for a deferred round: what its reply needs once the continuation ran. */
    private static final class Deferred {
        Later later;
        final int[] groups;
        final Wire.Request request;
        /** Client nodes whose resent copy arrived while the result was pending: each gets the reply. */
        final Set<Integer> resentTo = new HashSet<>();
        /** When it was deferred: past the exchange timeout, the executor asks for its missing rounds. */
        final long sinceNanos = System.nanoTime();
        long askedNanos = sinceNanos;
        /** Asks so far: each waits twice as long as the one before (ADR 038). */
        int asks;
        /** Its reply still waits for the other destinations' round-0 signals (Algorithm 1). */
        boolean signalsPending;
        /** Past this long pending while the executor went on, it is logged (again at every doubling). */
        long warnAfterNanos;

        Deferred(Later later, int[] groups, Wire.Request request) {
            this.later = later;
            this.groups = groups;
            this.request = request;
        }
    }

    /** A reply-table entry for a command whose continuation has not run: a resend waits for it. */
    private static final byte[] PENDING_REPLY = new byte[0];
    /**
     * A reply-table entry for a command other destinations answer (ADR 054): this replica sends nothing.
     * Any empty entry but {@link #PENDING_REPLY} reads so (one restored from a checkpoint too); a real reply
     * is never empty.
     */
    private static final byte[] ANSWERED_ELSEWHERE = new byte[0];

    /** {@code ids} without {@code id}, in order (a loop, not a stream: this runs per command). */
    private static int[] without(int[] ids, int id) {
        int[] kept = new int[ids.length];
        int n = 0;
        for (int x : ids) {
            if (x != id) {
                kept[n++] = x;
            }
        }
        return n == ids.length ? kept : Arrays.copyOf(kept, n);
    }

    /** The {@code ids} that {@code among} holds too, in order. */
    private static int[] onlyIn(int[] ids, int[] among) {
        int[] kept = new int[ids.length];
        int n = 0;
        for (int x : ids) {
            if (contains(among, x)) {
                kept[n++] = x;
            }
        }
        return n == ids.length ? kept : Arrays.copyOf(kept, n);
    }

    private static boolean contains(int[] values, int value) {
        for (int v : values) {
            if (v == value) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code signalled}: not null when the round-0 exchange (a bare signal) was kept and sent at delivery
     * (ADR 034); it carries the request and command decoded then, so the executor does not decode them again.
     */
    private record Deliver(Delivery delivery, byte[] learnerCheckpoint, long enqueuedNanos, Signalled signalled)
            implements Work {
    }

    /** A delivery whose bare signal left on delivery, as the delivery thread decoded it. */
    private record Signalled(Wire.Request request, Command command) {
    }

    private record Stop() implements Work {
    }

    /**
     * A peer's checkpoint to take at this command boundary, because the acceptors trimmed what this
     * replica's learner still needs; {@code taken} completes with whether it was.
     */
    private record Reposition(CheckpointImage image, int bytes, CompletableFuture<Boolean> taken) implements Work {
    }

    /** Peers asked for a state image: capture one at this command boundary. */
    private record CaptureImage() implements Work {
    }

    /** The image this replica last captured for peers, kept while they pull its chunks. */
    private record ServedImage(long position, byte[] bytes, byte[] sha256) {
    }

    /** How long a captured image is kept for peers after its last use. */
    private static final long SERVED_KEEP_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final MulticastEndpoint endpoint;
    private final PartitioningOracle oracle;
    private final Application app;
    private final ReplicaOptions options;
    private final int nodeId;
    private final int partition;
    private final boolean designated;
    /** How long a replica that was asked keeps sending exchanges in place of the designated sender. */
    private static final long VOLUNTEER_MILLIS = 10_000;
    /** Until when this replica sends its exchanges as if designated (set from the direct-channel thread). */
    private volatile long volunteerUntilNanos;
    private volatile boolean volunteered;
    /** When the current (or last) stretch of volunteering began (System.nanoTime; direct-channel thread). */
    private volatile long volunteerSinceNanos;
    /** Nanoseconds spent volunteering in stretches that have ended (direct-channel thread). */
    private volatile long volunteeredNanos;
    private final Map<Integer, int[]> replicasByPartition;
    /** When this replica was created (System.nanoTime): asks carry its uptime. */
    private final long startedNanos = System.nanoTime();
    /**
     * When an exchange last arrived from each replica node (System.nanoTime; starts at {@link
     * #startedNanos}). Filled in the constructor, read and updated (values only) from any thread.
     */
    private final Map<Integer, java.util.concurrent.atomic.AtomicLong> lastHeard = new HashMap<>();
    /** The partition of each replica node of the cluster (nodes with one group). */
    private final Map<Integer, Integer> partitionOfNode = new HashMap<>();

    /** The partition whose replica node {@code node} is, or -1 (a client-only node, or none of the cluster's). */
    public int partitionOfNode(int node) {
        Integer p = partitionOfNode.get(node);
        return p == null ? -1 : p;
    }
    /** When the delivery being executed was queued (System.nanoTime), or 0 between deliveries. */
    private volatile long processingSinceNanos;
    private final BlockingQueue<Work> queue;
    private final ExchangeInbox inbox;
    /** Commands whose continuations wait for deferred rounds, oldest first (executor thread only). */
    private final java.util.ArrayDeque<Deferred> deferred = new java.util.ArrayDeque<>();
    /** Their positions, for asks answered on the direct-channel thread. */
    private final Set<Long> deferredPositions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** By other partition, the highest position of an exchange it sent here (direct-channel thread writes). */
    private final Map<Integer, java.util.concurrent.atomic.AtomicLong> receivedUpTo =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** By other partition, the position last reported to it as finished here (executor thread). */
    private final Map<Integer, Long> reportedUpTo = new HashMap<>();
    private long progressReportedNanos;
    private long forgottenWhileNeededLogged;
    private long forgottenWhileNeededLoggedNanos = System.nanoTime() - TimeUnit.MINUTES.toNanos(2);
    /** A {@link Wake} is in the queue: arrivals for deferred rounds add no second one. */
    private final java.util.concurrent.atomic.AtomicBoolean wakeQueued = new java.util.concurrent.atomic.AtomicBoolean();
    /** A continuation is running: it settles nothing (older ones ran, newer ones wait for it). */
    private boolean continuing;
    private final SentExchanges sent;
    private final SnapshotStore snapshots;
    private final CheckpointWriter writer;
    private final ReplicaStats stats = new ReplicaStats();
    private final Thread executor;
    /** The other replicas of this partition: where a state image comes from. */
    private final int[] peers;
    private final ImageFetch imageFetch;
    private volatile ServedImage served;
    private volatile long servedTouchedNanos;
    /** Peers waiting for an image, by node (guarded by itself, as is {@link #captureQueued}). */
    private final Map<Integer, Wire.ImageRequest> imageRequests = new HashMap<>();
    private boolean captureQueued;
    /** Whether the executor is fetching a state image (it then serves none). */
    private volatile boolean transferring;
    /**
     * Deliveries up to this position are covered by a state image taken from a peer: skipped, not
     * executed (executor thread).
     */
    private long skipUpTo = Position.NONE;
    /** After a state transfer: the delivery thread tags the first delivery past this position for a checkpoint. */
    private final java.util.concurrent.atomic.AtomicLong checkpointAfter =
            new java.util.concurrent.atomic.AtomicLong(Position.NONE);

    // owned by the executor thread (and by the constructor before it starts)
    private ReplyTable replies = new ReplyTable();
    /** The reply table's idle bound (ADR 062): configuration, applied again to every restored table. */
    private volatile long replyIdleDeliveries = ReplyTable.DEFAULT_IDLE_DELIVERIES;

    /** See {@code StateMachine.setReplyIdleDeliveries}; before start. */
    public void replyIdleDeliveries(long deliveries) {
        replyIdleDeliveries = deliveries;
        replies.idleDeliveries(deliveries);
    }
    /**
     * What this replica did with its recent multi-partition deliveries (the reply table's verdict, the
     * client's command, a failure), by position, for the log when another partition asks for an exchange
     * this replica does not have. Transport threads read it.
     */
    private final java.util.Map<Long, Did> recent = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(256, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(java.util.Map.Entry<Long, Did> eldest) {
                    return size() > RECENT_POSITIONS;
                }
            });
    private static final int RECENT_POSITIONS = 4096;

    /** One entry of {@link #recent}; described only when logged, never on the executor's path. */
    private record Did(String verdict, Command command, String failure) {
        Did with(Command c) {
            return new Did(verdict, c, failure);
        }

        Did failed(String why) {
            return new Did(verdict, command, why);
        }

        @Override
        public String toString() {
            String what = command == null ? "" : " " + command;
            if (what.length() > 161) {
                what = what.substring(0, 161) + "...";
            }
            return verdict + what + (failure == null ? "" : " " + failure);
        }
    }

    /** What this replica did at {@code position}, for a log line. */
    private String didAt(long position) {
        Did did = recent.get(position);
        return did == null ? "not recorded" : did.toString();
    }
    private HashMap<Integer, CopyTable> readerCaches = new HashMap<>();
    private HashMap<Integer, CopyTable> shipMirrors = new HashMap<>();
    private volatile long lastPosition = Position.NONE;
    private volatile long executingPosition = Position.NONE;
    private long deliveriesSinceCheckpoint;
    /** When the delivery thread last tagged a delivery for a checkpoint (or when it started). */
    private long lastCheckpointTaggedNanos = System.nanoTime();

    private volatile boolean closed;
    private volatile Throwable failure;

    /** Told of each delivery's client id and number, on the delivery thread (see {@link #observeDeliveries}). */
    public interface DeliveryObserver {
        void delivered(long clientId, long seq);
    }

    private final java.util.concurrent.CopyOnWriteArrayList<DeliveryObserver> deliveryObservers =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Calls {@code observer} with the client id and number of every command this replica delivers, on
     * the delivery thread, as it takes its place in this partition's order (before it executes). Keep it
     * short: the multicast node delivers from its event loop.
     */
    public void observeDeliveries(DeliveryObserver observer) {
        deliveryObservers.add(java.util.Objects.requireNonNull(observer, "observer"));
    }

    public ReplicaRuntime(MulticastEndpoint endpoint, PartitioningOracle oracle, Application app,
                          ReplicaOptions options) {
        options.validate();
        this.endpoint = endpoint;
        this.oracle = oracle;
        this.app = app;
        this.options = options;
        this.nodeId = endpoint.nodeId();
        ClusterConfig config = endpoint.config();
        Partition.install(config);
        int[] groups = config.node(nodeId).groups();
        if (groups.length != 1) {
            throw new IllegalArgumentException("node." + nodeId + ".groups must name exactly one partition for an "
                    + "Eyrie replica, got " + Arrays.toString(groups) + " (clients have no groups)");
        }
        this.partition = groups[0];
        this.replicasByPartition = new TreeMap<>();
        for (int g : config.groups()) {
            replicasByPartition.put(g, config.nodesInGroup(g));
        }
        this.designated = replicasByPartition.get(partition)[0] == nodeId;
        for (ClusterConfig.Node n : config.nodes().values()) {
            if (n.groups().length == 1) {
                partitionOfNode.put(n.id(), n.groups()[0]);
                lastHeard.put(n.id(), new java.util.concurrent.atomic.AtomicLong(startedNanos));
            }
        }
        // Unbounded on purpose: the multicast node delivers from its event loop, which also casts this
        // node's votes. Blocking it while the executor waits for another partition's exchange can
        // deadlock (that partition may need this node's vote to deliver the very command).
        // deliveryQueueMax only triggers a warning.
        this.queue = new java.util.concurrent.LinkedBlockingQueue<>();
        this.inbox = new ExchangeInbox(options.inboxPositionsMax());
        this.inbox.onRetainedArrival(() -> {
            if (wakeQueued.compareAndSet(false, true)) {
                queue.offer(WAKE);
            }
        });
        this.sent = new SentExchanges(options.sentPositionsMax());
        this.snapshots = options.checkpointDir() == null ? null : new SnapshotStore(options.checkpointDir());
        this.writer = snapshots == null ? null : new CheckpointWriter(snapshots, endpoint, stats, nodeId);
        this.peers = Arrays.stream(replicasByPartition.get(partition)).filter(n -> n != nodeId).toArray();
        this.imageFetch = new ImageFetch(endpoint, nodeId, peers, Math.max(200, options.exchangeTimeoutMillis()));
        this.executor = new Thread(this::runExecutor, "eyrie-replica-" + nodeId);
        this.executor.setDaemon(true);
    }

    /**
     * Restores the newest checkpoint that passes its checks (if any) and starts delivering after it.
     * A damaged newest file is set aside and the one before used; see {@link SnapshotStore}.
     */
    public void start() {
        byte[] learnerCheckpoint = null;
        if (snapshots != null) {
            SnapshotStore.Verified v = snapshots.readNewestValid();
            if (v == null) {
                v = fetchFromPeer(true);
            }
            if (v != null) {
                restore(v);
                learnerCheckpoint = restoredLearnerCheckpoint;
            }
            writer.start(lastPosition, learnerCheckpoint);
        }
        endpoint.onDirect(this::onDirect);
        executor.start();
        endpoint.start(new DeliveryListener() {
            @Override
            public void deliver(Delivery delivery) {
                onDelivery(delivery);
            }

            @Override
            public void behindTrimmedLogs(int ring, long neededInstance, long lowestKept) {
                onBehindTrimmedLogs(ring, neededInstance, lowestKept);
            }
        }, learnerCheckpoint);
    }

    /** A thread is fetching a peer's checkpoint for a learner behind the trimmed logs. */
    private final java.util.concurrent.atomic.AtomicBoolean repositioning = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * The acceptors trimmed what this replica's learner needs (its state is older than every
     * checkpoint they keep for: it started without one while no peer could give it one). Replaying is
     * impossible, so it takes a peer's newest checkpoint (as a replica without one does at start) and
     * moves the learner there, without a restart. On the delivery thread: the fetch has its own.
     */
    private void onBehindTrimmedLogs(int ring, long neededInstance, long lowestKept) {
        if (closed) {
            return;
        }
        if (snapshots == null) {
            log.error("node={} partition={} needs instance {} of ring {} but its acceptors keep nothing below {}, and "
                            + "this replica keeps no checkpoints, so it cannot take a peer's: restart it with checkpointing on",
                    nodeId, partition, neededInstance, ring, lowestKept);
            return;
        }
        if (!repositioning.compareAndSet(false, true)) {
            return;
        }
        log.warn("node={} partition={} needs instance {} of ring {} but its acceptors keep nothing below {}: taking a "
                + "peer's checkpoint", nodeId, partition, neededInstance, ring, lowestKept);
        Thread t = new Thread(this::repositionFromPeer, "eyrie-reposition-" + nodeId);
        t.setDaemon(true);
        t.start();
    }

    /** Fetches peers' checkpoints until the executor has taken one that moves the learner forward. */
    private void repositionFromPeer() {
        long pauseMillis = 1000;
        try {
            while (!closed) {
                SnapshotStore.Verified v = fetchFromPeer(false);
                if (v != null) {
                    CheckpointImage ci = imageOf(v);
                    CompletableFuture<Boolean> taken = new CompletableFuture<>();
                    queue.add(new Reposition(ci, v.image().length, taken));
                    if (awaitTaken(taken)) {
                        return;
                    }
                }
                Thread.sleep(pauseMillis);
                pauseMillis = Math.min(pauseMillis * 2, 10_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException e) {
            if (!closed) {
                log.error("node={} partition={} could not take a peer's checkpoint; restart it to retry", nodeId,
                        partition, e);
            }
        } finally {
            repositioning.set(false);
        }
    }

    /** Whether the executor took the checkpoint; false if it did not, or stopped first. */
    private boolean awaitTaken(CompletableFuture<Boolean> taken) throws InterruptedException, ExecutionException {
        while (!closed) {
            try {
                return taken.get(1, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // executing a long command, or stopped: look again
            }
        }
        return false;
    }

    /**
     * On the executor: replaces the state with a peer's checkpoint and moves the learner to it, if the
     * checkpoint is ahead of both; else changes nothing.
     */
    private boolean reposition(CheckpointImage ci, int bytes) throws InterruptedException {
        if (ci.learnerCheckpoint == null) {
            log.warn("node={} partition={} the peer's checkpoint of position={} holds no learner position", nodeId,
                    partition, Position.toString(ci.position));
            return false;
        }
        if (ci.position <= lastPosition) {
            log.info("node={} partition={} the peer's checkpoint of position={} is not ahead of this replica's {}",
                    nodeId, partition, Position.toString(ci.position), Position.toString(lastPosition));
            return false;
        }
        boolean moved;
        try {
            // the learner first: if it is not behind the checkpoint, nothing changes
            moved = endpoint.repositionLearner(ci.learnerCheckpoint).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn("node={} partition={} could not move its learner to the peer's checkpoint: {}", nodeId, partition,
                    e.toString());
            return false;
        }
        if (!moved) {
            log.info("node={} partition={} its learner is not behind the peer's checkpoint of position={}", nodeId,
                    partition, Position.toString(ci.position));
            return false;
        }
        long from = lastPosition;
        // deliveries still queued before the learner moved are covered by the image
        takeWhileRunning(ci);
        writer.adopt(ci.position, ci.learnerCheckpoint);
        stats.learnerRepositions.incrementAndGet();
        stats.stateTransferBytes.addAndGet(bytes);
        log.warn("node={} partition={} took a peer's checkpoint of position={} ({} bytes) in place of its state of "
                        + "position={}; its learner goes on from there", nodeId, partition, Position.toString(ci.position),
                bytes, Position.toString(from));
        return true;
    }

    private byte[] restoredLearnerCheckpoint;

    /**
     * A replica without a usable checkpoint (a new one, or one whose disk lost them) takes a peer's:
     * replaying from the start is impossible once the acceptors have trimmed. A peer's file is
     * checked like a local one and stored before it is used.
     */
    private SnapshotStore.Verified fetchFromPeer(boolean atStart) {
        byte[] framed;
        try {
            framed = app.fetchPeerCheckpoint();
        } catch (RuntimeException e) {
            log.warn("node={} partition={} could not fetch a checkpoint from a peer: {}", nodeId, partition, e.toString());
            return null;
        }
        if (framed == null) {
            log.info(atStart ? "node={} partition={} has no checkpoint and no peer offered one: starting from the beginning"
                    : "node={} partition={} no peer offered a checkpoint; asking again", nodeId, partition);
            return null;
        }
        SnapshotStore.Verified v;
        try {
            v = SnapshotStore.unframe(framed);
        } catch (IllegalArgumentException e) {
            log.error("node={} partition={} rejects the checkpoint a peer sent: {}", nodeId, partition, e.getMessage());
            return null;
        }
        snapshots.writeFramed(v.position(), framed);
        stats.checkpointsFetched.incrementAndGet();
        if (atStart) {
            log.warn("node={} partition={} had no usable checkpoint; restored one from a peer at position={}", nodeId,
                    partition, Position.toString(v.position()));
        } else {
            log.info("node={} partition={} fetched a peer's checkpoint of position={}", nodeId, partition,
                    Position.toString(v.position()));
        }
        return v;
    }

    /** The image of a checked checkpoint file, whose header and image must name the same position. */
    private static CheckpointImage imageOf(SnapshotStore.Verified v) {
        CheckpointImage ci = (CheckpointImage) KryoCodec.decode(v.image());
        if (ci.position != v.position()) {
            throw new IllegalStateException("checkpoint file says position " + Position.toString(v.position())
                    + " but its image says " + Position.toString(ci.position));
        }
        return ci;
    }

    private void restore(SnapshotStore.Verified v) {
        CheckpointImage ci = imageOf(v);
        restoreImage(ci);
        restoredLearnerCheckpoint = ci.learnerCheckpoint;
        log.info("node={} partition={} restored checkpoint position={}", nodeId, partition,
                Position.toString(ci.position));
    }

    /**
     * On the executor of a running replica: replaces the state with a peer's image and skips the deliveries
     * up to its position (the image covers them).
     */
    private void takeWhileRunning(CheckpointImage ci) {
        restoreImage(ci);
        inbox.finish(ci.position);
        skipUpTo = ci.position;
        executingPosition = ci.position;
    }

    /** Replaces the whole replica state with an image's: at start from a checkpoint, or from a peer's. */
    private void restoreImage(CheckpointImage ci) {
        // the continuations belong to the state being replaced: the peers that executed them replied
        deferred.clear();
        deferredPositions.clear();
        inbox.releaseAll();
        app.restoreState(ci.applicationState instanceof CheckpointImage.Written w ? w.bytes : ci.applicationState);
        replies = ci.replies;
        replies.idleDeliveries(replyIdleDeliveries);
        readerCaches = ci.readerCaches;
        shipMirrors = ci.shipMirrors;
        sent.restore(ci.sentExchanges, ci.position);
        lastPosition = ci.position;
    }

    /** Whether a captured checkpoint is still being written (tests wait for the disk with it). */
    public boolean checkpointWritePending() {
        return writer != null && writer.writing();
    }

    /** The store of this replica's checkpoints, or null when checkpoints are off. */
    public SnapshotStore snapshots() {
        return snapshots;
    }

    /** The position of the newest checkpoint on disk (restored or written), or {@link Position#NONE}. */
    public long durableCheckpointPosition() {
        return writer == null ? Position.NONE : writer.durablePosition();
    }

    public ReplicaStats stats() {
        return stats;
    }

    /**
     * Whether the caller may change the application's state: it runs on the executor thread, or the
     * executor is not running (before {@link #start}, e.g. restoring a checkpoint, or after it stopped).
     */
    public boolean onExecutorOrStopped() {
        return Thread.currentThread() == executor || !executor.isAlive();
    }

    /** Exchanges that arrived once this replica held a copy, or after their command finished. */
    public long exchangesRedundant() {
        return inbox.redundant();
    }

    /**
     * Milliseconds this replica has spent sending its partition's exchanges in place of the designated
     * sender: a stretch begins with a volunteering and lasts until no silent ask has prolonged it for
     * {@value #VOLUNTEER_MILLIS} ms; the current stretch counts up to now. Read from any thread (a read
     * that races with the start of a new stretch may be off by the previous one's length).
     */
    public long volunteeringMillis() {
        long ended = volunteeredNanos;
        long current = 0;
        if (volunteered) {
            long now = System.nanoTime();
            long until = volunteerUntilNanos;
            current = Math.max(0, (now - until < 0 ? now : until) - volunteerSinceNanos);
        }
        return TimeUnit.NANOSECONDS.toMillis(ended + current);
    }

    public int partition() {
        return partition;
    }

    public int nodeId() {
        return nodeId;
    }

    public boolean isDesignatedSender() {
        return designated;
    }

    /** The position of the last command this replica finished, or {@link Position#NONE}. */
    public long lastPosition() {
        return lastPosition;
    }

    /** The position of the command being executed (or last executed), or {@link Position#NONE}. */
    /** How many commands' exchanges this replica keeps for other partitions' asks (ADR 049). */
    public int exchangesKept() {
        return sent.size();
    }

    public long executingPosition() {
        return executingPosition;
    }

    /** Deliveries queued for the executor and not yet taken (after a state transfer: also those it will skip). */
    public int deliveriesWaiting() {
        return queue.size();
    }

    /** Exchanges held for commands not yet finished here (early ones included). */
    public int bufferedExchanges() {
        return inbox.buffered();
    }

    /** The error that stopped the executor, if any. */
    public Throwable failure() {
        return failure;
    }

    // ---- delivery thread ----

    /** The backlog last warned about (delivery thread only). */
    private int lastBacklogWarned;

    /** The checkpoint age bound has passed since the last one was tagged (delivery thread). */
    private boolean checkpointDue() {
        return options.checkpointMaxMillis() > 0 && System.nanoTime() - lastCheckpointTaggedNanos
                >= TimeUnit.MILLISECONDS.toNanos(options.checkpointMaxMillis());
    }

    private void onDelivery(Delivery d) {
        if (closed) {
            return;
        }
        byte[] learnerCheckpoint = null;
        long after = checkpointAfter.get();
        boolean afterTransfer = after != Position.NONE && d.position() > after
                && checkpointAfter.compareAndSet(after, Position.NONE);
        if (snapshots != null && (++deliveriesSinceCheckpoint >= options.checkpointInterval() || afterTransfer
                || checkpointDue())) {
            deliveriesSinceCheckpoint = 0;
            lastCheckpointTaggedNanos = System.nanoTime();
            // taken here, inside deliver, so it reflects exactly the deliveries queued so far; the
            // executor snapshots when it reaches this delivery, and the two then agree
            learnerCheckpoint = endpoint.learnerCheckpoint();
        }
        Signalled signalled = signalsEnabled && d.groups().length > 1 && d.addressedTo(partition) ? signalAtDelivery(d) : null;
        queue.add(new Deliver(d, learnerCheckpoint, System.nanoTime(), signalled));
        if (!deliveryObservers.isEmpty() && d.payload().length >= 16 && d.addressedTo(partition)) {
            // a request starts with its client id and number (Wire.encode(Request))
            java.nio.ByteBuffer head = java.nio.ByteBuffer.wrap(d.payload(), 0, 16);
            long clientId = head.getLong();
            long seq = head.getLong();
            for (DeliveryObserver o : deliveryObservers) {
                try {
                    o.delivered(clientId, seq);
                } catch (RuntimeException e) {
                    log.warn("node={} delivery observer failed: {}", nodeId, e.toString());
                }
            }
        }
        int backlog = queue.size();
        if (backlog > options.deliveryQueueMax() && backlog > lastBacklogWarned * 2) {
            lastBacklogWarned = backlog;
            log.warn("node={} partition={} has {} deliveries waiting for execution (deliveryQueueMax={})",
                    nodeId, partition, backlog, options.deliveryQueueMax());
        } else if (backlog <= options.deliveryQueueMax()) {
            lastBacklogWarned = options.deliveryQueueMax();
        }
    }

    /**
     * Keeps, and if this replica sends, sends the bare signal of a multi-partition command as it is
     * delivered (ADR 034). Algorithm 1's signal says "this partition delivered C": any command a client
     * issues after C's reply is then ordered after C here, and this replica's executor runs deliveries
     * in order. Sent at delivery instead of when the executor reaches C, it is at the other partitions
     * by the time their executors reach C, unless this partition delivers C later than they do; a
     * command's wait for signals then costs the difference in delivery times, not in execution
     * backlogs. Only for a command that reads no objects (objects carry the state as of C, so they
     * leave at execution) and that is not independent (ADR 032). Null when it is not such a command or
     * does not decode: the executor then handles it as before.
     */
    private Signalled signalAtDelivery(Delivery d) {
        Wire.Request request;
        Command command;
        try {
            request = Wire.decodeRequest(d.payload());
            if (request.kind() != Wire.Request.COMMAND) {
                return null;
            }
            command = (Command) KryoCodec.decode(request.command());
            command.rewind();
            if (!oracle.getLocalObjects(command).isEmpty()) {
                return null;
            }
            command.rewind();
            if (oracle.executesIndependently(command)) {
                return null;
            }
            command.rewind();
        } catch (RuntimeException e) {
            return null; // the executor meets the same error, and answers it without exchanges
        }
        stats.signalsAtDelivery.addAndGet(keepAndSend(d.position(), 0, bareSignals(d.position(), d.groups())));
        return new Signalled(request, command);
    }

    /**
     * Keeps a round of a command's exchanges (by destination partition) for asks and, if this replica
     * sends its partition's exchanges, sends each to every replica of its partition. Returns how many
     * messages it sent.
     */
    private int keepAndSend(long position, int round, Map<Integer, byte[]> encoded) {
        sent.put(position, round, encoded);
        if (!sends()) {
            return 0;
        }
        int n = 0;
        for (Map.Entry<Integer, byte[]> e : encoded.entrySet()) {
            for (int node : replicasByPartition.get(e.getKey())) {
                stats.exchangesSent.incrementAndGet();
                endpoint.sendDirect(node, e.getValue());
                n++;
            }
        }
        return n;
    }

    /** The round-0 exchanges without objects for each other partition among {@code groups}. */
    private Map<Integer, byte[]> bareSignals(long position, int[] groups) {
        Map<Integer, byte[]> encoded = new LinkedHashMap<>();
        for (int q : groups) {
            if (q != partition) {
                encoded.put(q, Wire.encode(new Wire.Exchange(position, 0, partition, q, List.of())));
            }
        }
        return encoded;
    }

    /** Whether this replica sends its partition's exchanges: the designated sender, or a volunteer. */
    private boolean sends() {
        return designated || (volunteered && System.nanoTime() - volunteerUntilNanos < 0);
    }

    // ---- direct-channel thread ----

    private void onDirect(int from, byte[] message) {
        if (closed) {
            return;
        }
        byte type = Wire.type(message);
        if (!Wire.isReplicaMessage(type)) {
            return; // a reply to a client, or another protocol's message on the shared channel
        }
        Object m;
        try {
            m = Wire.decodeDirect(message);
        } catch (RuntimeException e) {
            log.warn("node={} dropped a malformed direct message from node {}: {}", nodeId, from, e.getMessage());
            return;
        }
        if (m instanceof Wire.Exchange e) {
            java.util.concurrent.atomic.AtomicLong heard = lastHeard.get(from);
            if (heard != null) {
                heard.lazySet(System.nanoTime());
            }
            if (e.to() == partition) {
                inbox.offer(e);
                receivedUpTo.computeIfAbsent(e.from(), q -> new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE))
                        .accumulateAndGet(e.position(), Math::max);
            }
        } else if (m instanceof Wire.Progress p) {
            if (p.partition() != partition) {
                sent.progress(p.partition(), p.doneUpTo());
            }
        } else if (m instanceof Wire.Ask a) {
            answer(a);
        } else if (m instanceof Wire.Gone g) {
            if (g.position() == executingPosition || deferredPositions.contains(g.position())) {
                stats.gonesReceived.incrementAndGet();
                int[] owners = replicasByPartition.get(g.owner());
                int majority = owners == null ? 1 : owners.length / 2 + 1;
                if (inbox.goneFrom(g.position(), from, majority)) {
                    log.debug("node={} a majority of partition {} no longer keeps its exchange for position={}", nodeId,
                            g.owner(), Position.toString(g.position()));
                }
            }
        } else if (m instanceof Wire.ImageRequest r) {
            onImageRequest(from, r);
        } else if (m instanceof Wire.ChunkRequest c) {
            sendChunk(from, c);
        } else if (m instanceof Wire.ImageOffer || m instanceof Wire.Chunk) {
            imageFetch.receive(from, m);
        } else {
            log.debug("node={} ignored {} from node {}", nodeId, m.getClass().getSimpleName(), from);
        }
    }

    /**
     * The wait before ask number {@code asks} (from 0) of one wait: the exchange timeout, doubled per
     * ask up to 16 times it. A late exchange under load is slow, not lost; asking every timeout only
     * added to the load (ADR 038).
     */
    private long askInterval(int asks) {
        return TimeUnit.MILLISECONDS.toNanos(options.exchangeTimeoutMillis()) << Math.min(asks, 4);
    }

    /** A wait for one exchange this long is logged (see {@code warnLongWait}): 50 exchange timeouts, at least 5 s. */
    private long longWaitNanos() {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(50 * options.exchangeTimeoutMillis()), TimeUnit.SECONDS.toNanos(5));
    }

    /** Heard nothing from a designated sender for this long: an asker says it is silent. */
    private long silentNanos() {
        return TimeUnit.MILLISECONDS.toNanos(4 * options.exchangeTimeoutMillis());
    }

    /** An exchange kept this long ago that an asker still lacks is lost, not late. */
    private long lostAfterNanos() {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(25 * options.exchangeTimeoutMillis()), TimeUnit.SECONDS.toNanos(5));
    }

    /** When this replica last received an exchange from {@code node} (System.nanoTime), or when it started. */
    private long lastHeardFrom(int node) {
        java.util.concurrent.atomic.AtomicLong heard = lastHeard.get(node);
        return heard == null ? startedNanos : heard.get();
    }

    /** How many kept exchanges after an asked one go with the answer (see {@link #answer}). */
    static final int CATCH_UP_EXCHANGES = 256;

    /**
     * What the catch-up bursts to one asker carried since {@code sinceNanos}: an exchange goes once per
     * such stretch. A stretch ends after the lost-exchange age (what went may have been dropped), when
     * the asker restarted, or past {@link #CATCH_UP_REMEMBERED} exchanges.
     */
    private static final class CatchUp {
        private final long sinceNanos;
        private final java.util.Set<Carried> keys = new java.util.HashSet<>();

        CatchUp(long sinceNanos) {
            this.sinceNanos = sinceNanos;
        }

        boolean stale(long now, long maxAgeNanos, long askerUptimeNanos) {
            return now - sinceNanos >= maxAgeNanos || now - sinceNanos >= askerUptimeNanos
                    || keys.size() >= CATCH_UP_REMEMBERED;
        }

        boolean carried(long position, int round) {
            return keys.contains(new Carried(position, round));
        }

        void carry(long position, int round) {
            keys.add(new Carried(position, round));
        }
    }

    private record Carried(long position, int round) {
    }

    /** At most this many exchanges are remembered per asker before its record starts afresh. */
    static final int CATCH_UP_REMEMBERED = 16 * CATCH_UP_EXCHANGES;

    /** By asker node, what recent catch-up bursts carried to it (direct-channel threads). */
    private final Map<Integer, CatchUp> catchUps = new java.util.concurrent.ConcurrentHashMap<>();

    private void answer(Wire.Ask a) {
        if (a.owner() != partition) {
            return;
        }
        SentExchanges.Lookup found = sent.lookup(a.position(), a.asker(), a.round(), deferredPositions::contains);
        byte[] encoded = found.kept();
        if (encoded != null) {
            if (!designated && a.senderSilent()) {
                // The asker lacks an exchange this replica computed and has heard nothing from the
                // designated sender for a while: take over for a while, so that the next commands do not
                // each wait an exchange timeout. Not on any ask (ADR 038): under load exchanges are late,
                // not lost, and every volunteer sends every exchange again.
                long now = System.nanoTime();
                if (!sends()) {
                    stats.volunteerings.incrementAndGet();
                    if (volunteered) {
                        volunteeredNanos += volunteerUntilNanos - volunteerSinceNanos;
                    }
                    volunteerSinceNanos = now;
                }
                volunteerUntilNanos = now + TimeUnit.MILLISECONDS.toNanos(VOLUNTEER_MILLIS);
                volunteered = true;
            }
            stats.asksAnswered.incrementAndGet();
            stats.exchangesSent.incrementAndGet();
            endpoint.sendDirect(a.askerNode(), encoded);
            long keptAgo = sent.keptAgoNanos(a.position());
            boolean lost = keptAgo > TimeUnit.MILLISECONDS.toNanos(a.askerUptimeMillis()) || keptAgo >= lostAfterNanos();
            if (!lost || !sends()) {
                return;
            }
            // An asker that replays from far behind (restarted) would otherwise wait an exchange
            // timeout for each of its next cross-partition commands: the designated sender sent those
            // exchanges before it ran. Send it the ones that follow too; its inbox buffers early
            // exchanges. Only for an exchange kept before the asker started, or so long ago that it
            // cannot still be on its way, and only by the replica that sends (ADR 038): an asker that is
            // merely slow has the following ones already, or will.
            // Every round counts, deferred ones too (a burst of signals alone left a replayer asking once
            // per deferred round), and an exchange a recent burst already carried to this asker does not
            // go again (a replay asked for rounds a burst had skipped, and every ask sent the same 256
            // exchanges again: hundreds of times each, ADR 055). Recent: sent since the asker started,
            // and less than the lost-exchange age ago.
            long now = System.nanoTime();
            CatchUp recent = catchUps.compute(a.askerNode(), (node, c) -> c == null || c.stale(now, lostAfterNanos(),
                    TimeUnit.MILLISECONDS.toNanos(a.askerUptimeMillis())) ? new CatchUp(now) : c);
            synchronized (recent) {
                for (SentExchanges.Kept next : sent.following(a.position(), a.round(), a.asker(), CATCH_UP_EXCHANGES,
                        (position, round) -> {
                            boolean carried = recent.carried(position, round);
                            if (carried) {
                                stats.catchUpsSkipped.incrementAndGet();
                            }
                            return carried;
                        })) {
                    stats.exchangesSent.incrementAndGet();
                    stats.catchUpExchangesSent.incrementAndGet();
                    endpoint.sendDirect(a.askerNode(), next.encoded());
                    recent.carry(next.position(), next.round());
                }
            }
        } else if (found.gone()) {
            // executed too long ago: the asker cannot replay this command and must catch up by state transfer
            stats.gonesSent.incrementAndGet();
            log.info("node={} cannot answer ask for position={} round={} from node {} of partition {}: that exchange is "
                            + "{}; telling it to take a state image from its peers (this replica's delivery there: {})",
                    nodeId, Position.toString(a.position()), a.round(), a.askerNode(), a.asker(),
                    sent.whyNotKept(a.position()), didAt(a.position()));
            endpoint.sendDirect(a.askerNode(), Wire.encode(new Wire.Gone(a.position(), partition)));
        }
        // otherwise this replica has not executed that command yet; the asker will ask again
    }

    /** A peer of this partition asks for a state image (direct-channel thread). */
    private void onImageRequest(int from, Wire.ImageRequest r) {
        if (Arrays.stream(peers).noneMatch(p -> p == from)) {
            return;
        }
        ServedImage s = served;
        if (s != null && s.position() >= r.minPosition()) {
            offer(from, r.requestId(), s);
            return;
        }
        if (transferring || lastPosition < r.minPosition()) {
            // behind the asker's need: stay silent, another peer may answer
            log.debug("node={} cannot offer node {} an image at or after position={} (at position={})", nodeId, from,
                    Position.toString(r.minPosition()), Position.toString(lastPosition));
            return;
        }
        synchronized (imageRequests) {
            imageRequests.put(from, r);
            if (!captureQueued) {
                captureQueued = true;
                queue.add(new CaptureImage());
            }
        }
    }

    private void offer(int node, long requestId, ServedImage s) {
        servedTouchedNanos = System.nanoTime();
        endpoint.sendDirect(node, Wire.encode(new Wire.ImageOffer(requestId, s.position(), s.bytes().length, s.sha256())));
    }

    private void sendChunk(int from, Wire.ChunkRequest c) {
        ServedImage s = served;
        if (s == null || s.position() != c.position() || c.offset() < 0 || c.offset() >= s.bytes().length) {
            return; // an image no longer kept: the requester gives up on this peer and asks again
        }
        servedTouchedNanos = System.nanoTime();
        int end = Math.min(s.bytes().length, c.offset() + ImageFetch.CHUNK_BYTES);
        endpoint.sendDirect(from, Wire.encode(new Wire.Chunk(c.requestId(), s.position(), c.offset(),
                Arrays.copyOfRange(s.bytes(), c.offset(), end))));
    }

    /**
     * Whether this replica keeps up: running, not fetching a state image, and neither the delivery it
     * executes nor the next one waiting was queued more than {@code maxLagNanos} ago. A client on this
     * node asks for local replies only while this holds (a restarted replica replaying thousands of
     * deliveries, or one stuck waiting, does not), so its commands are answered by the others meanwhile.
     * Cheap and safe from any thread.
     */
    public boolean caughtUp(long maxLagNanos) {
        if (closed || failure != null || transferring) {
            return false;
        }
        long now = System.nanoTime();
        long since = processingSinceNanos;
        if (since != 0 && now - since > maxLagNanos) {
            return false;
        }
        Work head = queue.peek();
        return !(head instanceof Deliver d) || now - d.enqueuedNanos() <= maxLagNanos;
    }

    // ---- executor thread ----

    /** How often, at most, a replica tells the partitions that send it exchanges how far it got (ADR 049). */
    static final long PROGRESS_MILLIS = 500;

    /**
     * Tells each other partition that sent this replica exchanges it has not yet reported finishing
     * how far this replica got: everything at or below {@link #doneUpTo()}. That partition's replicas
     * keep their exchanges for this partition until some replica of it reports so (ADR 049). At most
     * every {@link #PROGRESS_MILLIS}; executor thread.
     */
    private void reportProgress() {
        long now = System.nanoTime();
        if (now - progressReportedNanos < TimeUnit.MILLISECONDS.toNanos(PROGRESS_MILLIS)) {
            return;
        }
        progressReportedNanos = now;
        warnIfForgotWhileNeeded(now); // about this replica's own kept exchanges: whether or not it reports
        if (receivedUpTo.isEmpty() || !progressReports) {
            return;
        }
        long done = doneUpTo();
        byte[] report = null;
        for (Map.Entry<Integer, java.util.concurrent.atomic.AtomicLong> e : receivedUpTo.entrySet()) {
            int q = e.getKey();
            Long reported = reportedUpTo.get(q);
            boolean progressed = reported == null || done > reported;
            boolean owed = reported == null || reported < e.getValue().get(); // q sent something not reported finished
            if (!progressed || !owed) {
                continue;
            }
            int[] nodes = replicasByPartition.get(q);
            if (nodes == null) {
                continue;
            }
            if (report == null) {
                report = Wire.encode(new Wire.Progress(partition, done));
            }
            for (int node : nodes) {
                endpoint.sendDirect(node, report);
                stats.progressSent.incrementAndGet();
            }
            reportedUpTo.put(q, done);
        }
    }

    private void warnIfForgotWhileNeeded(long now) {
        long lost = sent.forgottenWhileNeeded();
        if (lost > forgottenWhileNeededLogged && now - forgottenWhileNeededLoggedNanos > TimeUnit.MINUTES.toNanos(1)) {
            forgottenWhileNeededLoggedNanos = now;
            log.warn("node={} partition={} forgot {} exchanges another partition had not reported finishing (over {} "
                            + "kept): a partition that far behind catches up by state transfer if a peer of it got further",
                    nodeId, partition, lost - forgottenWhileNeededLogged, sent.size());
            forgottenWhileNeededLogged = lost;
        }
    }

    /**
     * Every command at or below this position has finished here, deferred rounds included, and, with
     * checkpoints, for good: a replica that restarts does so from its newest durable checkpoint and
     * replays what follows, so it reports no further than that checkpoint.
     */
    private long doneUpTo() {
        long done = lastPosition;
        for (long p : deferredPositions) {
            done = Math.min(done, p - 1);
        }
        if (writer != null) {
            done = Math.min(done, writer.durablePosition());
        }
        return done;
    }

    private void runExecutor() {
        try {
            while (!closed) {
                Work w;
                if (deferred.isEmpty()) {
                    w = queue.poll(PROGRESS_MILLIS, TimeUnit.MILLISECONDS);
                    if (w == null) {
                        reportProgress();
                        continue;
                    }
                } else {
                    w = queue.poll(options.exchangeTimeoutMillis(), TimeUnit.MILLISECONDS);
                    if (w == null) {
                        // a deferred round is late: wait for it here, asking as a blocked command does
                        continueOrTransfer(true);
                        continue;
                    }
                }
                if (w instanceof Stop) {
                    return;
                }
                if (w instanceof Wake) {
                    wakeQueued.set(false); // arrivals from now on queue another
                    continueOrTransfer(false);
                    continue;
                }
                if (w instanceof CaptureImage) {
                    continueOrTransfer(true);
                    serveImage();
                    continue;
                }
                if (w instanceof Reposition r) {
                    boolean taken = false;
                    try {
                        taken = reposition(r.image(), r.bytes());
                    } finally {
                        r.taken().complete(taken);
                    }
                    continue;
                }
                Deliver d = (Deliver) w;
                processingSinceNanos = d.enqueuedNanos();
                boolean followed;
                try {
                    followed = process(d.delivery(), d.signalled());
                } finally {
                    processingSinceNanos = 0;
                }
                if (!deferred.isEmpty()) {
                    // rounds that arrived before their command deferred them woke nobody
                    continueOrTransfer(false);
                }
                reportProgress();
                // a skipped delivery's learner position is behind the state taken from a peer: no checkpoint pairs them
                // (nor one whose continuations could not run: the state was replaced by a peer's)
                if (followed && d.learnerCheckpoint() != null && continueOrTransfer(true)) {
                    checkpoint(d.learnerCheckpoint());
                }
                ServedImage s = served;
                if (s != null && System.nanoTime() - servedTouchedNanos > SERVED_KEEP_NANOS) {
                    served = null;
                }
            }
        } catch (InterruptedException e) {
            if (!closed) {
                failure = e;
            }
        } catch (Throwable t) {
            if (!closed) {
                failure = t;
                log.error("node={} partition={} replica stopped on an error", nodeId, partition, t);
            }
        }
    }

    /**
     * Executes (or answers from the reply table) one delivery. False when the delivery was skipped,
     * or its command abandoned for a state transfer: the state then no longer follows it.
     */
    private boolean process(Delivery d, Signalled signalled) throws InterruptedException {
        long position = d.position();
        if (position <= skipUpTo) {
            stats.deliveriesSkipped.incrementAndGet();
            return false;
        }
        if (position <= lastPosition) {
            throw new IllegalStateException("delivery at " + Position.toString(position)
                    + " does not follow " + Position.toString(lastPosition) + ": positions must increase");
        }
        if (!d.addressedTo(partition)) {
            throw new IllegalStateException("delivery " + d + " is not addressed to partition " + partition);
        }
        executingPosition = position;
        Wire.Request request;
        try {
            request = signalled != null ? signalled.request() : Wire.decodeRequest(d.payload());
        } catch (RuntimeException e) {
            // every replica delivers the same bytes and skips them alike, so the replicas stay equal
            log.warn("node={} skips malformed request at position={}: {}", nodeId, Position.toString(position),
                    e.getMessage());
            request = null;
        }
        String destinations = ReplyTable.destinations(d.groups());
        String control = null;
        if (request != null && request.kind() != Wire.Request.COMMAND) {
            control = retire(d, request, destinations) + " " + request.name();
            request = null;
        }
        ReplyTable.Verdict verdict = request == null ? ReplyTable.Verdict.IGNORE : replies.classify(request, destinations);
        if (d.groups().length > 1) {
            recent.put(position, new Did(control != null ? control
                    : verdict + " " + (request == null ? "(malformed)" : request.name()), null, null));
        }
        switch (verdict) {
            case IGNORE -> {
            }
            case EXPIRED -> {
                // a late copy of a command that ran here, of a client idle so long its entry went (ADR 062)
                stats.expiredRefused.incrementAndGet();
                answerFirstCopy(d.groups(), request, Wire.encode(new Wire.Reply(request.clientId(), request.seq(), false,
                        ("client " + Long.toHexString(request.clientId()) + " was idle past the reply table's bound"
                                + " (ADR 062); seq " + request.seq() + " ran already and its reply is no longer held")
                                .getBytes(StandardCharsets.UTF_8))));
            }
            case RETIRED -> {
                // a late copy of a command of a client that has left: run once already, or abandoned by it
                stats.retiredRefused.incrementAndGet();
                answerFirstCopy(d.groups(), request, Wire.encode(new Wire.Reply(request.clientId(), request.seq(), false,
                        (Wire.retiredPrefix(request.clientId()) + "; seq " + request.seq()
                                + " was not executed").getBytes(StandardCharsets.UTF_8))));
            }
            case RESEND -> {
                stats.duplicatesAnswered.incrementAndGet();
                byte[] recorded = replies.reply(request.clientId(), destinations, request.seq());
                if (recorded == PENDING_REPLY) {
                    pendingFor(request).resentTo.add(request.clientNode());
                } else if (recorded.length == 0) {
                    // answered elsewhere (ADR 054): only the partitions that answer send it again
                    stats.repliesLeftToOthers.incrementAndGet();
                } else {
                    send(request.clientNode(), recorded);
                }
            }
            case EXECUTE -> {
                try {
                    runReadyContinuations();
                    execute(position, d.groups(), request, signalled);
                } catch (ExchangeGone g) {
                    transferState(position);
                    return false;
                }
            }
        }
        inbox.finish(position);
        sent.passed(position);
        lastPosition = position;
        stats.replyTableClients.lazySet(replies.clients());
        stats.clientsExpired.lazySet(replies.clientsExpired());
        return true;
    }

    /**
     * A client leaves (ADR 058): from the delivery's destination set ({@link Wire.Request#RETIRE}), or
     * its node's previous client leaves every partition ({@link Wire.Request#RETIRE_NODE}, which
     * must go to every partition so that all of them order it alike against every command). Runs at
     * every replica of every destination with the same outcome; answered like a first copy.
     */
    private String retire(Delivery d, Wire.Request request, String destinations) {
        String outcome;
        boolean ok = true;
        if (request.kind() == Wire.Request.RETIRE) {
            replies.retire(request.clientId(), destinations);
            stats.clientsRetired.incrementAndGet();
            outcome = "retired";
        } else if (d.groups().length != replicasByPartition.size() || request.command().length != Long.BYTES) {
            ok = false;
            outcome = "a node's retire must go to every partition (" + replicasByPartition.size()
                    + ") with its start time (8 bytes); got " + d.groups().length + " partitions and "
                    + request.command().length + " bytes";
            log.warn("node={} ignores the retire of client={}: {}", nodeId, Long.toHexString(request.clientId()), outcome);
        } else {
            long started = java.nio.ByteBuffer.wrap(request.command()).getLong();
            long gone = replies.retireNodeBefore(request.clientId(), started);
            if (gone != 0) {
                stats.clientsRetired.incrementAndGet();
                log.info("node={} client={} succeeds client={} of node {}: its replies are dropped", nodeId,
                        Long.toHexString(request.clientId()), Long.toHexString(gone), request.clientNode());
            }
            outcome = gone == 0 ? "nothing to retire" : "retired " + Long.toHexString(gone);
        }
        byte[] body = ok ? KryoCodec.encode(outcome) : outcome.getBytes(StandardCharsets.UTF_8);
        answerFirstCopy(d.groups(), request, Wire.encode(new Wire.Reply(request.clientId(), request.seq(), ok, body)));
        return request.kind() == Wire.Request.RETIRE ? "RETIRE" : "RETIRE_NODE (" + outcome + ")";
    }

    /**
     * Another partition no longer keeps its exchange for the command at {@code blockedAt}, so this
     * replica cannot replay it: it takes the state of a peer of its own partition that executed past
     * it, and skips the deliveries that image covers. The abandoned command's partial effects go
     * with the replaced state, and it sends no reply (the peers did).
     */
    private void transferState(long blockedAt) throws InterruptedException {
        log.warn("node={} partition={} cannot replay position={} ({}): another partition no longer keeps its exchange; "
                + "fetching a state image from a peer", nodeId, partition, Position.toString(blockedAt), didAt(blockedAt));
        transferring = true;
        ImageFetch.Fetched f;
        try {
            f = imageFetch.fetch(blockedAt);
        } finally {
            transferring = false;
        }
        CheckpointImage ci = (CheckpointImage) KryoCodec.decode(f.image());
        if (ci.position != f.position()) {
            throw new IllegalStateException("node " + f.peer() + " offered an image of position "
                    + Position.toString(f.position()) + " but sent one of " + Position.toString(ci.position));
        }
        takeWhileRunning(ci);
        stats.stateTransfers.incrementAndGet();
        stats.stateTransferBytes.addAndGet(f.image().length);
        if (snapshots != null) {
            checkpointAfter.set(ci.position);
        }
        log.warn("node={} partition={} took the state of position={} from node {} ({} bytes); skips the deliveries "
                        + "from position={} up to it", nodeId, partition, Position.toString(ci.position), f.peer(),
                f.image().length, Position.toString(blockedAt));
    }

    /** Captures one image for the peers waiting for it (or reuses the last one if nothing executed since). */
    private void serveImage() {
        Map<Integer, Wire.ImageRequest> waiting;
        synchronized (imageRequests) {
            waiting = new HashMap<>(imageRequests);
            imageRequests.clear();
            captureQueued = false;
        }
        ServedImage s = served;
        if (s == null || s.position() != lastPosition) {
            byte[] bytes = encodeImage(null);
            s = new ServedImage(lastPosition, bytes, ImageFetch.sha256(bytes));
            served = s;
            stats.imagesServed.incrementAndGet();
            log.info("node={} partition={} captured a state image of position={} ({} bytes) for peers {}", nodeId,
                    partition, Position.toString(s.position()), bytes.length, waiting.keySet());
        }
        for (Map.Entry<Integer, Wire.ImageRequest> e : waiting.entrySet()) {
            if (s.position() >= e.getValue().minPosition()) {
                offer(e.getKey(), e.getValue().requestId(), s);
            }
        }
    }

    private void execute(long position, int[] groups, Wire.Request request, Signalled signalled)
            throws InterruptedException {
        int[] others = without(groups, partition);
        inbox.begin(position);
        Command command;
        CommandRun run;
        try {
            command = signalled != null ? signalled.command() : (Command) KryoCodec.decode(request.command());
            run = new CommandRun(position, request, command, others);
            if (others.length > 0) {
                Command c = command;
                recent.computeIfPresent(position, (k, v) -> v.with(c));
            }
            if (others.length > 0 && run.expectedIds.isEmpty()) {
                command.rewind();
                run.independent = oracle.executesIndependently(command);
                command.rewind();
            }
        } catch (RuntimeException e) {
            // an undecodable command or a failing oracle fails the same way at every destination:
            // nobody sends or awaits exchanges for it, and the client gets the error
            log.warn("node={} cmd={} cannot be executed: {}", nodeId, request.name(), e.toString());
            byte[] reply = Wire.encode(new Wire.Reply(request.clientId(), request.seq(), false,
                    ("cannot execute command: " + e).getBytes(StandardCharsets.UTF_8)));
            replies.record(request.clientId(), ReplyTable.destinations(groups), request.seq(), reply);
            answerFirstCopy(groups, request, reply);
            return;
        }
        if (others.length > 0 && !run.independent) {
            if (signalled == null) {
                shipExchanges(run);
            } else if (sent.get(position, others[0], 0) == null) {
                // sent at delivery, but forgotten since (this replica is far behind): keep it for asks again
                sent.put(position, 0, bareSignals(position, groups));
            }
        }
        boolean ok;
        byte[] body;
        Later later = null;
        CurrentExecution.set(run);
        try {
            command.rewind();
            Object result = app.execute(command);
            ok = true;
            if (result instanceof Later l) {
                later = l;
                body = null;
            } else {
                body = KryoCodec.encode(result);
            }
        } catch (RemoteWaitInterrupted e) {
            throw e.cause;
        } catch (ExchangeGone e) {
            throw e;
        } catch (RuntimeException e) {
            // a deterministic error of the command: every replica reaches it, so it is the reply
            ok = false;
            body = String.valueOf(e).getBytes(StandardCharsets.UTF_8);
            if (others.length > 0) {
                // every replica of this partition fails alike, but another partition may not have: it then
                // waits for exchanges this one never sends, so say so where an operator looks
                recent.computeIfPresent(position, (k, v) -> v.failed("failed: " + e));
                log.warn("node={} partition={} multi-partition command {} at position={} failed: {}", nodeId, partition,
                        request.name(), Position.toString(position), e.toString(), e);
            } else {
                log.debug("node={} cmd={} failed: {}", nodeId, request.name(), e.toString());
            }
        } finally {
            CurrentExecution.clear();
        }
        if (run.abandoned) {
            throw new ExchangeGone(position); // the command caught it; its outcome does not count
        }
        // A deferred command's reply waits for the other partitions' signals in its continuation, so the
        // executor need not (ADR 036); with caching the signals carry cache updates needed now.
        boolean signalsLater = later != null && !options.cachingEnabled();
        if (signalsEnabled && !run.independent && !signalsLater) {
            for (int q : others) {
                run.exchangeFrom(q);
            }
        }
        if (options.cachingEnabled() && signalsEnabled && !run.independent) {
            run.updateReaderCaches();
        }
        if (run.independent) {
            stats.independentCommands.incrementAndGet();
        }
        stats.commandsExecuted.incrementAndGet();
        if (later != null) {
            if (later.run != run) {
                throw new IllegalStateException("command at " + Position.toString(position)
                        + " returned another command's later()");
            }
            replies.record(request.clientId(), ReplyTable.destinations(groups), request.seq(), PENDING_REPLY);
            inbox.retain(position);
            deferredPositions.add(position);
            Deferred d = new Deferred(later, groups, request);
            d.signalsPending = signalsLater && signalsEnabled && !run.independent;
            d.warnAfterNanos = longWaitNanos();
            deferred.addLast(d);
            stats.deferredCommands.incrementAndGet();
            return;
        }
        if (!run.answers()) {
            replies.record(request.clientId(), ReplyTable.destinations(groups), request.seq(), ANSWERED_ELSEWHERE);
            stats.repliesLeftToOthers.incrementAndGet();
            return;
        }
        byte[] reply = Wire.encode(new Wire.Reply(request.clientId(), request.seq(), ok, body));
        replies.record(request.clientId(), ReplyTable.destinations(groups), request.seq(), reply);
        answerFirstCopy(groups, request, reply, run.answering);
    }

    private Deferred pendingFor(Wire.Request request) {
        for (Deferred d : deferred) {
            if (d.request.clientId() == request.clientId() && d.request.seq() == request.seq()) {
                return d;
            }
        }
        throw new IllegalStateException("reply of client " + request.clientId() + " seq " + request.seq()
                + " is pending but no continuation waits for it");
    }

    // ---- deferred continuations (executor thread) ----

    /**
     * Between commands: runs the continuations that are ready ({@code all}: every one, waiting). A round
     * another partition no longer keeps makes this replica take a peer's state, as a blocked command does
     * (false then).
     */
    private boolean continueOrTransfer(boolean all) throws InterruptedException {
        try {
            if (all) {
                settleDeferred();
            } else {
                runReadyContinuations();
            }
            return true;
        } catch (ExchangeGone g) {
            transferState(lastPosition);
            return false;
        }
    }

    /**
     * Runs, oldest first, the continuations whose rounds are all in; stops at the first that waits. When
     * that one has waited longer than the exchange timeout, it asks for its missing rounds (again every
     * timeout) without stopping: a lost round must not wait for the executor to fall idle, which under
     * load it may not. The answers wake the executor like the rounds themselves.
     */
    private void runReadyContinuations() throws InterruptedException {
        while (!deferred.isEmpty()) {
            Deferred d = deferred.peekFirst();
            if (!isReady(d, false)) {
                long now = System.nanoTime();
                // askedNanos starts at sinceNanos: the first ask comes one exchange timeout after the deferral
                if (now - d.askedNanos > askInterval(d.asks)) {
                    d.askedNanos = now;
                    d.asks++;
                    isReady(d, true);
                    if (now - d.sinceNanos >= d.warnAfterNanos) {
                        d.warnAfterNanos *= 2;
                        d.later.run.countLongWait();
                        warnLongPending(d, now);
                    }
                }
                return;
            }
            continueOldest();
        }
    }

    /**
     * The oldest continuation has been pending past the long-wait threshold while the executor kept executing
     * later commands (none of which settled): what is missing, as {@code warnLongWait} says of a blocked wait.
     */
    private void warnLongPending(Deferred d, long now) {
        Later l = d.later;
        List<Integer> missing = new ArrayList<>();
        for (int q : l.senders) {
            if (inbox.peek(l.run.position, q, l.round) == null) {
                missing.add(q);
            }
        }
        log.warn("node={} partition={}: the continuation of command {} at position={} has been pending {} s for round {} "
                        + "of partitions {}{} while the executor went on (executing position={}, {} continuations "
                        + "deferred); asked {} times; last exchange heard from {}; gone: {}",
                nodeId, partition, d.request.name(), Position.toString(l.run.position),
                TimeUnit.NANOSECONDS.toSeconds(now - d.sinceNanos), l.round, missing,
                d.signalsPending ? " (and signals)" : "", Position.toString(executingPosition), deferred.size(),
                d.asks, lastHeardFrom(missing, now), inbox.isGone(l.run.position));
    }

    /** For a long-wait warning: when this replica last heard from each replica of the {@code partitions}. */
    private String lastHeardFrom(List<Integer> partitions, long now) {
        StringBuilder heard = new StringBuilder();
        for (int q : partitions) {
            for (int node : replicasByPartition.get(q)) {
                heard.append(heard.length() == 0 ? "" : ", ").append("node ").append(node).append(' ')
                        .append(TimeUnit.NANOSECONDS.toMillis(now - lastHeardFrom(node))).append(" ms ago");
            }
        }
        return heard.toString();
    }

    /** Whether every round {@code d} waits for is in; {@code ask}: asks for each missing one. */
    private boolean isReady(Deferred d, boolean ask) {
        Later l = d.later;
        boolean ready = true;
        for (int q : l.senders) {
            if (inbox.peek(l.run.position, q, l.round) == null) {
                ready = false;
                if (ask) {
                    l.run.ask(q, l.round);
                }
            }
        }
        if (d.signalsPending) {
            for (int q : l.run.others) {
                if (l.run.received.get(q) == null && inbox.peek(l.run.position, q, 0) == null) {
                    ready = false;
                    if (ask) {
                        l.run.ask(q, 0);
                    }
                }
            }
        }
        return ready;
    }

    /**
     * Runs every deferred continuation, oldest first, waiting for their rounds (and asking for late
     * ones). The command executing now, if any, keeps its context: each continuation restores it.
     */
    private void settleDeferred() throws InterruptedException {
        if (deferred.isEmpty() || continuing) {
            return;
        }
        long start = System.nanoTime();
        try {
            while (!deferred.isEmpty()) {
                continueOldest();
            }
        } finally {
            stats.settleWaitNanos.addAndGet(System.nanoTime() - start);
        }
    }

    /** Waits for the oldest continuation's round, runs it, and replies once the command's result is known. */
    private void continueOldest() throws InterruptedException {
        Deferred d = deferred.peekFirst();
        Later l = d.later;
        Map<Integer, Object> values = new java.util.TreeMap<>(l.known);
        for (int q : l.senders) {
            Wire.Exchange e = l.run.awaitExchange(q, l.round);
            values.put(q, KryoCodec.decode(e.object(VALUE_ID).value()));
        }
        boolean ok;
        byte[] body = null;
        CurrentExecution.Access outer = CurrentExecution.get();
        CurrentExecution.set(l.run);
        continuing = true;
        try {
            Object result = l.then.apply(values);
            ok = true;
            if (result instanceof Later next) {
                if (next.run != l.run) {
                    throw new IllegalStateException("a continuation returned another command's later()");
                }
                d.later = next;
                return; // still the oldest: runs when its next round is in
            }
            body = KryoCodec.encode(result);
        } catch (RemoteWaitInterrupted e) {
            throw e.cause;
        } catch (ExchangeGone e) {
            throw e;
        } catch (RuntimeException e) {
            ok = false;
            body = String.valueOf(e).getBytes(StandardCharsets.UTF_8);
            long at = l.run.position;
            recent.computeIfPresent(at, (k, v) -> v.failed("continuation failed: " + e));
            log.warn("node={} partition={} continuation of multi-partition command {} at position={} failed: {}", nodeId,
                    partition, d.request.name(), Position.toString(at), e.toString(), e);
        } finally {
            continuing = false;
            CurrentExecution.set(outer);
        }
        if (d.signalsPending) {
            // Algorithm 1: the reply leaves only once every destination delivered the command
            for (int q : l.run.others) {
                l.run.exchangeFrom(q);
            }
        }
        deferred.removeFirst();
        deferredPositions.remove(l.run.position);
        inbox.release(l.run.position);
        if (!l.run.answers()) {
            replies.record(d.request.clientId(), ReplyTable.destinations(d.groups), d.request.seq(), ANSWERED_ELSEWHERE);
            stats.repliesLeftToOthers.incrementAndGet();
            return; // neither the first copy nor a copy sent again meanwhile: the answering partitions do
        }
        byte[] reply = Wire.encode(new Wire.Reply(d.request.clientId(), d.request.seq(), ok, body));
        replies.record(d.request.clientId(), ReplyTable.destinations(d.groups), d.request.seq(), reply);
        answerFirstCopy(d.groups, d.request, reply, l.run.answering);
        for (int node : d.resentTo) {
            send(node, reply);
        }
    }

    /**
     * A first copy that names a replier is answered by that replica alone when it is a replica of one of
     * the command's destinations: the others execute it like it and send nothing (three replies per
     * command cost the client's node as much as the command, and two of them were only received,
     * decoded and dropped). The client names its own node's replica while that one is caught up
     * ({@link #caughtUp}), else a replica of a destination partition; a copy sent again (RESEND) is
     * answered by every replica. Without a replier every replica answers, the first reply winning.
     */
    private void answerFirstCopy(int[] groups, Wire.Request request, byte[] reply) {
        answerFirstCopy(groups, request, reply, null);
    }

    /** {@code answering}: the destinations that answer (null: all); a replier named outside them is ignored. */
    private void answerFirstCopy(int[] groups, Wire.Request request, byte[] reply, int[] answering) {
        int replier = request.replier();
        if (replier != Wire.Request.EVERY_REPLICA && replier != nodeId) {
            Integer replierPartition = partitionOfNode.get(replier);
            if (replierPartition != null && (answering == null || contains(answering, replierPartition))) {
                for (int g : groups) {
                    if (g == replierPartition) {
                        stats.repliesLeftToReplier.incrementAndGet();
                        return;
                    }
                }
            }
        }
        send(request.clientNode(), reply);
    }

    private void send(int node, byte[] reply) {
        stats.repliesSent.incrementAndGet();
        endpoint.sendDirect(node, reply);
    }

    /** Builds this partition's exchange for each other destination, keeps it for asks, and sends it if designated. */
    private void shipExchanges(CommandRun run) {
        List<Object> mine = run.objectsOwnedBy(partition);
        Map<Integer, byte[]> encoded = new LinkedHashMap<>();
        for (int q : run.others) {
            List<Wire.ShippedObject> objects = new ArrayList<>(mine.size());
            CopyTable mirror = options.cachingEnabled()
                    ? shipMirrors.computeIfAbsent(q, k -> new CopyTable(options.cacheCapacity())) : null;
            for (Object id : mine) {
                PRObject o = app.object(id);
                if (o == null) {
                    objects.add(new Wire.ShippedObject(id, Wire.ShipKind.ABSENT, 0, null));
                    continue;
                }
                byte[] value = KryoCodec.encode(o.getDiff(Partition.get(q)));
                long hash = mirror == null ? 0 : hash(value);
                CopyTable.Copy held = mirror == null ? null : mirror.get(id);
                if (held != null && held.hash == hash) {
                    objects.add(new Wire.ShippedObject(id, Wire.ShipKind.UNCHANGED, hash, null));
                } else {
                    objects.add(new Wire.ShippedObject(id, Wire.ShipKind.VALUE, hash, value));
                }
                if (mirror != null) {
                    mirror.touch(id, hash, null);
                }
            }
            encoded.put(q, Wire.encode(new Wire.Exchange(run.position, 0, partition, q, objects)));
            if (sends() && (signalsEnabled || !objects.isEmpty())) {
                for (Wire.ShippedObject o : objects) {
                    (o.kind() == Wire.ShipKind.VALUE ? stats.valuesShipped : stats.valuesValidated).incrementAndGet();
                }
            }
        }
        sent.put(run.position, 0, encoded);
        if (!sends()) {
            return;
        }
        for (Map.Entry<Integer, byte[]> e : encoded.entrySet()) {
            if (!signalsEnabled && mine.isEmpty()) {
                continue;
            }
            for (int node : replicasByPartition.get(e.getKey())) {
                stats.exchangesSent.incrementAndGet();
                endpoint.sendDirect(node, e.getValue());
            }
        }
    }

    /**
     * Captures the state exactly as of the last executed command and hands it to the writer. The
     * image must not share mutable structure with the live state, since execution goes on while it
     * is written. A plain application state is encoded here, on the executor, with the rest (today's
     * behaviour). A {@link StateImage} is serialized by the writer thread; the reply table and the
     * caches are then copied here: they are bounded per client and per cached object (not by the
     * application's state), so a shallow copy of their maps is cheap, and it leaves the writer with
     * maps nobody changes (the reply bytes and cached values inside are never mutated).
     */
    private void checkpoint(byte[] learnerCheckpoint) {
        writer.submit(lastPosition, captureImage(learnerCheckpoint, app.snapshotState()), learnerCheckpoint);
    }

    /**
     * The encoded image of the state as of the last executed command, for a peer's state transfer
     * ({@code learnerCheckpoint} null: the receiver's learner keeps its own place). Encoded at once,
     * on the executor.
     */
    private byte[] encodeImage(byte[] learnerCheckpoint) {
        try {
            return captureImage(learnerCheckpoint, app.snapshotStateNow()).encode();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot encode the replica's image", e);
        }
    }

    /**
     * Captures the image as of the last executed command; what it returns encodes it, later and on
     * any thread (what a checkpoint stores, and what a peer receives in a state transfer).
     */
    private CheckpointWriter.Encoder captureImage(byte[] learnerCheckpoint, Object state) {
        CheckpointImage ci = new CheckpointImage();
        ci.position = lastPosition;
        ci.learnerCheckpoint = learnerCheckpoint;
        // bounded by sentPositionsMax, not by the application's state; the byte arrays are shared
        ci.sentExchanges = sent.copy();
        if (state instanceof StateImage image) {
            ci.replies = replies.copy();
            ci.readerCaches = copyOf(readerCaches);
            ci.shipMirrors = copyOf(shipMirrors);
            return () -> {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                image.writeTo(bytes);
                ci.applicationState = new CheckpointImage.Written(bytes.toByteArray());
                return KryoCodec.encode(ci);
            };
        }
        ci.applicationState = state;
        ci.replies = replies;
        ci.readerCaches = readerCaches;
        ci.shipMirrors = shipMirrors;
        byte[] encoded = KryoCodec.encode(ci);
        return () -> encoded;
    }

    private static HashMap<Integer, CopyTable> copyOf(HashMap<Integer, CopyTable> tables) {
        HashMap<Integer, CopyTable> out = new HashMap<>();
        tables.forEach((partition, table) -> out.put(partition, table.copy()));
        return out;
    }

    private static long hash(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = (h << 8) | (d[i] & 0xff);
            }
            return h;
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is part of every Java platform", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        if (writer != null) {
            writer.close();
        }
        inbox.close();
        imageFetch.close();
        executor.interrupt();
        queue.offer(new Stop());
        try {
            executor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Carries an interruption out of user code, which may catch RuntimeExceptions but should not hide a shutdown. */
    private static final class RemoteWaitInterrupted extends RuntimeException {
        final InterruptedException cause;

        RemoteWaitInterrupted(InterruptedException cause) {
            super(cause);
            this.cause = cause;
        }
    }

    /** An owner no longer keeps an exchange the executing command needs (see {@link CommandAbandonedException}). */
    private static final class ExchangeGone extends CommandAbandonedException {
        ExchangeGone(long position) {
            super("the exchange for position " + Position.toString(position) + " is no longer kept; this replica "
                    + "takes a peer's state instead");
        }
    }

    /** One command's execution at this replica: what it expects from whom, and what it has applied. */
    private final class CommandRun implements CurrentExecution.Access {
        final long position;
        /** Only for messages: its name is built when one needs it. */
        final Wire.Request request;
        final int[] others;
        final Set<Object> expectedIds;
        final Map<Integer, Wire.Exchange> received = new HashMap<>();
        final Set<Object> refreshed = new HashSet<>();
        /** Rounds of {@link #exchange} this command has run so far. */
        int valueRounds;
        /** An exchange it needs is gone: it can neither finish nor reply (see {@link ExchangeGone}). */
        boolean abandoned;
        /** A multi-partition command run without signals (PartitioningOracle.executesIndependently). */
        boolean independent;
        /** It has waited long for an exchange once ({@link ReplicaStats#longWaits} counts it once). */
        boolean longWaitCounted;
        /** The destinations whose replicas answer the client; null: every one (see {@link #replyOnlyFrom}). */
        int[] answering;

        CommandRun(long position, Wire.Request request, Command command, int[] others) {
            this.position = position;
            this.request = request;
            this.others = others;
            command.rewind();
            this.expectedIds = others.length == 0 ? Set.of() : new HashSet<>(oracle.getLocalObjects(command));
            command.rewind();
        }

        /** The ids of {@code owner}'s objects this command ships, in a deterministic order. */
        List<Object> objectsOwnedBy(int owner) {
            List<Object> ids = new ArrayList<>();
            for (Object id : expectedIds) {
                if (oracle.getPartition(id).getId() == owner) {
                    ids.add(id);
                }
            }
            ids.sort(Comparator.comparing(String::valueOf));
            return ids;
        }

        Wire.Exchange exchangeFrom(int q) throws InterruptedException {
            Wire.Exchange e = received.get(q);
            if (e != null) {
                return e;
            }
            e = awaitExchange(q, 0);
            received.put(q, e);
            return e;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public Map<Integer, Object> exchange(Object value) {
            int round = ++valueRounds;
            shipValue(round, KryoCodec.encode(value));
            Map<Integer, Object> theirs = new java.util.TreeMap<>();
            for (int q : others) {
                try {
                    Wire.Exchange e = awaitExchange(q, round);
                    theirs.put(q, KryoCodec.decode(e.object(VALUE_ID).value()));
                } catch (InterruptedException ie) {
                    throw new RemoteWaitInterrupted(ie);
                }
            }
            return theirs;
        }

        @Override
        public Object receiveFrom(int sender, Object value) {
            int round = ++valueRounds;
            requireDestinations(new int[] {sender});
            if (sender == partition) {
                if (others.length == 0) {
                    return value;
                }
                byte[] mine = KryoCodec.encode(value);
                shipValue(round, mine);
                return KryoCodec.decode(mine); // the value as the others get it
            }
            try {
                return KryoCodec.decode(awaitExchange(sender, round).object(VALUE_ID).value());
            } catch (InterruptedException ie) {
                throw new RemoteWaitInterrupted(ie);
            }
        }

        @Override
        public Object exchangeLater(Integer sender, Object value) {
            if (sender != null) {
                return exchangeLaterFrom(new int[] {sender}, value); // a one-way round: one sender
            }
            int round = ++valueRounds;
            if (others.length > 0) {
                shipValue(round, KryoCodec.encode(value));
            }
            return new LaterRound(this, round, others.clone(), Map.of());
        }

        @Override
        public Object exchangeLaterFrom(int[] senders, Object value) {
            return exchangeLaterFromTo(senders, null, value);
        }

        @Override
        public Object exchangeLaterFromTo(int[] senders, int[] receivers, Object value) {
            int round = ++valueRounds;
            requireDestinations(senders);
            int[] to = others;
            boolean receives = true;
            if (receivers != null) {
                requireDestinations(receivers);
                to = onlyIn(others, receivers);
                receives = contains(receivers, partition);
            }
            boolean sends = contains(senders, partition);
            int[] awaited = receives ? without(senders, partition) : new int[0];
            Map<Integer, Object> known = new HashMap<>();
            if (sends) {
                byte[] mine = KryoCodec.encode(value);
                if (to.length > 0) {
                    shipValue(round, mine, to);
                }
                known.put(partition, KryoCodec.decode(mine)); // the value as the others get it
            }
            return new LaterRound(this, round, awaited, known);
        }

        @Override
        public void replyOnlyFrom(int[] partitions) {
            requireDestinations(partitions);
            answering = partitions.clone();
        }

        /** Whether this partition's replicas answer the command's client (see {@link #replyOnlyFrom}). */
        boolean answers() {
            return answering == null || contains(answering, partition);
        }

        private void requireDestinations(int[] partitions) {
            for (int q : partitions) {
                if (q != partition && !contains(others, q)) {
                    throw new IllegalArgumentException("partition " + q + " is not among the destinations "
                            + destinations() + " of the command at " + Position.toString(position));
                }
            }
        }

        @Override
        public Object later(Object round, java.util.function.Function<Map<Integer, Object>, Object> then) {
            if (!(round instanceof LaterRound r) || r.run() != this) {
                throw new IllegalArgumentException("later() takes a round this command started with exchangeLater");
            }
            if (r.senders().length == 0) {
                return then.apply(r.known()); // nothing to wait for (the sender of a one-way round, or no other destination)
            }
            return new Later(r, then);
        }

        @Override
        public void settle() {
            try {
                settleDeferred(); // each continuation restores this command's context when it ends
            } catch (InterruptedException ie) {
                throw new RemoteWaitInterrupted(ie);
            }
        }

        @Override
        public boolean unsettled() {
            return !deferred.isEmpty();
        }

        /** Round {@code round}'s value of this partition to each other destination: kept for asks, sent if this replica sends. */
        private void shipValue(int round, byte[] mine) {
            shipValue(round, mine, others);
        }

        /** {@link #shipValue(int, byte[])} to the destinations {@code to} only. */
        private void shipValue(int round, byte[] mine, int[] to) {
            Map<Integer, byte[]> encoded = new LinkedHashMap<>();
            for (int q : to) {
                encoded.put(q, Wire.encode(new Wire.Exchange(position, round, partition, q,
                        List.of(new Wire.ShippedObject(VALUE_ID, Wire.ShipKind.VALUE, 0, mine)))));
            }
            keepAndSend(position, round, encoded);
        }

        private Wire.Exchange awaitExchange(int q, int round) throws InterruptedException {
            long start = System.nanoTime();
            try {
                return awaitExchangeUntimed(q, round);
            } finally {
                long waited = System.nanoTime() - start;
                if (round == 0) {
                    stats.signalWaitNanos.addAndGet(waited);
                } else {
                    stats.valueWaitNanos.addAndGet(waited);
                }
            }
        }

        private Wire.Exchange awaitExchangeUntimed(int q, int round) throws InterruptedException {
            Wire.Exchange e;
            if (abandoned) {
                throw new ExchangeGone(position);
            }
            int asks = 0;
            if (inbox.wasDropped(position) && inbox.peek(position, q, round) == null) {
                ask(q, round); // it came and the full inbox dropped it (ADR 049): no use waiting a timeout
                asks++;
            }
            boolean goneHeardBefore = false;
            long since = System.nanoTime();
            long warnAfter = longWaitNanos();
            while ((e = inbox.await(position, q, round, System.nanoTime() + askInterval(asks))) == null) {
                if (closed) {
                    throw new InterruptedException("replica closed");
                }
                long waited = System.nanoTime() - since;
                if (waited >= warnAfter) {
                    countLongWait();
                    warnAfter *= 2;
                    warnLongWait(q, round, waited, asks);
                }
                if (inbox.isGone(position)) {
                    abandoned = true;
                    throw new ExchangeGone(position);
                }
                if (inbox.goneHeard(position)) {
                    // A replica of q no longer keeps it; a peer that still does has had a whole ask
                    // interval to answer. After a second one without an answer, no replica that can
                    // answer is there (fewer than a majority said so: the others are down or cut off).
                    if (goneHeardBefore) {
                        abandoned = true;
                        throw new ExchangeGone(position);
                    }
                    goneHeardBefore = true;
                }
                ask(q, round);
                asks++;
            }
            if (round == 0 && inbox.arrivedEarly(position)) {
                stats.earlyExchangesUsed.incrementAndGet();
            }
            return e;
        }

        /**
         * A wait that lasts far longer than lost messages explain (each ask is answered by any replica of
         * {@code q} that executed the command): what this replica knows of it, for the operator and for a
         * test log that stopped here.
         */
        private void warnLongWait(int q, int round, long waitedNanos, int asks) {
            String heard = lastHeardFrom(List.of(q), System.nanoTime());
            log.warn("node={} partition={} has waited {} s for round {} of partition {} of command {} at position={} "
                            + "(executing position={}, {} continuations deferred, the oldest at position={}); asked {} "
                            + "times; last exchange heard from {}; dropped for space: {}; inbox holds {} positions",
                    nodeId, partition, TimeUnit.NANOSECONDS.toSeconds(waitedNanos), round, q, request.name(),
                    Position.toString(position), Position.toString(executingPosition), deferred.size(),
                    deferred.isEmpty() ? "-" : Position.toString(deferred.peekFirst().later.run.position), asks, heard,
                    inbox.wasDropped(position), inbox.buffered());
        }

        /** Counts this command in {@link ReplicaStats#longWaits}, once however often and wherever it waits long. */
        void countLongWait() {
            if (!longWaitCounted) {
                longWaitCounted = true;
                stats.longWaits.incrementAndGet();
            }
        }

        /** Asks every replica of partition {@code q} for its round-{@code round} exchange of this command. */
        void ask(int q, int round) {
            long now = System.nanoTime();
            boolean silent = now - lastHeardFrom(replicasByPartition.get(q)[0]) > silentNanos();
            byte[] ask = Wire.encode(new Wire.Ask(position, round, partition, q, nodeId,
                    TimeUnit.NANOSECONDS.toMillis(now - startedNanos), silent));
            log.debug("node={} cmd={} position={} asks partition {} again", nodeId, request.name(),
                    Position.toString(position), q);
            for (int node : replicasByPartition.get(q)) {
                stats.asksSent.incrementAndGet();
                endpoint.sendDirect(node, ask);
            }
        }

        @Override
        public void beforeCall(PRObject target) {
            Object id = target.getId();
            int owner = oracle.getPartition(id).getId();
            if (owner == partition || refreshed.contains(id)) {
                return;
            }
            if (Arrays.stream(others).noneMatch(q -> q == owner)) {
                throw new IllegalStateException("command " + request.name() + " calls a method of object " + id
                        + " of partition " + owner + ", which is not among its destinations " + destinations()
                        + ": PartitioningOracle.getDestinations must include the owner of every object a command uses");
            }
            if (!expectedIds.contains(id)) {
                throw new IllegalStateException("command " + request.name() + " calls a method of remote object " + id
                        + " (partition " + owner + ") that PartitioningOracle.getLocalObjects does not list, so its "
                        + "owner does not ship it; list it, or mark the method @LocalMethodCall if it needs no "
                        + "up-to-date value");
            }
            Wire.Exchange e;
            try {
                e = exchangeFrom(owner);
            } catch (InterruptedException ie) {
                throw new RemoteWaitInterrupted(ie);
            }
            Wire.ShippedObject shipped = e.object(id);
            if (shipped == null || shipped.kind() == Wire.ShipKind.ABSENT) {
                throw new IllegalStateException("command " + request.name() + " calls a method of object " + id
                        + ", which its owner partition " + owner + " does not hold");
            }
            byte[] value = shipped.value();
            if (shipped.kind() == Wire.ShipKind.UNCHANGED) {
                CopyTable cache = readerCaches.get(owner);
                CopyTable.Copy copy = cache == null ? null : cache.get(id);
                if (copy == null || copy.hash != shipped.hash()) {
                    throw new IllegalStateException("node " + nodeId + ": partition " + owner + " says object " + id
                            + " is unchanged, but this replica's cache " + (copy == null ? "lacks it" : "holds another value")
                            + ": caches out of step (do all replicas use the same caching settings?)");
                }
                value = copy.value;
            }
            // marked first: updateFromDiff may call the object's own (intercepted) methods
            refreshed.add(id);
            target.updateFromDiff(KryoCodec.decode(value));
            stats.remoteReads.incrementAndGet();
        }

        /** Applies, in the owner's order, the same cache touches the owners applied to their mirrors. */
        void updateReaderCaches() throws InterruptedException {
            for (int q : others) {
                Wire.Exchange e = exchangeFrom(q);
                CopyTable cache = readerCaches.computeIfAbsent(q, k -> new CopyTable(options.cacheCapacity()));
                for (Wire.ShippedObject o : e.objects()) {
                    switch (o.kind()) {
                        case VALUE -> cache.touch(o.id(), o.hash(), o.value());
                        case UNCHANGED -> {
                            CopyTable.Copy copy = cache.get(o.id());
                            if (copy == null || copy.hash != o.hash()) {
                                throw new IllegalStateException("node " + nodeId + ": cache of partition " + q
                                        + " lacks object " + o.id() + " that its owner believes cached");
                            }
                            cache.touch(o.id(), copy.hash, copy.value);
                        }
                        case ABSENT -> {
                        }
                    }
                }
            }
        }

        private String destinations() {
            int[] all = Arrays.copyOf(others, others.length + 1);
            all[others.length] = partition;
            Arrays.sort(all);
            return Arrays.toString(all);
        }
    }
}
