package io.eyrie.core.internal;

import io.eyrie.core.Command;
import io.eyrie.core.PRObject;
import io.eyrie.core.Partition;
import io.eyrie.core.PartitioningOracle;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
import java.util.concurrent.TimeUnit;

/**
 * One S-SMR replica: Algorithm 1 of Bezerra, Pedone and van Renesse (DSN 2014). Deliveries are
 * queued (bounded) by the multicast's delivery thread and executed one at a time, in delivery order,
 * by this replica's executor thread:
 * <ol>
 *   <li>on delivering C, the partition's designated sender (its lowest node id) sends every other
 *   partition in dests(C) an exchange: a signal plus the values of its objects C reads;</li>
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

    public static boolean signalsEnabled() {
        return signalsEnabled;
    }

    private sealed interface Work permits Deliver, Stop {
    }

    private record Deliver(Delivery delivery, byte[] learnerCheckpoint) implements Work {
    }

    private record Stop() implements Work {
    }

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
    private final Map<Integer, int[]> replicasByPartition;
    /** The partition of each replica node of the cluster (nodes with one group). */
    private final Map<Integer, Integer> partitionOfNode = new HashMap<>();
    private final BlockingQueue<Work> queue;
    private final ExchangeInbox inbox;
    private final SentExchanges sent;
    private final SnapshotStore snapshots;
    private final CheckpointWriter writer;
    private final ReplicaStats stats = new ReplicaStats();
    private final Thread executor;

    // owned by the executor thread (and by the constructor before it starts)
    private ReplyTable replies = new ReplyTable();
    private HashMap<Integer, CopyTable> readerCaches = new HashMap<>();
    private HashMap<Integer, CopyTable> shipMirrors = new HashMap<>();
    private volatile long lastPosition = Position.NONE;
    private volatile long executingPosition = Position.NONE;
    private long deliveriesSinceCheckpoint;

    private volatile boolean closed;
    private volatile Throwable failure;

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
            replicasByPartition.put(g, config.nodes().values().stream()
                    .filter(n -> Arrays.binarySearch(n.groups(), g) >= 0)
                    .mapToInt(ClusterConfig.Node::id).sorted().toArray());
        }
        this.designated = replicasByPartition.get(partition)[0] == nodeId;
        for (ClusterConfig.Node n : config.nodes().values()) {
            if (n.groups().length == 1) {
                partitionOfNode.put(n.id(), n.groups()[0]);
            }
        }
        // Unbounded on purpose: the multicast node delivers from its event loop, which also casts this
        // node's votes. Blocking it while the executor waits for another partition's exchange can
        // deadlock (that partition may need this node's vote to deliver the very command).
        // deliveryQueueMax only triggers a warning.
        this.queue = new java.util.concurrent.LinkedBlockingQueue<>();
        this.inbox = new ExchangeInbox(options.inboxPositionsMax());
        this.sent = new SentExchanges(options.sentPositionsMax());
        this.snapshots = options.checkpointDir() == null ? null : new SnapshotStore(options.checkpointDir());
        this.writer = snapshots == null ? null : new CheckpointWriter(snapshots, endpoint, stats, nodeId);
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
                v = fetchFromPeer();
            }
            if (v != null) {
                restore(v);
                learnerCheckpoint = restoredLearnerCheckpoint;
            }
            writer.start(lastPosition, learnerCheckpoint);
        }
        endpoint.onDirect(this::onDirect);
        executor.start();
        endpoint.start(this::onDelivery, learnerCheckpoint);
    }

    private byte[] restoredLearnerCheckpoint;

    /**
     * A replica without a usable checkpoint (a new one, or one whose disk lost them) takes a peer's:
     * replaying from the start is impossible once the acceptors have trimmed. A peer's file is
     * checked like a local one and stored before it is used.
     */
    private SnapshotStore.Verified fetchFromPeer() {
        byte[] framed;
        try {
            framed = app.fetchPeerCheckpoint();
        } catch (RuntimeException e) {
            log.warn("node={} partition={} could not fetch a checkpoint from a peer: {}", nodeId, partition, e.toString());
            return null;
        }
        if (framed == null) {
            log.info("node={} partition={} has no checkpoint and no peer offered one: starting from the beginning",
                    nodeId, partition);
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
        log.warn("node={} partition={} had no usable checkpoint; restored one from a peer at position={}", nodeId,
                partition, Position.toString(v.position()));
        return v;
    }

    private void restore(SnapshotStore.Verified v) {
        CheckpointImage ci = (CheckpointImage) KryoCodec.decode(v.image());
        if (ci.position != v.position()) {
            throw new IllegalStateException("checkpoint file says position " + Position.toString(v.position())
                    + " but its image says " + Position.toString(ci.position));
        }
        app.restoreState(ci.applicationState);
        replies = ci.replies;
        readerCaches = ci.readerCaches;
        shipMirrors = ci.shipMirrors;
        lastPosition = ci.position;
        restoredLearnerCheckpoint = ci.learnerCheckpoint;
        log.info("node={} partition={} restored checkpoint position={}", nodeId, partition,
                Position.toString(ci.position));
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
    public long executingPosition() {
        return executingPosition;
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

    private void onDelivery(Delivery d) {
        if (closed) {
            return;
        }
        byte[] learnerCheckpoint = null;
        if (snapshots != null && ++deliveriesSinceCheckpoint >= options.checkpointInterval()) {
            deliveriesSinceCheckpoint = 0;
            // taken here, inside deliver, so it reflects exactly the deliveries queued so far; the
            // executor snapshots when it reaches this delivery, and the two then agree
            learnerCheckpoint = endpoint.learnerCheckpoint();
        }
        queue.add(new Deliver(d, learnerCheckpoint));
        int backlog = queue.size();
        if (backlog > options.deliveryQueueMax() && backlog > lastBacklogWarned * 2) {
            lastBacklogWarned = backlog;
            log.warn("node={} partition={} has {} deliveries waiting for execution (deliveryQueueMax={})",
                    nodeId, partition, backlog, options.deliveryQueueMax());
        } else if (backlog <= options.deliveryQueueMax()) {
            lastBacklogWarned = options.deliveryQueueMax();
        }
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
        if (type != Wire.EXCHANGE && type != Wire.ASK) {
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
            if (e.to() == partition) {
                inbox.offer(e);
            }
        } else if (m instanceof Wire.Ask a) {
            answer(a);
        } else {
            log.debug("node={} ignored {} from node {}", nodeId, m.getClass().getSimpleName(), from);
        }
    }

    private void answer(Wire.Ask a) {
        if (a.owner() != partition) {
            return;
        }
        byte[] encoded = sent.get(a.position(), a.asker(), a.round());
        if (!designated) {
            // Being asked means the designated sender's exchanges are not arriving: take over for a
            // while, so that the next commands do not each wait an exchange timeout.
            volunteerUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(VOLUNTEER_MILLIS);
            volunteered = true;
        }
        if (encoded != null) {
            stats.asksAnswered.incrementAndGet();
            stats.exchangesSent.incrementAndGet();
            endpoint.sendDirect(a.askerNode(), encoded);
        } else if (sent.highestPosition() > a.position()) {
            log.warn("node={} cannot answer ask for position={} from partition {}: that exchange is no longer "
                            + "kept (raise sentPositionsMax)", nodeId, Position.toString(a.position()), a.asker());
        }
        // otherwise this replica has not executed that command yet; the asker will ask again
    }

    // ---- executor thread ----

    private void runExecutor() {
        try {
            while (!closed) {
                Work w = queue.take();
                if (w instanceof Stop) {
                    return;
                }
                Deliver d = (Deliver) w;
                process(d.delivery());
                if (d.learnerCheckpoint() != null) {
                    checkpoint(d.learnerCheckpoint());
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

    private void process(Delivery d) throws InterruptedException {
        long position = d.position();
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
            request = Wire.decodeRequest(d.payload());
        } catch (RuntimeException e) {
            // every replica delivers the same bytes and skips them alike, so the replicas stay equal
            log.warn("node={} skips malformed request at position={}: {}", nodeId, Position.toString(position),
                    e.getMessage());
            request = null;
        }
        switch (request == null ? ReplyTable.Verdict.IGNORE : replies.classify(request)) {
            case IGNORE -> {
            }
            case RESEND -> {
                stats.duplicatesAnswered.incrementAndGet();
                send(request.clientNode(), replies.reply(request.clientId(), request.seq()));
            }
            case EXECUTE -> execute(position, d.groups(), request);
        }
        inbox.finish(position);
        sent.passed(position);
        lastPosition = position;
    }

    private void execute(long position, int[] groups, Wire.Request request) throws InterruptedException {
        int[] others = Arrays.stream(groups).filter(g -> g != partition).toArray();
        inbox.begin(position);
        Command command;
        CommandRun run;
        try {
            command = (Command) KryoCodec.decode(request.command());
            run = new CommandRun(position, request, command, others);
        } catch (RuntimeException e) {
            // an undecodable command or a failing oracle fails the same way at every destination:
            // nobody sends or awaits exchanges for it, and the client gets the error
            log.warn("node={} cmd={} cannot be executed: {}", nodeId, request.name(), e.toString());
            byte[] reply = Wire.encode(new Wire.Reply(request.clientId(), request.seq(), false,
                    ("cannot execute command: " + e).getBytes(StandardCharsets.UTF_8)));
            replies.record(request.clientId(), request.seq(), reply);
            answerFirstCopy(groups, request.clientNode(), reply);
            return;
        }
        if (others.length > 0) {
            shipExchanges(run);
        }
        boolean ok;
        byte[] body;
        CurrentExecution.set(run);
        try {
            command.rewind();
            Object result = app.execute(command);
            ok = true;
            body = KryoCodec.encode(result);
        } catch (RemoteWaitInterrupted e) {
            throw e.cause;
        } catch (RuntimeException e) {
            // a deterministic error of the command: every replica reaches it, so it is the reply
            ok = false;
            body = String.valueOf(e).getBytes(StandardCharsets.UTF_8);
            log.debug("node={} cmd={} failed: {}", nodeId, request.name(), e.toString());
        } finally {
            CurrentExecution.clear();
        }
        if (signalsEnabled) {
            for (int q : others) {
                run.exchangeFrom(q);
            }
        }
        if (options.cachingEnabled() && signalsEnabled) {
            run.updateReaderCaches();
        }
        stats.commandsExecuted.incrementAndGet();
        byte[] reply = Wire.encode(new Wire.Reply(request.clientId(), request.seq(), ok, body));
        replies.record(request.clientId(), request.seq(), reply);
        answerFirstCopy(groups, request.clientNode(), reply);
    }

    /**
     * The first copy of a command is answered by the replica on the client's own node when that node is
     * a replica of one of the command's destinations: it executes the command like every other, and its
     * reply needs no network, while the other replicas' copies would only be received, decoded and
     * dropped by the client (three replies per command cost the client's node as much as the command).
     * A client elsewhere (a pure client node, or a replica of another partition) hears from every
     * replica, the first reply winning. A retried command (RESEND) is answered by every replica, so a
     * client whose own replica cannot answer still gets a reply after its retry period.
     */
    private void answerFirstCopy(int[] groups, int clientNode, byte[] reply) {
        if (clientNode != nodeId) {
            Integer clientPartition = partitionOfNode.get(clientNode);
            if (clientPartition != null) {
                for (int g : groups) {
                    if (g == clientPartition) {
                        stats.repliesLeftToClientNode.incrementAndGet();
                        return;
                    }
                }
            }
        }
        send(clientNode, reply);
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
     * is written: it is encoded here, on the executor, into memory.
     */
    private void checkpoint(byte[] learnerCheckpoint) {
        CheckpointImage ci = new CheckpointImage();
        ci.position = lastPosition;
        ci.learnerCheckpoint = learnerCheckpoint;
        ci.applicationState = app.snapshotState();
        ci.replies = replies;
        ci.readerCaches = readerCaches;
        ci.shipMirrors = shipMirrors;
        writer.submit(lastPosition, KryoCodec.encode(ci), learnerCheckpoint);
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
            byte[] mine = KryoCodec.encode(value);
            Map<Integer, byte[]> encoded = new LinkedHashMap<>();
            for (int q : others) {
                encoded.put(q, Wire.encode(new Wire.Exchange(position, round, partition, q,
                        List.of(new Wire.ShippedObject(VALUE_ID, Wire.ShipKind.VALUE, 0, mine)))));
            }
            sent.put(position, round, encoded);
            if (sends()) {
                for (Map.Entry<Integer, byte[]> e : encoded.entrySet()) {
                    for (int node : replicasByPartition.get(e.getKey())) {
                        stats.exchangesSent.incrementAndGet();
                        endpoint.sendDirect(node, e.getValue());
                    }
                }
            }
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

        private Wire.Exchange awaitExchange(int q, int round) throws InterruptedException {
            Wire.Exchange e;
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(options.exchangeTimeoutMillis());
            while ((e = inbox.await(position, q, round, System.nanoTime() + timeoutNanos)) == null) {
                if (closed) {
                    throw new InterruptedException("replica closed");
                }
                byte[] ask = Wire.encode(new Wire.Ask(position, round, partition, q, nodeId));
                log.debug("node={} cmd={} position={} asks partition {} again", nodeId, request.name(),
                        Position.toString(position), q);
                for (int node : replicasByPartition.get(q)) {
                    stats.asksSent.incrementAndGet();
                    endpoint.sendDirect(node, ask);
                }
            }
            if (round == 0 && inbox.arrivedEarly(position)) {
                stats.earlyExchangesUsed.incrementAndGet();
            }
            return e;
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
