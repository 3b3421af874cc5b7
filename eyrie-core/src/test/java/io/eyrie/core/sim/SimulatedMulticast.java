package io.eyrie.core.sim;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.DeliveryListener;
import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.MulticastException;
import io.eyrie.multicast.Position;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

/**
 * An in-memory atomic multicast with the ordering of Multi-Ring Paxos, for tests.
 *
 * <p>Ordering: one ring per group plus ring ALL, as in the cluster file. A multicast takes the next
 * slot of its ring; its position is {@code (slot, ring)}, merged round-robin (round = slot). A ring's
 * slots advance only when a message takes one or when a delivering learner needs the ring to skip past
 * a round (demand-driven skips). So, as in the real protocol, positions of different rings are not
 * ordered in real time: a ring whose learners are paused does not skip, and a message sent to it later
 * can be ordered before a message of a busier ring that other partitions already delivered
 * (Figure 1 of the S-SMR paper).
 *
 * <p>Delivery: each node delivers its messages in position order on its own thread; a test can pause and
 * resume a node or a whole partition, and crash and restart a node (it then delivers again from a
 * learner checkpoint). Direct messages: delivered on one thread per receiving node, and can be
 * dropped, duplicated or delayed with probabilities drawn from a seeded random source, or cut by a
 * predicate. The random choices are reproducible from the seed; thread interleavings are not.
 */
public final class SimulatedMulticast implements AutoCloseable {

    private final ClusterConfig config;
    private final Random random;
    private final Object lock = new Object();
    private final long[] nextSlot = new long[Position.MAX_RINGS];
    private final Map<Integer, NodeState> nodes = new HashMap<>();
    private final Set<Integer> pausedGroups = new HashSet<>();
    private double dropProbability;
    private double duplicateProbability;
    private long maxDelayMillis;
    private BiPredicate<Integer, Integer> cut = (from, to) -> false;
    private final AtomicLong directSent = new AtomicLong();
    private final AtomicLong multicasts = new AtomicLong();
    /** Multicasts still to refuse as a full proposer does (backpressure: nothing is sent). */
    private final java.util.concurrent.atomic.AtomicInteger toRefuse = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean closed;
    /** While not null, multicasts wait here unordered, as behind a coordinator's long queue. */
    private List<Runnable> heldMulticasts;
    private final List<CompletableFuture<Void>> heldOrdered = new ArrayList<>();

    public SimulatedMulticast(ClusterConfig config, long seed) {
        this.config = config;
        this.random = new Random(seed);
        for (ClusterConfig.Node n : config.nodes().values()) {
            nodes.put(n.id(), new NodeState(n.id()));
        }
    }

    /** A cluster file for {@code partitions} partitions of {@code replicas} replicas each, then {@code clients} clients. */
    public static ClusterConfig cluster(int partitions, int replicas, int clients) {
        StringBuilder b = new StringBuilder();
        int node = 1;
        StringBuilder all = new StringBuilder();
        for (int p = 1; p <= partitions; p++) {
            StringBuilder ring = new StringBuilder();
            for (int r = 0; r < replicas; r++, node++) {
                b.append("node.").append(node).append(" = 127.0.0.1:").append(20000 + node).append('\n');
                b.append("node.").append(node).append(".groups = ").append(p).append('\n');
                ring.append(ring.length() == 0 ? "" : ",").append(node);
                if (all.length() == 0) {
                    all.append(node);
                }
            }
            b.append("ring.").append(p).append(".acceptors = ").append(ring).append('\n');
            b.append("group.").append(p).append(".ring = ").append(p).append('\n');
        }
        for (int c = 0; c < clients; c++, node++) {
            b.append("node.").append(node).append(" = 127.0.0.1:").append(20000 + node).append('\n');
        }
        b.append("ring.0.acceptors = ").append(all).append('\n');
        b.append("ring.all = 0\n");
        return ClusterConfig.parse(b.toString(), "simulated-cluster");
    }

    public ClusterConfig config() {
        return config;
    }

    /** The node ids of partition {@code group}'s replicas, ascending. */
    public int[] replicasOf(int group) {
        return config.nodes().values().stream().filter(n -> Arrays.binarySearch(n.groups(), group) >= 0)
                .mapToInt(ClusterConfig.Node::id).sorted().toArray();
    }

    /** Node ids with no groups. */
    public int[] clients() {
        return config.nodes().values().stream().filter(n -> n.groups().length == 0)
                .mapToInt(ClusterConfig.Node::id).sorted().toArray();
    }

    /** A fresh endpoint for {@code nodeId} (after a crash, the restarted node's). */
    public MulticastEndpoint endpoint(int nodeId) {
        NodeState n = node(nodeId);
        synchronized (lock) {
            n.incarnation++;
            return new Endpoint(n, n.incarnation);
        }
    }

    /**
     * Another handle on the node's current incarnation (a second protocol on a running node, such as
     * a client beside its replica); unlike {@link #endpoint}, it does not replace the running one.
     */
    public MulticastEndpoint sharedEndpoint(int nodeId) {
        NodeState n = node(nodeId);
        synchronized (lock) {
            return new Endpoint(n, n.incarnation);
        }
    }

    public void pauseNode(int nodeId) {
        synchronized (lock) {
            node(nodeId).paused = true;
        }
    }

    public void resumeNode(int nodeId) {
        synchronized (lock) {
            node(nodeId).paused = false;
            lock.notifyAll();
        }
    }

    public void pausePartition(int group) {
        synchronized (lock) {
            pausedGroups.add(group);
        }
    }

    public void resumePartition(int group) {
        synchronized (lock) {
            pausedGroups.remove(group);
            lock.notifyAll();
        }
    }

    /** The node stops delivering and its endpoint goes dead; its log stays, as acceptors would keep it. */
    public void crash(int nodeId) {
        synchronized (lock) {
            NodeState n = node(nodeId);
            n.incarnation++;
            n.listener = null;
            n.directHandler = null;
            lock.notifyAll();
        }
    }

    public void setDirectFaults(double drop, double duplicate, long maxDelayMillis) {
        synchronized (lock) {
            this.dropProbability = drop;
            this.duplicateProbability = duplicate;
            this.maxDelayMillis = maxDelayMillis;
        }
    }

    /** Direct messages for which {@code cut.test(from, to)} holds are dropped. */
    public void cutDirect(BiPredicate<Integer, Integer> cut) {
        synchronized (lock) {
            this.cut = cut;
        }
    }

    /** Direct messages sent so far by all nodes (including dropped ones). */
    public long directMessagesSent() {
        return directSent.get();
    }

    /** Direct messages sent so far by {@code nodeId}. */
    public long directMessagesSentBy(int nodeId) {
        return node(nodeId).sent.get();
    }

    /** The highest learner checkpoint {@code nodeId}'s application declared durable, or {@link Position#NONE}. */
    public long checkpointedPosition(int nodeId) {
        synchronized (lock) {
            return node(nodeId).checkpointed;
        }
    }

    /** The next {@code n} multicasts, from any node, are refused as a real node refuses them when its proposer is full. */
    public void refuseNextMulticasts(int n) {
        toRefuse.set(n);
    }

    public long multicasts() {
        return multicasts.get();
    }

    /** From now on multicasts are accepted but not ordered (their futures wait) until {@link #orderHeldMulticasts}. */
    public void holdMulticasts() {
        synchronized (lock) {
            if (heldMulticasts == null) {
                heldMulticasts = new ArrayList<>();
            }
        }
    }

    /**
     * Orders the held multicasts in the order they were made, all before anything multicast in
     * reaction to their futures (as a ring orders what it holds before what arrives later), and stops holding.
     */
    public void orderHeldMulticasts() {
        List<CompletableFuture<Void>> ordered;
        synchronized (lock) {
            if (heldMulticasts == null) {
                return;
            }
            heldMulticasts.forEach(Runnable::run);
            heldMulticasts = null;
            ordered = new ArrayList<>(heldOrdered);
            heldOrdered.clear();
        }
        ordered.forEach(f -> f.complete(null));
    }

    /** Positions delivered so far by {@code nodeId}, in delivery order (across incarnations). */
    public List<Long> delivered(int nodeId) {
        synchronized (lock) {
            return new ArrayList<>(node(nodeId).deliveredLog);
        }
    }

    /** Whether {@code nodeId} has delivered every message addressed to it so far. */
    public boolean caughtUp(int nodeId) {
        synchronized (lock) {
            NodeState n = node(nodeId);
            return n.log.higherKey(n.cursor) == null && !n.delivering;
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            for (NodeState n : nodes.values()) {
                n.listener = null;
                n.directHandler = null;
                n.incarnation++;
            }
            lock.notifyAll();
        }
    }

    private NodeState node(int nodeId) {
        NodeState n = nodes.get(nodeId);
        if (n == null) {
            throw new IllegalArgumentException("no node " + nodeId + " in the simulated cluster");
        }
        return n;
    }

    private long multicastLocked(int[] groups, byte[] payload) {
        int[] sorted = groups.clone();
        Arrays.sort(sorted);
        int ring = config.ringFor(sorted);
        long slot = nextSlot[ring]++;
        long position = Position.of(slot, ring, 0, 0);
        Delivery d = new Delivery(position, sorted, payload.clone());
        for (NodeState n : nodes.values()) {
            int[] ng = config.node(n.id).groups();
            if (Arrays.stream(ng).anyMatch(g -> Arrays.binarySearch(sorted, g) >= 0)) {
                n.log.put(position, d);
            }
        }
        lock.notifyAll();
        return position;
    }

    /** Makes the rings {@code n} learns skip up to {@code position}, so nothing later can be ordered before it. */
    private void skipPastLocked(NodeState n, long position) {
        long round = Position.round(position);
        int ringOfMessage = Position.ringId(position);
        for (int ring : config.ringsLearnedBy(n.id)) {
            long needed = ring < ringOfMessage ? round + 1 : round;
            if (ring == ringOfMessage) {
                needed = round + 1;
            }
            nextSlot[ring] = Math.max(nextSlot[ring], needed);
        }
    }

    private boolean pausedLocked(NodeState n) {
        if (n.paused) {
            return true;
        }
        for (int g : config.node(n.id).groups()) {
            if (pausedGroups.contains(g)) {
                return true;
            }
        }
        return false;
    }

    private final class NodeState {
        final int id;
        final TreeMap<Long, Delivery> log = new TreeMap<>();
        final List<Long> deliveredLog = new ArrayList<>();
        final AtomicLong sent = new AtomicLong();
        long cursor = Position.NONE;
        long checkpointed = Position.NONE;
        boolean paused;
        boolean delivering;
        int incarnation;
        DeliveryListener listener;
        volatile io.eyrie.multicast.DirectChannel.Handler directHandler;
        DirectQueue directQueue;

        NodeState(int id) {
            this.id = id;
        }
    }

    private final class Endpoint implements MulticastEndpoint {
        private final NodeState n;
        private final int incarnation;
        private long lastDelivered = Position.NONE;

        Endpoint(NodeState n, int incarnation) {
            this.n = n;
            this.incarnation = incarnation;
        }

        private boolean alive() {
            return !closed && n.incarnation == incarnation;
        }

        @Override
        public ClusterConfig config() {
            return config;
        }

        @Override
        public void start(DeliveryListener listener, byte[] learnerCheckpoint) {
            long from = learnerCheckpoint == null ? Position.NONE : ByteBuffer.wrap(learnerCheckpoint).getLong();
            synchronized (lock) {
                if (!alive()) {
                    throw new MulticastException("node " + n.id + " endpoint is no longer alive");
                }
                n.listener = listener;
                n.cursor = from;
                lastDelivered = from;
            }
            Thread t = new Thread(this::deliverLoop, "sim-deliver-" + n.id + "." + incarnation);
            t.setDaemon(true);
            t.start();
        }

        private void deliverLoop() {
            while (true) {
                Delivery d;
                DeliveryListener l;
                synchronized (lock) {
                    while (true) {
                        if (!alive()) {
                            return;
                        }
                        Map.Entry<Long, Delivery> next = n.log.higherEntry(n.cursor);
                        if (next != null && !pausedLocked(n)) {
                            d = next.getValue();
                            l = n.listener;
                            skipPastLocked(n, d.position());
                            n.cursor = d.position();
                            n.delivering = true;
                            break;
                        }
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
                try {
                    lastDelivered = d.position();
                    l.deliver(d);
                } finally {
                    synchronized (lock) {
                        n.deliveredLog.add(d.position());
                        n.delivering = false;
                        lock.notifyAll();
                    }
                }
            }
        }

        @Override
        public byte[] learnerCheckpoint() {
            return ByteBuffer.allocate(8).putLong(lastDelivered).array();
        }

        @Override
        public void checkpointed(byte[] learnerCheckpoint) {
            synchronized (lock) {
                n.checkpointed = Math.max(n.checkpointed, ByteBuffer.wrap(learnerCheckpoint).getLong());
            }
        }

        @Override
        public CompletableFuture<Void> multicast(int[] groups, byte[] payload) {
            if (!alive()) {
                return CompletableFuture.failedFuture(new MulticastException("node " + n.id + " is closed"));
            }
            if (toRefuse.getAndUpdate(k -> Math.max(0, k - 1)) > 0) {
                return CompletableFuture.failedFuture(new MulticastException("too many multicasts pending (simulated)"));
            }
            synchronized (lock) {
                if (heldMulticasts != null) {
                    CompletableFuture<Void> ordered = new CompletableFuture<>();
                    heldMulticasts.add(() -> {
                        multicasts.incrementAndGet();
                        multicastLocked(groups, payload);
                    });
                    heldOrdered.add(ordered);
                    return ordered;
                }
                multicasts.incrementAndGet();
                multicastLocked(groups, payload);
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public int nodeId() {
            return n.id;
        }

        @Override
        public boolean sendDirect(int nodeId, byte[] message) {
            if (!alive()) {
                return false;
            }
            directSent.incrementAndGet();
            n.sent.incrementAndGet();
            NodeState to = node(nodeId);
            int copies;
            long delay;
            synchronized (lock) {
                if (cut.test(n.id, nodeId) || random.nextDouble() < dropProbability) {
                    return true; // lost on the way: the sender cannot tell
                }
                copies = random.nextDouble() < duplicateProbability ? 2 : 1;
                delay = maxDelayMillis == 0 ? 0 : (long) (random.nextDouble() * maxDelayMillis);
            }
            DirectQueue q;
            synchronized (lock) {
                q = to.directQueue;
            }
            if (q == null) {
                return false;
            }
            for (int i = 0; i < copies; i++) {
                q.add(n.id, message.clone(), delay);
            }
            return true;
        }

        @Override
        public void onDirect(Handler handler) {
            synchronized (lock) {
                // like a real node, several protocols may share the channel (a replica and a client)
                io.eyrie.multicast.DirectChannel.Handler before = n.directHandler;
                n.directHandler = before == null ? handler : (from, message) -> {
                    before.receive(from, message);
                    handler.receive(from, message);
                };
                if (n.directQueue == null) {
                    n.directQueue = new DirectQueue(n);
                }
            }
        }

        @Override
        public void close() {
            crash(n.id);
        }
    }

    /** One receiving node's inbound direct messages, handed to its handler on one thread, by due time. */
    private final class DirectQueue {
        private record Item(long dueNanos, long order, int from, byte[] message) {
        }

        private final NodeState n;
        private final java.util.PriorityQueue<Item> items = new java.util.PriorityQueue<>(
                (a, b) -> a.dueNanos != b.dueNanos ? Long.compare(a.dueNanos, b.dueNanos) : Long.compare(a.order, b.order));
        private long order;

        DirectQueue(NodeState n) {
            this.n = n;
            Thread t = new Thread(this::run, "sim-direct-" + n.id);
            t.setDaemon(true);
            t.start();
        }

        synchronized void add(int from, byte[] message, long delayMillis) {
            items.add(new Item(System.nanoTime() + delayMillis * 1_000_000, order++, from, message));
            notifyAll();
        }

        private void run() {
            while (!closed) {
                Item item;
                synchronized (this) {
                    try {
                        while (items.isEmpty() || items.peek().dueNanos > System.nanoTime()) {
                            if (closed) {
                                return;
                            }
                            long waitNanos = items.isEmpty() ? 50_000_000 : items.peek().dueNanos - System.nanoTime();
                            wait(Math.max(1, waitNanos / 1_000_000));
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    item = items.poll();
                }
                io.eyrie.multicast.DirectChannel.Handler h = n.directHandler;
                if (h != null) {
                    h.receive(item.from, item.message);
                }
            }
        }
    }
}
