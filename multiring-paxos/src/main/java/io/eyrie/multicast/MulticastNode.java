package io.eyrie.multicast;

import io.eyrie.multicast.internal.protocol.MalformedMessageException;
import io.eyrie.multicast.internal.protocol.NodeProtocol;
import io.eyrie.multicast.internal.protocol.NodeStatus;
import io.eyrie.multicast.internal.protocol.Output;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;
import io.eyrie.multicast.internal.storage.MemoryLogBudget;
import io.eyrie.multicast.internal.storage.SegmentedAcceptorLog;
import io.eyrie.multicast.internal.transport.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * One node of a Multi-Ring Paxos cluster: the runtime that drives the deterministic protocol roles
 * of {@link NodeProtocol} with a transport, acceptor storage and a clock.
 *
 * <p>Threading follows the single-writer principle: one event-loop thread owns the protocol state.
 * Transport threads and callers hand it events through a bounded queue. Each loop turn processes a
 * batch of events, then syncs every acceptor log once (group commit) and only then sends the
 * messages the turn produced, so a vote never leaves before it is durable. Deliveries and direct
 * messages are handed to the application on the event-loop thread.
 *
 * <p>That thread is the transport's own event loop when the transport offers one
 * ({@link Transport#protocolLoop}, the Netty transport does): messages read there are queued for the
 * turn that runs right after the read, and the turn's sends are written by the same thread, so no
 * message costs a hand-off between threads (ADR 031). Other transports get a thread of their own.
 */
public final class MulticastNode implements MulticastEndpoint {
    private static final Logger log = LoggerFactory.getLogger(MulticastNode.class);

    /** Bound on queued events; past it a multicast fails fast instead of growing the heap. */
    private static final int EVENT_QUEUE_LIMIT = 200_000;
    /** Events handled per loop turn before the turn's fsync and sends. */
    private static final int EVENTS_PER_TURN = 4096;

    private volatile ClusterConfig config;
    private final int nodeId;
    private final Transport transport;
    private final Map<Integer, AcceptorLog> logs;
    private final long tickMillis;
    private final LinkedBlockingQueue<Runnable> events = new LinkedBlockingQueue<>(EVENT_QUEUE_LIMIT);
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final long startNanos = System.nanoTime();

    // Owned by the event-loop thread.
    private NodeProtocol protocol;
    private DeliveryListener listener;
    private final List<DirectChannel.Handler> directHandlers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<Long, CompletableFuture<Void>> pending = new HashMap<>();
    private final TurnOutput out = new TurnOutput();
    private volatile NodeStatus lastStatus;
    private Thread loop;
    /** The transport's event loop the protocol runs on, or null (then {@link #loop} runs it). */
    private final Transport.Loop onLoop;
    /** Node millis of the last timer run and of the next one due (owned by the protocol's thread or loop). */
    private long lastTick;
    private long nextTick;
    // Owned by the transport's event loop (loop mode).
    private final ArrayDeque<Runnable> turnEvents = new ArrayDeque<>();
    private boolean turnScheduled;
    private java.util.concurrent.Future<?> timer;
    private long timerAt = Long.MAX_VALUE;
    /** Events handed to the event loop from other threads and not yet queued for a turn (bounded). */
    private final java.util.concurrent.atomic.AtomicInteger inHandOff = new java.util.concurrent.atomic.AtomicInteger();

    private MulticastNode(Builder b) {
        this.config = b.config;
        this.nodeId = b.nodeId;
        this.tickMillis = b.tickMillis;
        config.node(nodeId);
        this.transport = b.transportFactory != null ? b.transportFactory.apply(this)
                : new NettyTransport(config, nodeId, config.parameters().batchMaxBytes() + 64 * 1024);
        Map<Integer, AcceptorLog> m = new TreeMap<>();
        Transport.Loop loopOfTransport;
        try {
            for (int ring : config.ringsAcceptedBy(nodeId)) {
                m.put(ring, b.logFactory != null ? b.logFactory.apply(ring) : defaultLog(ring));
            }
            loopOfTransport = transport.protocolLoop();
        } catch (RuntimeException | Error e) {
            // nobody can close a node that was never made: give back what is open (a memory log's
            // share of the process's budget, a durable log's files, the transport's threads)
            for (AcceptorLog l : m.values()) {
                try {
                    l.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
            }
            try {
                transport.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        this.logs = m;
        this.onLoop = loopOfTransport;
        long torn = 0;
        for (AcceptorLog l : m.values()) {
            torn += l.recovered().tornBytesDiscarded();
        }
        this.tornBytesAtOpen = torn;
    }

    private final long tornBytesAtOpen;

    /**
     * Bytes of torn tail the acceptor logs cut off when this node opened them: writes that never
     * became durable, so never voted on; the instances they held are learned again from peers.
     */
    public long tornBytesDiscardedAtOpen() {
        return tornBytesAtOpen;
    }

    private AcceptorLog defaultLog(int ring) {
        ClusterConfig.Parameters p = config.parameters();
        if (p.storage() == ClusterConfig.StorageMode.DURABLE) {
            Path dir = Path.of(p.dataDir(), "node-" + nodeId, "ring-" + ring);
            return SegmentedAcceptorLog.open(dir, p.segmentBytes());
        }
        // Keep twice what can be undecided at once whatever the byte bound says.
        if (p.memoryMaxBytes() == ClusterConfig.Parameters.MEMORY_MAX_BYTES_AUTO) {
            MemoryLogBudget budget = MemoryLogBudget.process();
            MemoryAcceptorLog l = new MemoryAcceptorLog(p.memoryMaxInstances(), budget, 2 * p.maxInFlightInstances());
            log.info("node={} ring={} in-memory acceptor log: {} MiB of heap for this JVM's {} such logs, at most {} MiB"
                            + " each (storage.memoryMaxBytes = auto, ADR 056)", nodeId, ring, budget.totalBytes() >> 20,
                    budget.openLogs(), budget.shareBytes() >> 20);
            return l;
        }
        return new MemoryAcceptorLog(p.memoryMaxInstances(), p.memoryMaxBytes(), 2 * p.maxInFlightInstances());
    }

    public static Builder builder(ClusterConfig config, int nodeId) {
        return new Builder(config, nodeId);
    }

    @Override
    public ClusterConfig config() {
        return config;
    }

    /**
     * Takes up a new version of the cluster file in which other nodes have moved to other addresses (a machine
     * replaced, ADR 102): they are dialled there from now on, and peers still running with the previous version
     * are not refused meanwhile. Nothing else may differ.
     *
     * @return the ids of the nodes whose address changed (empty: nothing to do)
     * @throws IllegalArgumentException naming what differs besides other nodes' addresses, or this node's move;
     *                                  nothing is taken up then
     * @throws UnsupportedOperationException when the transport cannot dial peers elsewhere
     */
    public synchronized List<Integer> readdress(ClusterConfig next) {
        List<String> differences = config.differencesBesidesAddresses(next);
        if (!differences.isEmpty()) {
            throw new IllegalArgumentException("only nodes' addresses may change in a running cluster; "
                    + String.join("; ", differences));
        }
        List<Integer> moved = transport.readdress(next);
        config = next.withPeerTls(config.peerTls());
        return moved;
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    /** Starts the node; deliveries of this node's groups go to {@code listener}. */
    @Override
    public void start(DeliveryListener listener, byte[] learnerCheckpoint) {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("node " + nodeId + " already started");
        }
        this.listener = Objects.requireNonNull(listener, "listener");
        // Incarnations must grow across restarts of a node (learners keep duplicate-detection state
        // for a proposer's latest incarnations only); wall-clock milliseconds do.
        long incarnation = System.currentTimeMillis();
        this.protocol = new NodeProtocol(config, nodeId, incarnation, logs, learnerCheckpoint, nowMillis());
        protocol.coalesceOrderedPerTurn();
        this.lastStatus = protocol.status();
        if (onLoop == null) {
            this.loop = new Thread(this::runLoop, "mrp-node-" + nodeId);
            loop.setDaemon(true);
            loop.start();
        } else {
            // the transport's loop exists before it starts (a failed start shuts it down; close copes)
            onLoop.execute(() -> {
                lastTick = nowMillis();
                nextTick = lastTick + tickMillis;
                armTimer(nextTick);
            });
        }
        transport.start(new Transport.InboundHandler() {
            @Override
            public void onMessage(int fromNodeId, ByteBuffer message) {
                // Decoded here, straight from the transport's buffer (on another I/O thread than the
                // protocol's, in parallel with it).
                NodeProtocol.Inbound decoded = decode(fromNodeId, message);
                if (decoded != null && !post(() -> inbound(fromNodeId, decoded))) {
                    // Dropping is safe: the protocol retransmits; overload shows in the log.
                    log.warn("node={} event queue full, dropped a message from node={}", nodeId, fromNodeId);
                }
            }
        });
        log.info("node={} started rings accepted={} learned={} groups={}", nodeId,
                Arrays.toString(config.ringsAcceptedBy(nodeId)), Arrays.toString(config.ringsLearnedBy(nodeId)),
                Arrays.toString(config.node(nodeId).groups()));
    }

    /** Starts the node from the beginning of every ring. */
    public MulticastNode start(DeliveryListener listener) {
        start(listener, null);
        return this;
    }

    @Override
    public CompletableFuture<Void> multicast(int[] groups, byte[] payload) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        if (closed.get() || !started.get()) {
            f.completeExceptionally(new MulticastException("node " + nodeId + " is not running"));
            return f;
        }
        int[] sorted = groups.clone();
        Arrays.sort(sorted);
        try {
            config.ringFor(sorted);
        } catch (IllegalArgumentException e) {
            f.completeExceptionally(new MulticastException(e.getMessage(), e));
            return f;
        }
        if (payload.length > config.parameters().batchMaxBytes()) {
            f.completeExceptionally(new MulticastException("message of " + payload.length
                    + " bytes exceeds batch.maxBytes=" + config.parameters().batchMaxBytes()));
            return f;
        }
        if (!post(() -> propose(sorted, payload, f))) {
            f.completeExceptionally(new MulticastException("node " + nodeId + " overloaded: event queue full"));
        }
        return f;
    }

    @Override
    public boolean sendDirect(int toNodeId, byte[] message) {
        byte[] framed = NodeProtocol.encodeDirect(message);
        if (toNodeId == nodeId) {
            NodeProtocol.Inbound decoded = decode(nodeId, ByteBuffer.wrap(framed));
            return decoded != null && post(() -> inbound(nodeId, decoded));
        }
        return transport.sendOwned(toNodeId, framed);
    }

    @Override
    public boolean peerRefuses(int nodeId) {
        return nodeId != this.nodeId && transport.peerRefuses(nodeId);
    }

    /** Adds a handler; every handler sees every direct message (each protocol ignores the others' types). */
    @Override
    public void onDirect(DirectChannel.Handler handler) {
        directHandlers.add(Objects.requireNonNull(handler, "handler"));
    }

    @Override
    public byte[] learnerCheckpoint() {
        if (onLoop != null ? !onLoop.inLoop() : Thread.currentThread() != loop) {
            throw new IllegalStateException("learnerCheckpoint() must be called from inside deliver()");
        }
        return protocol.learnerCheckpoint();
    }

    @Override
    public void checkpointed(byte[] learnerCheckpoint) {
        byte[] copy = learnerCheckpoint.clone();
        if (!post(() -> protocol.checkpointed(copy, nowMillis(), out))) {
            log.warn("node={} event queue full, dropped a checkpoint notice", nodeId);
        }
    }

    @Override
    public CompletableFuture<Boolean> repositionLearner(byte[] learnerCheckpoint) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        byte[] copy = learnerCheckpoint.clone();
        if (closed.get() || !started.get()) {
            f.completeExceptionally(new MulticastException("node " + nodeId + " is not running"));
        } else if (!post(() -> {
            try {
                f.complete(protocol.repositionLearner(copy, nowMillis(), out));
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        })) {
            f.completeExceptionally(new MulticastException("node " + nodeId + " overloaded: event queue full"));
        }
        return f;
    }

    /** A recent snapshot of the protocol's state, for monitoring; never blocks the loop. */
    public NodeStatus status() {
        return lastStatus;
    }

    public Transport.TransportStats transportStats() {
        return transport.stats();
    }

    /** TLS handshakes with peers that failed (ADR 061): 0 on plain TCP and transports other than Netty's. */
    public long transportTlsHandshakeFailures() {
        return transport instanceof NettyTransport t ? t.tlsHandshakeFailures() : 0;
    }

    /** TLS handshakes with peers abandoned before a verdict (ADR 094): a peer's crash or restart mid-handshake, a probe. */
    public long transportTlsHandshakesAbandoned() {
        return transport instanceof NettyTransport t ? t.tlsHandshakesAbandoned() : 0;
    }

    /**
     * Makes {@code server} answer peers' side requests on this node's ring port (ADR 063, {@link SideChannel}).
     *
     * @return false when the transport has no side channel (only the Netty transport has one)
     */
    public boolean serveSideRequests(SideChannel.Server server) {
        return transport.serveSideRequests(server);
    }

    /** Side requests this node answered and refused, or {0, 0} on a transport without a side channel. */
    public long[] sideRequestCounts() {
        return transport instanceof NettyTransport t ? new long[]{t.sideDesk().served(), t.sideDesk().refused()}
                : new long[]{0, 0};
    }

    /** See {@link Transport#socketWrites()}. */
    public long transportSocketWrites() {
        return transport.socketWrites();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        boolean await = false;
        if (loop != null) {
            events.offer(() -> { });
            await = true;
        } else if (onLoop != null && started.get()) {
            if (onLoop.inLoop()) {
                stopped.countDown(); // closed from a callback: no turn runs after this one
            } else {
                try {
                    onLoop.execute(stopped::countDown); // after the turn that may be running
                    await = true;
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    stopped.countDown(); // the transport's loop is gone already (it failed to start)
                }
            }
        }
        if (await) {
            try {
                if (!stopped.await(5, TimeUnit.SECONDS)) {
                    log.warn("node={} event loop did not stop within 5 s", nodeId);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        transport.close();
        for (AcceptorLog l : logs.values()) {
            l.close();
        }
        MulticastException gone = new MulticastException("node " + nodeId + " closed");
        synchronized (pending) {
            pending.values().forEach(f -> f.completeExceptionally(gone));
            pending.clear();
        }
        log.info("node={} closed", nodeId);
    }

    private long nowMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000L;
    }

    private void propose(int[] groups, byte[] payload, CompletableFuture<Void> f) {
        try {
            long seq = protocol.propose(groups, payload, nowMillis(), out);
            synchronized (pending) {
                pending.put(seq, f);
            }
        } catch (MulticastException e) {
            f.completeExceptionally(e);
        }
    }

    /** The decoded message, or null (logged) if it is malformed. */
    private NodeProtocol.Inbound decode(int from, ByteBuffer message) {
        try {
            return NodeProtocol.decode(message);
        } catch (MalformedMessageException e) {
            log.warn("node={} dropped a malformed message from node={}: {}", nodeId, from, e.getMessage());
            return null;
        }
    }

    private void inbound(int from, NodeProtocol.Inbound message) {
        try {
            protocol.onMessage(from, message, nowMillis(), out);
        } catch (MalformedMessageException e) {
            log.warn("node={} dropped a message from node={}: {}", nodeId, from, e.getMessage());
        }
    }

    /**
     * Queues an event for the protocol, in the order of the calls; false if too many wait. On the
     * transport's event loop it joins the turn that runs once the loop has handled what it read; from
     * other threads (or behind events they handed over) it goes through the loop's task queue.
     */
    private boolean post(Runnable event) {
        if (onLoop == null) {
            return events.offer(event);
        }
        if (onLoop.inLoop() && inHandOff.get() == 0) {
            // Nothing handed over from another thread is still on its way to the turn's queue, so joining
            // it directly keeps the events in the order they were posted (a client's multicasts from its
            // own thread and from a callback on this loop must reach the proposer in its order).
            queueForTurn(event);
            return true;
        }
        if (inHandOff.incrementAndGet() > EVENT_QUEUE_LIMIT) {
            inHandOff.decrementAndGet();
            return false;
        }
        try {
            onLoop.execute(() -> {
                inHandOff.decrementAndGet();
                queueForTurn(event);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            inHandOff.decrementAndGet(); // the transport is closed
            return false;
        }
        return true;
    }

    /** Event loop: queues an event for the next turn and makes sure one comes. */
    private void queueForTurn(Runnable event) {
        turnEvents.add(event);
        if (!turnScheduled && !closed.get()) {
            turnScheduled = true;
            // A task runs after the loop has handled the reads it is in: one turn (and one sync) for all.
            try {
                onLoop.execute(this::turn);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                turnScheduled = false; // the transport is shutting down
            }
        }
    }

    /** Event loop: one turn, as {@link #runLoop} runs them on a thread of its own. */
    private void turn() {
        turnScheduled = false;
        if (closed.get()) {
            return;
        }
        try {
            Runnable e;
            for (int n = 0; n < EVENTS_PER_TURN && (e = turnEvents.poll()) != null; n++) {
                e.run();
            }
            endTurn();
            if (!turnEvents.isEmpty() && !turnScheduled) {
                turnScheduled = true;
                onLoop.execute(this::turn);
            }
            armTimer(nextTick);
        } catch (RuntimeException | Error e) {
            // A bug in the protocol: crash loudly rather than run on in an unknown state.
            log.error("node={} event loop failed; the node stops", nodeId, e);
            closed.set(true);
            stopped.countDown();
        }
    }

    /**
     * The end of a turn, after its events: the timers if due, then the acceptor logs' sync and the turn's
     * sends. Sets {@link #nextTick}: an idle node wakes once per heartbeat instead of every tick, and a
     * busy one runs its timers no more than every tick.
     */
    private void endTurn() {
        long now = nowMillis();
        if (now >= nextTick) {
            protocol.onTick(now, out);
            lastTick = now;
            lastStatus = protocol.status();
        }
        protocol.endTurn(out);
        out.endTurn();
        nextTick = Math.max(lastTick + tickMillis, protocol.nextTickMillis());
    }

    /** Event loop: a turn at {@code at} (node millis) unless one is due by then already. */
    private void armTimer(long at) {
        if (timer != null && timerAt <= at) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        timerAt = at;
        timer = onLoop.schedule(() -> {
            timer = null;
            timerAt = Long.MAX_VALUE;
            turn();
        }, Math.max(0, at - nowMillis()));
    }

    private void runLoop() {
        List<Runnable> batch = new ArrayList<>(EVENTS_PER_TURN);
        lastTick = nowMillis();
        nextTick = lastTick + tickMillis;
        try {
            while (!closed.get()) {
                long wait = nextTick - nowMillis();
                Runnable first = wait > 0 ? events.poll(wait, TimeUnit.MILLISECONDS) : events.poll();
                if (first != null) {
                    batch.add(first);
                    events.drainTo(batch, EVENTS_PER_TURN - 1);
                }
                for (int i = 0; i < batch.size(); i++) {
                    batch.get(i).run();
                }
                batch.clear();
                // then sleep until the protocol has timed work (or an event comes)
                endTurn();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // A bug in the protocol: crash loudly rather than run on in an unknown state.
            log.error("node={} event loop failed; the node stops", nodeId, e);
            closed.set(true);
        } finally {
            stopped.countDown();
        }
    }

    /** Collects one loop turn's effects and releases them in the order durability demands. */
    private final class TurnOutput implements Output {
        /** {to, message} or {to, head, tail} (see {@link Output#send(int, byte[], byte[])}). */
        private final ArrayDeque<Object[]> sends = new ArrayDeque<>();
        /** Seqs of local multicasts ordered this turn: ordered[0, orderedCount). */
        private long[] ordered = new long[256];
        private int orderedCount;

        @Override
        public void send(int toNodeId, byte[] message) {
            sends.add(new Object[] {toNodeId, message});
        }

        @Override
        public void send(int toNodeId, byte[] head, byte[] tail) {
            sends.add(new Object[] {toNodeId, head, tail});
        }

        @Override
        public void deliver(Delivery delivery) {
            listener.deliver(delivery);
        }

        @Override
        public void ordered(long proposalSeq) {
            if (orderedCount == ordered.length) {
                ordered = Arrays.copyOf(ordered, orderedCount * 2);
            }
            ordered[orderedCount++] = proposalSeq;
        }

        @Override
        public void behindTrimmedLogs(int ring, long neededInstance, long lowestKept) {
            listener.behindTrimmedLogs(ring, neededInstance, lowestKept);
        }

        @Override
        public void direct(int fromNodeId, byte[] appMessage) {
            for (DirectChannel.Handler h : directHandlers) {
                h.receive(fromNodeId, appMessage);
            }
        }

        void endTurn() {
            if (sends.isEmpty() && orderedCount == 0) {
                return;
            }
            for (AcceptorLog l : logs.values()) {
                l.sync();
            }
            Object[] s;
            while ((s = sends.poll()) != null) {
                int to = (Integer) s[0];
                if (s.length == 3) {
                    // Never to itself: the protocol handles its own messages without the runtime.
                    transport.sendOwned(to, (byte[]) s[1], (byte[]) s[2]);
                    continue;
                }
                byte[] msg = (byte[]) s[1];
                if (to == nodeId) {
                    // Loopback without the transport; handled in a later turn like any message.
                    NodeProtocol.Inbound decoded = decode(nodeId, ByteBuffer.wrap(msg));
                    if (decoded != null && !post(() -> inbound(nodeId, decoded))) {
                        log.warn("node={} event queue full, dropped a message to itself", nodeId);
                    }
                } else {
                    // The array was encoded for this send alone: the transport may keep it.
                    transport.sendOwned(to, msg);
                }
            }
            if (orderedCount > 0) {
                synchronized (pending) {
                    for (int i = 0; i < orderedCount; i++) {
                        CompletableFuture<Void> f = pending.remove(ordered[i]);
                        if (f != null) {
                            f.complete(null);
                        }
                    }
                }
                orderedCount = 0;
            }
        }
    }

    /** Options of a node; the cluster file gives everything else. */
    public static final class Builder {
        private final ClusterConfig config;
        private final int nodeId;
        private long tickMillis = 2;
        private Function<MulticastNode, Transport> transportFactory;
        private Function<Integer, AcceptorLog> logFactory;

        private Builder(ClusterConfig config, int nodeId) {
            this.config = Objects.requireNonNull(config, "config");
            this.nodeId = nodeId;
        }

        /**
         * The shortest spacing of timer runs (heartbeats, retransmissions, catch-up); default 2 ms.
         * Timers run only when one is due, so an idle node wakes about once per heartbeat.
         */
        public Builder tickMillis(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("tickMillis must be at least 1, got " + millis);
            }
            this.tickMillis = millis;
            return this;
        }

        /** Replaces the default Netty TCP transport (DPDK, tests). */
        public Builder transport(Function<MulticastNode, Transport> factory) {
            this.transportFactory = factory;
            return this;
        }

        /** Replaces the storage chosen by the cluster file's {@code storage} key. */
        public Builder acceptorLogs(Function<Integer, AcceptorLog> factory) {
            this.logFactory = factory;
            return this;
        }

        public MulticastNode build() {
            return new MulticastNode(this);
        }
    }
}
