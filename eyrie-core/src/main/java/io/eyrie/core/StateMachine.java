package io.eyrie.core;

import io.eyrie.core.internal.Application;
import io.eyrie.core.internal.ReplicaOptions;
import io.eyrie.core.internal.ReplicaRuntime;
import io.eyrie.multicast.MulticastEndpoint;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A replica of one partition. Implement {@link #executeCommand} exactly as for classical state-machine
 * replication: deterministic, using the objects of {@link #getObject}; Eyrie makes the partitions
 * agree (Algorithm 1 of the S-SMR paper). The replica's partition is the one group its node has in
 * the cluster file.
 *
 * <p>Keep the replicated state in PRObjects held here ({@link #registerObject}, or created on demand by
 * {@link #createObject}): the default checkpoint hooks snapshot exactly these. A state machine with
 * other state overrides {@link #snapshotState} and {@link #restoreState}.
 */
public abstract class StateMachine implements AutoCloseable {

    private final MulticastEndpoint endpoint;
    private final PartitioningOracle oracle;
    private HashMap<Object, PRObject> objects = new HashMap<>();
    private boolean cachingEnabled;
    private int cacheCapacity = ReplicaOptions.defaults().cacheCapacity();
    private long exchangeTimeoutMillis = ReplicaOptions.defaults().exchangeTimeoutMillis();
    private Path checkpointDirectory;
    private int checkpointInterval = ReplicaOptions.defaults().checkpointInterval();
    private long checkpointMaxMillis = ReplicaOptions.defaults().checkpointMaxMillis();
    private int sentPositionsMax = ReplicaOptions.defaults().sentPositionsMax();
    private long replyIdleDeliveries = io.eyrie.core.internal.ReplyTable.DEFAULT_IDLE_DELIVERIES;
    private int inboxPositionsMax = ReplicaOptions.defaults().inboxPositionsMax();
    private volatile ReplicaRuntime runtime;
    private PeerCheckpoints peerCheckpoints;

    /**
     * @param endpoint this node's multicast endpoint (its node must belong to exactly one group)
     * @param oracle   the same oracle the clients use
     */
    protected StateMachine(MulticastEndpoint endpoint, PartitioningOracle oracle) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.oracle = Objects.requireNonNull(oracle, "oracle");
        Partition.install(endpoint.config());
        oracle.serve(endpoint.config());
    }

    /**
     * With checkpoints on a {@link io.eyrie.multicast.MulticastNode}: answers the partition's peers' requests for
     * this replica's newest checkpoint on the node's ring port, and, unless {@link #setPeerCheckpoints} gave
     * another source, asks them for theirs when this replica has none (ADR 104). The source, or null.
     */
    private PeerCheckpoints servePeerCheckpoints() {
        if (!(endpoint instanceof io.eyrie.multicast.MulticastNode node)) {
            return peerCheckpoints;
        }
        if (!node.serveSideRequests((from, kind) ->
                kind == SideChannelCheckpoints.SNAPSHOT_KIND ? newestCheckpointFile() : null)) {
            org.slf4j.LoggerFactory.getLogger(StateMachine.class).warn(
                    "node {}: its transport has no side channel; peers cannot fetch its checkpoints", node.nodeId());
        }
        if (peerCheckpoints != null) {
            return peerCheckpoints;
        }
        java.util.List<Integer> peers = java.util.Arrays.stream(node.config().nodesInGroup(getLocalPartition().getId()))
                .filter(id -> id != node.nodeId()).boxed().toList();
        return peers.isEmpty() ? null : new SideChannelCheckpoints(node::config, node.nodeId(), peers, 10_000);
    }

    /** Executes one command and returns its result (sent to the client; Kryo must serialize it). */
    public abstract Object executeCommand(Command c);

    /** Starts the replica: restores the newest checkpoint, if any, then delivers and executes commands. Returns at once. */
    public final synchronized void runStateMachine() {
        if (runtime != null) {
            throw new IllegalStateException("runStateMachine() was already called");
        }
        ReplicaOptions options = ReplicaOptions.defaults()
                .withCaching(cachingEnabled)
                .withCacheCapacity(cacheCapacity)
                .withExchangeTimeoutMillis(exchangeTimeoutMillis)
                .withCheckpoints(checkpointDirectory, checkpointInterval, checkpointMaxMillis)
                .withSentPositionsMax(sentPositionsMax)
                .withInboxPositionsMax(inboxPositionsMax);
        PeerCheckpoints peerSource = checkpointDirectory == null ? null : servePeerCheckpoints();
        runtime = new ReplicaRuntime(endpoint, oracle, new Application() {
            @Override
            public Object execute(Command c) {
                return executeCommand(c);
            }

            @Override
            public PRObject object(Object id) {
                return getObject(id);
            }

            @Override
            public Object snapshotState() {
                return StateMachine.this.snapshotState();
            }

            @Override
            public Object snapshotStateNow() {
                return StateMachine.this.snapshotStateNow();
            }

            @Override
            public void restoreState(Object state) {
                StateMachine.this.restoreState(state);
            }

            @Override
            public byte[] fetchPeerCheckpoint() {
                return peerSource == null ? null : peerSource.fetchNewest();
            }
        }, options);
        runtime.replyIdleDeliveries(replyIdleDeliveries);
        runtime.start();
    }

    /**
     * The global position of the command being executed (see {@code io.eyrie.multicast.Position}):
     * the same at every replica of every destination partition, increasing in each replica's
     * execution order. Volery uses it as the zxid. Only valid inside {@link #executeCommand}.
     */
    protected final long getCurrentPosition() {
        return requireExecution().position();
    }

    /**
     * Remote variables computed during execution: sends {@code value} to the other destination
     * partitions of the command being executed and returns theirs, by partition, once every one
     * of them has sent its own (waiting like a remote object read). Every replica of a partition must
     * pass the same value (the command is deterministic), and every destination partition must call
     * this the same number of times for a command. It also counts as a signal. A command whose only
     * destination is this partition gets an empty map.
     *
     * <p>Use it when what a partition contributes is known only after it has run part of the
     * command: a verdict on the operations it owns, a partial result to combine.
     */
    protected final Map<Partition, Object> exchange(Object value) {
        Map<Integer, Object> byId = requireExecution().exchange(value);
        Map<Partition, Object> out = new java.util.LinkedHashMap<>();
        byId.forEach((id, v) -> out.put(Partition.get(id), v));
        return out;
    }

    /**
     * A one-way round of {@link #exchange}: the destination partition {@code sender} sends
     * {@code value} to the command's other destinations and goes on at once; each of the others
     * waits for it (like a remote object read) and gets it. {@code value} is ignored at every partition
     * but {@code sender}. Every destination must make this call at the same point (it counts as one
     * round of exchange), and {@code sender} must be a destination. At a single-partition command it
     * returns {@code value}.
     *
     * <p>Use it when only one partition knows the answer, e.g. the owner's verdict on an operation
     * the others follow: the owner does not wait for the followers, which {@link #exchange} would make
     * it do (ADR 034).
     */
    protected final Object receiveFrom(Partition sender, Object value) {
        return requireExecution().receiveFrom(sender.getId(), value);
    }

    /**
     * A round of value exchange whose values the command does not wait for (ADR 036): {@link #exchangeLater}
     * and {@link #receiveLater} send this partition's value at once and return one, and {@link #later}
     * hands it to the code that needs the values.
     */
    public static final class Round {
        private final Object handle;

        private Round(Object handle) {
            this.handle = handle;
        }
    }

    /**
     * {@link #exchange} without the wait: sends {@code value} to the command's other destination
     * partitions now; their values go to the continuation given to {@link #later}. Counts as a round
     * like {@code exchange}, so every destination must call it at the same point.
     */
    protected final Round exchangeLater(Object value) {
        return new Round(requireExecution().exchangeLater(null, value));
    }

    /**
     * {@link #receiveFrom} without the wait: {@code sender} sends {@code value} now (ignored elsewhere);
     * the continuation given to {@link #later} gets it, keyed by {@code sender}, at every destination.
     */
    protected final Round receiveLater(Partition sender, Object value) {
        return new Round(requireExecution().exchangeLater(sender.getId(), value));
    }

    /**
     * {@link #receiveLater} from several senders: each destination in {@code senders} sends
     * {@code value} now to the command's other destinations (the value is ignored at the others), and
     * the continuation given to {@link #later} gets the senders' values, keyed by partition, at every
     * destination (a sender's own included). A destination waits only for the senders, so the others
     * send nothing: use it when what some partitions hold is all the others need (ADR 053). Every
     * destination must call it at the same point with the same senders, all of them destinations.
     */
    protected final Round receiveLater(java.util.Collection<Partition> senders, Object value) {
        return new Round(requireExecution().exchangeLaterFrom(
                ids(senders), value));
    }

    /**
     * {@link #receiveLater(java.util.Collection, Object)} whose values go only to {@code receivers}: each
     * sender sends {@code value} to the receivers (not to every destination), each receiver waits for the
     * senders, and a destination that is neither neither sends nor waits: its continuation gets its own
     * value if it is a sender, else nothing. Use it with {@link #replyOnlyFrom} when only some
     * destinations need the senders' values to answer (ADR 054). Every destination must call it at the
     * same point with the same senders and receivers, all of them destinations.
     */
    protected final Round receiveLater(java.util.Collection<Partition> senders, java.util.Collection<Partition> receivers,
                                       Object value) {
        return new Round(requireExecution().exchangeLaterFromTo(
                ids(senders),
                ids(receivers), value));
    }

    /**
     * Only the replicas of {@code partitions}, destinations of the current command, answer its client:
     * the other destinations execute it and send no reply, not even to a copy the client sends again
     * (ADR 054). A replier the client named in another partition is then ignored: every replica of
     * these partitions answers, the first reply winning. Call it from {@link #executeCommand} or a
     * continuation of the command, at every destination alike, before the result is returned.
     */
    protected final void replyOnlyFrom(java.util.Collection<Partition> partitions) {
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("replyOnlyFrom needs at least one partition");
        }
        requireExecution().replyOnlyFrom(ids(partitions));
    }

    /** The partitions' ids, ascending, each once (a loop, not a stream: this runs per multi-partition command). */
    private static int[] ids(java.util.Collection<Partition> partitions) {
        int[] ids = new int[partitions.size()];
        int n = 0;
        for (Partition p : partitions) {
            ids[n++] = p.getId();
        }
        java.util.Arrays.sort(ids);
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            if (distinct == 0 || ids[distinct - 1] != ids[i]) {
                ids[distinct++] = ids[i];
            }
        }
        return distinct == n ? ids : java.util.Arrays.copyOf(ids, distinct);
    }

    /**
     * Ends {@link #executeCommand} before its result is known: return what this returns. Once
     * {@code round}'s values are in, the replica runs {@code then} on its executor (between later
     * commands, oldest deferred command first, with {@link #getCurrentPosition} that of the deferred
     * command) and replies with what it returns, which may be another {@code later} of the same command.
     * Meanwhile the replica executes the following commands: they must neither read nor change what
     * {@code then} will change, or call {@link #settle} first. The reply also waits there for the
     * other destinations' signals (Algorithm 1), which the executor then does not wait for (unless
     * caching is on), so the following commands must not read what this command changed before
     * returning {@code later} either: a reply revealing it could precede another partition's delivery. Every replica of the partition runs the
     * continuations in the same order, but at different points among later commands, so what they
     * change must commute with the commands that run before them. Checkpoints and state images wait
     * until every continuation ran. {@code then} may call {@link #exchange}, {@link #receiveFrom} and
     * the {@code Later} forms for further rounds of the same command; {@link #settle} does nothing in it.
     * <p>Liveness: a continuation that sends a further round runs only between commands, never while a
     * command waits. So a following command that waits for another partition ({@link #exchange},
     * {@link #receiveFrom}, a remote object) must call {@link #settle} first whenever a pending continuation
     * may send a round that partition awaits: otherwise that partition can wait for the round (at its own
     * {@code settle}) while this one waits for it, for good (ADR 091).
     */
    protected final Object later(Round round, java.util.function.Function<Map<Partition, Object>, Object> then) {
        return requireExecution().later(round.handle, byId -> {
            Map<Partition, Object> out = new java.util.LinkedHashMap<>();
            byId.forEach((id, v) -> out.put(Partition.get(id), v));
            return then.apply(out);
        });
    }

    /**
     * Runs every continuation of earlier commands that has not run yet ({@link #later}), oldest first,
     * waiting for their rounds. Call it before reading or changing state they change.
     */
    protected final void settle() {
        requireExecution().settle();
    }

    /** Whether some earlier command's continuation ({@link #later}) has not run yet at this replica. */
    protected final boolean unsettled() {
        return requireExecution().unsettled();
    }

    private static io.eyrie.core.internal.CurrentExecution.Access requireExecution() {
        io.eyrie.core.internal.CurrentExecution.Access a = io.eyrie.core.internal.CurrentExecution.get();
        if (a == null) {
            throw new IllegalStateException("only valid while executeCommand runs");
        }
        return a;
    }

    /**
     * Whether this replica keeps up with its partition: it runs, fetches no state image, and no
     * delivery waits (or runs) for longer than {@code maxLagMillis}. False before
     * {@link #runStateMachine()}. Cheap; for {@link EyrieClient#answerLocallyWhile}.
     */
    public boolean isCaughtUp(long maxLagMillis) {
        ReplicaRuntime r = runtime;
        return r != null && r.caughtUp(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(maxLagMillis));
    }

    /**
     * The partition whose replica node {@code node} is, or -1 (a client-only node, or none of the
     * cluster's), as this replica's runtime knows it; -1 before {@link #runStateMachine}.
     */
    protected final int partitionOfNode(int node) {
        ReplicaRuntime r = runtime;
        return r == null ? -1 : r.partitionOfNode(node);
    }

    /** This replica's partition. */
    public Partition getLocalPartition() {
        int[] groups = endpoint.config().node(endpoint.nodeId()).groups();
        if (groups.length != 1) {
            throw new IllegalStateException("node." + endpoint.nodeId() + ".groups must name exactly one partition");
        }
        return Partition.get(groups[0]);
    }

    public PartitioningOracle getOracle() {
        return oracle;
    }

    /** Adds an object to the state held by this replica (local ones, and copies of remote ones). */
    public void registerObject(PRObject o) {
        PRObject previous = objects.putIfAbsent(o.getId(), o);
        if (previous != null && previous != o) {
            throw new IllegalArgumentException("an object with id " + o.getId() + " is already registered");
        }
    }

    /**
     * The object with this id, created by {@link #createObject} on first use; null if there is none.
     * Only a command creates objects: once the replica runs, a call from another thread that would
     * create one throws {@link IllegalStateException} (the executor may be creating the same object at
     * that moment, and one of the two would be lost). To look at the state from outside a command, read
     * {@link #getObjects}, which never creates.
     */
    public PRObject getObject(Object id) {
        PRObject o = objects.get(id);
        if (o == null) {
            ReplicaRuntime rt = runtime;
            if (rt != null && !rt.onExecutorOrStopped()) {
                throw new IllegalStateException("getObject(" + id + ") would create an object on thread "
                        + Thread.currentThread().getName() + ", outside a command; only commands create objects "
                        + "(read the state with getObjects(), which never creates)");
            }
            o = createObject(id);
            if (o != null) {
                if (!o.getId().equals(id)) {
                    throw new IllegalStateException("createObject(" + id + ") returned an object with id " + o.getId());
                }
                objects.put(id, o);
            }
        }
        return o;
    }

    /** Removes an object (for example a deleted key); returns it, or null. */
    public PRObject removeObject(Object id) {
        return objects.remove(id);
    }

    /**
     * The objects this replica holds, by id (read-only view; never creates one). Commands change it
     * without a lock: from another thread, read it while the replica is quiescent.
     */
    public Map<Object, PRObject> getObjects() {
        return java.util.Collections.unmodifiableMap(objects);
    }

    /**
     * Creates the object with {@code id} when a command (or the owner, to ship it) asks for one that
     * does not exist yet; must be deterministic. Default: none (null).
     */
    protected PRObject createObject(Object id) {
        return null;
    }

    /**
     * The state a checkpoint stores, captured on the executor thread between two commands (after the
     * command at the checkpoint's position, before the next). Default: the objects of
     * {@link #getObjects}.
     *
     * <p>Two kinds of return value:
     * <ul>
     *   <li>any other object is serialized with Kryo right here, on the executor, so the replica
     *   executes nothing while Kryo walks it (simple; fine for small states);</li>
     *   <li>a {@link StateImage} is only kept here; the checkpoint writer thread calls its
     *   {@link StateImage#writeTo} later while commands go on executing. The capture must then be
     *   exact and must not share anything mutable with the live state (see {@link StateImage}).</li>
     * </ul>
     */
    protected Object snapshotState() {
        return objects;
    }

    /**
     * The state for a peer's state transfer, encoded at once on the executor. Override it when
     * {@link #snapshotState} returns incremental {@link StateImage}s that must be written in capture
     * order: return what {@link #restoreState} accepts, taken from the live state, without taking an
     * image out of that order. Default: {@link #snapshotState}.
     */
    protected Object snapshotStateNow() {
        return snapshotState();
    }

    /**
     * Replaces the state with one from {@link #snapshotState}, on restart: the object itself (as Kryo
     * read it back), or, when {@link #snapshotState} returned a {@link StateImage}, a {@code byte[]}
     * holding what its {@link StateImage#writeTo} wrote.
     */
    @SuppressWarnings("unchecked")
    protected void restoreState(Object state) {
        objects = (HashMap<Object, PRObject>) state;
    }

    /** Keep copies of remote objects and ask owners only to validate them; all replicas must agree. Before run. */
    public void setCachingEnabled(boolean enabled) {
        requireNotRunning();
        this.cachingEnabled = enabled;
    }

    /** Cached copies per owner partition; all replicas must agree. Before run. */
    public void setCacheCapacity(int objects) {
        requireNotRunning();
        this.cacheCapacity = objects;
    }

    /** How long to wait for another partition's signal before asking its other replicas. Before run. */
    public void setExchangeTimeoutMillis(long millis) {
        requireNotRunning();
        this.exchangeTimeoutMillis = millis;
    }

    /** Write a checkpoint every {@code interval} deliveries into {@code directory}. Before run. */
    public void setCheckpointing(Path directory, int interval) {
        setCheckpointing(directory, interval, java.time.Duration.ZERO);
    }

    /**
     * Write a checkpoint every {@code interval} deliveries into {@code directory}, and also at the first
     * delivery {@code maxAge} after the last checkpoint (zero: by count only). A replica restarts from its
     * newest checkpoint and replays what follows, and other partitions keep the exchanges it may ask for
     * until it reports a checkpoint past them: with a count far above what a cluster delivers in minutes,
     * the age bounds both. Before run.
     */
    public void setCheckpointing(Path directory, int interval, java.time.Duration maxAge) {
        requireNotRunning();
        if (maxAge.isNegative()) {
            throw new IllegalArgumentException("maxAge must not be negative, got " + maxAge);
        }
        this.checkpointDirectory = directory;
        this.checkpointInterval = interval;
        this.checkpointMaxMillis = maxAge.toMillis();
    }

    /** Whether {@link #setCheckpointing} was called: checkpoints will be taken once the replica runs. */
    protected final boolean isCheckpointing() {
        return checkpointDirectory != null;
    }

    /**
     * How many recent commands' exchanges this replica keeps for other partitions that replay them
     * (default 4096). Beyond that it keeps those that no replica of their partition has reported
     * finishing, up to 16 times as many (ADR 049). A replica replaying further behind than that catches
     * up by taking the state of a peer of its own partition instead. Before run.
     */
    /**
     * A client that sends nothing to a destination set while that set delivers {@code deliveries} commands
     * (default 1,000,000) loses its entry and replies in the reply table there: a client that died without
     * closing (ADR 062). A late copy of one of its commands that ran is then refused with an error, never run
     * again; its next new command starts a new entry. 0 keeps idle clients for good. Every replica of a cluster
     * must use the same value. Before run.
     */
    public void setReplyIdleDeliveries(long deliveries) {
        requireNotRunning();
        if (deliveries < 0) {
            throw new IllegalArgumentException("reply idle deliveries must be 0 (off) or positive, got " + deliveries);
        }
        this.replyIdleDeliveries = deliveries;
    }

    /** Clients whose reply-table entry went for idleness at this replica (ADR 062); 0 before run. */
    public long clientsExpired() {
        return fromRuntime(rt -> rt.stats().clientsExpired.get());
    }

    /** Late copies of idle-expired clients' commands this replica refused instead of running again (ADR 062). */
    public long expiredRefused() {
        return fromRuntime(rt -> rt.stats().expiredRefused.get());
    }

    public void setSentPositionsMax(int positions) {
        requireNotRunning();
        if (positions < 1) {
            throw new IllegalArgumentException("sentPositionsMax must be at least 1, got " + positions);
        }
        this.sentPositionsMax = positions;
    }

    /**
     * How many commands' exchanges from other partitions this replica buffers ahead of its executor
     * (default 4096); beyond that the furthest are dropped and asked for when their commands come.
     * Before run.
     */
    public void setInboxPositionsMax(int positions) {
        requireNotRunning();
        if (positions < 1) {
            throw new IllegalArgumentException("inboxPositionsMax must be at least 1, got " + positions);
        }
        this.inboxPositionsMax = positions;
    }

    /** Times this replica caught up by taking a peer's state because it could not replay (see {@link #setSentPositionsMax}). */
    public synchronized long stateTransfers() {
        return runtime == null ? 0 : runtime.stats().stateTransfers.get();
    }

    /**
     * Times this replica, behind what the acceptors keep (it started without a checkpoint while no peer
     * could give one), took a peer's checkpoint and moved its learner there while running.
     */
    public synchronized long learnerRepositions() {
        return runtime == null ? 0 : runtime.stats().learnerRepositions.get();
    }

    /**
     * Where to get a checkpoint when none on disk is usable (with checkpointing on); by default, on a
     * {@code MulticastNode}, the other replicas of the partition over their ring ports ({@link SideChannelCheckpoints}).
     * Before run.
     */
    public void setPeerCheckpoints(PeerCheckpoints source) {
        requireNotRunning();
        this.peerCheckpoints = source;
    }

    /** Deliveries queued for this replica's executor and not yet taken (0 before run). */
    public int deliveriesWaiting() {
        return (int) fromRuntime(rt -> rt.deliveriesWaiting());
    }

    /** Commands this replica executed (0 before run). */
    public long commandsExecuted() {
        return fromRuntime(rt -> rt.stats().commandsExecuted.get());
    }

    /**
     * Deliveries of a command this replica had already executed (a client's retry, or a copy sent
     * again for every replica to answer): answered from the reply table, not executed (0 before run).
     */
    public long duplicatesAnswered() {
        return fromRuntime(rt -> rt.stats().duplicatesAnswered.get());
    }

    /**
     * Clients, counted once per destination set they used, whose replies this replica's reply table
     * holds, as of its last delivery (0 before run). It stays bounded as clients come and go: a client
     * that closes retires itself, and a node's next client retires the one before it (ADR 058).
     */
    public long replyTableClients() {
        return fromRuntime(rt -> rt.stats().replyTableClients.get());
    }

    /** Clients this replica took out of its reply table (ADR 058); 0 before run. */
    public long clientsRetired() {
        return fromRuntime(rt -> rt.stats().clientsRetired.get());
    }

    /** Late copies of retired clients' commands this replica refused instead of executing (0 before run). */
    public long retiredRefused() {
        return fromRuntime(rt -> rt.stats().retiredRefused.get());
    }

    /** Signals and objects this replica sent to other partitions' replicas (0 before run). */
    public long exchangesSent() {
        return fromRuntime(rt -> rt.stats().exchangesSent.get());
    }

    /** Asks this replica sent for late exchanges, one per replica asked (0 before run). */
    public long asksSent() {
        return fromRuntime(rt -> rt.stats().asksSent.get());
    }

    /** Asks this replica answered with an exchange it kept (0 before run). */
    public long asksAnswered() {
        return fromRuntime(rt -> rt.stats().asksAnswered.get());
    }

    /**
     * Kept exchanges this replica sent again, after an answered ask, to a replica that was far behind
     * (included in {@link #exchangesSent}); 0 before run.
     */
    public long catchUpExchangesSent() {
        return fromRuntime(rt -> rt.stats().catchUpExchangesSent.get());
    }

    /**
     * Kept exchanges a catch-up left out because a recent one had carried them to the same asker
     * already (ADR 055); 0 before run.
     */
    public long catchUpExchangesSkipped() {
        return fromRuntime(rt -> rt.stats().catchUpsSkipped.get());
    }

    /**
     * Exchanges that reached this replica when it held a copy already, or after their command had
     * finished: answers to its asks beside the original, or the original after an answer (0 before run).
     */
    public long exchangesRedundant() {
        return fromRuntime(ReplicaRuntime::exchangesRedundant);
    }

    /** Times this replica took over sending its partition's exchanges from the designated one (0 before run). */
    public long volunteerings() {
        return fromRuntime(rt -> rt.stats().volunteerings.get());
    }

    /**
     * Milliseconds this replica spent sending its partition's exchanges in place of the designated
     * sender, over all its volunteerings (each lasts while silent asks keep coming, and 10 s after the
     * last one); 0 before run.
     */
    public long volunteeringMillis() {
        return fromRuntime(ReplicaRuntime::volunteeringMillis);
    }

    /**
     * Bare signals this replica sent when its partition delivered a multi-partition command (ADR 034;
     * included in {@link #exchangesSent}); 0 before run.
     */
    public long signalsSentAtDelivery() {
        return fromRuntime(rt -> rt.stats().signalsAtDelivery.get());
    }

    /** Multi-partition commands this replica ran without signals ({@link PartitioningOracle#executesIndependently}). */
    public long independentCommands() {
        return fromRuntime(rt -> rt.stats().independentCommands.get());
    }

    /**
     * Nanoseconds the executor waited for other partitions' signals (round 0: until they delivered the
     * command or shipped the objects it reads); 0 before run.
     */
    public long signalWaitNanos() {
        return fromRuntime(rt -> rt.stats().signalWaitNanos.get());
    }

    /** Nanoseconds the executor waited in value rounds ({@link #exchange}, {@link #receiveFrom}); 0 before run. */
    public long valueWaitNanos() {
        return fromRuntime(rt -> rt.stats().valueWaitNanos.get());
    }

    /** Replies this replica did not send because other destinations answer their commands (ADR 054); 0 before run. */
    public long repliesLeftToOthers() {
        return fromRuntime(rt -> rt.stats().repliesLeftToOthers.get());
    }

    /** Commands whose result waited for a deferred round ({@link #later}); 0 before run. */
    public long deferredCommands() {
        return fromRuntime(rt -> rt.stats().deferredCommands.get());
    }

    /**
     * Commands that waited for an exchange of another partition past 50 exchange timeouts (at least 5 s), each
     * counted once, whether the executor waited ({@link #settle}, a blocking round) or went on executing later
     * commands while the command's continuation ({@link #later}) was pending; each such wait is also logged with
     * what this replica knew of it, again at every doubling; 0 before run. Lost messages cost a few timeouts: a
     * count that grows means a partition held up for good.
     */
    public long longExchangeWaits() {
        return fromRuntime(rt -> rt.stats().longWaits.get());
    }

    /** Nanoseconds commands, checkpoints and images waited in {@link #settle} for deferred rounds; 0 before run. */
    public long settleWaitNanos() {
        return fromRuntime(rt -> rt.stats().settleWaitNanos.get());
    }

    /** A figure of the running replica, 0 before {@link #runStateMachine()}. */
    private long fromRuntime(java.util.function.ToLongFunction<ReplicaRuntime> figure) {
        ReplicaRuntime r;
        synchronized (this) {
            r = runtime;
        }
        return r == null ? 0 : figure.applyAsLong(r);
    }

    /** Checkpoints this replica restored from a peer because none of its own was usable. */
    public synchronized long checkpointsFetchedFromPeers() {
        return runtime == null ? 0 : runtime.stats().checkpointsFetched.get();
    }

    /** Framed bytes of this replica's newest valid checkpoint (what a peer fetches), or null. */
    public byte[] newestCheckpointFile() {
        ReplicaRuntime r;
        synchronized (this) {
            r = runtime;
        }
        return r == null || r.snapshots() == null ? null : r.snapshots().newestValidFramed();
    }

    /** Stops executing; the multicast endpoint stays open (its owner closes it). */
    @Override
    public synchronized void close() {
        if (runtime != null) {
            runtime.close();
        }
    }

    /** The position of the newest checkpoint on disk (restored or written), or {@code Position.NONE}. */
    public synchronized long durableCheckpointPosition() {
        return runtime == null ? io.eyrie.multicast.Position.NONE : runtime.durableCheckpointPosition();
    }

    /** Checkpoint files found damaged (and not used) since this replica started. */
    public synchronized long corruptCheckpointsFound() {
        return runtime == null || runtime.snapshots() == null ? 0 : runtime.snapshots().corruptFound();
    }

    /** The running replica (tests and monitoring); null before {@link #runStateMachine}. */
    synchronized ReplicaRuntime runtime() {
        return runtime;
    }

    private void requireNotRunning() {
        if (runtime != null) {
            throw new IllegalStateException("set options before runStateMachine()");
        }
    }
}
