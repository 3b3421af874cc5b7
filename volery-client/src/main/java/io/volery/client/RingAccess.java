package io.volery.client;

import io.eyrie.core.Command;
import io.eyrie.core.EyrieClient;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;
import io.volery.server.internal.PathPartitioner;
import io.volery.server.internal.VoleryOracle;
import io.volery.server.internal.VoleryRequest;
import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.EventAcknowledgements;
import io.volery.server.internal.VoleryService;
import io.volery.server.internal.SessionOrder;
import io.volery.server.internal.VoleryWire;
import io.volery.server.tree.WatchEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client's way into the rings: a pure-client node of the cluster file (a node with no groups),
 * the Eyrie client that multicasts Volery requests from it, and the Volery-side duties a front end
 * would otherwise have for the sessions opened through it: ordered touches that keep them alive,
 * and routing of the watch events and expiries that replicas send straight to this node.
 *
 * <p>One {@code RingAccess} can carry many sessions ({@link VoleryClient#connect(RingAccess, int,
 * org.apache.zookeeper.Watcher)}); it is thread-safe. Each node id of the cluster file can be used by
 * one process at a time, since the node listens on its address.
 */
public final class RingAccess implements AutoCloseable {

    static {
        io.volery.server.internal.VoleryCodec.registered(); // before the first command is encoded or decoded (ADR 088)
    }
    private static final Logger log = LoggerFactory.getLogger(RingAccess.class);

    /**
     * @param window            most requests in flight at once over this access (more wait to be sent)
     * @param retryMillis       how long a request waits for a reply before it is multicast again
     * @param keepAliveMillis   how often the sessions are touched; keep it well under the smallest session timeout
     * @param minSessionTimeout the least session timeout granted (ZooKeeper's default: 2 ticks of 2 s)
     * @param maxSessionTimeout the largest session timeout granted (ZooKeeper's default: 20 ticks)
     * @param requestTimeoutMillis how long an operation waits for its reply before it fails with ConnectionLoss
     * @param partitioning      the servers' partitioning strategy (their configuration's {@code partitioning})
     */
    public record Options(int window, long retryMillis, long keepAliveMillis, int minSessionTimeout,
                          int maxSessionTimeout, long requestTimeoutMillis, VoleryConfig.Partitioning partitioning) {
        public Options {
            java.util.Objects.requireNonNull(partitioning, "partitioning");
            if (window < 1 || retryMillis < 1 || keepAliveMillis < 1 || requestTimeoutMillis < 1) {
                throw new IllegalArgumentException("window, retryMillis, keepAliveMillis and requestTimeoutMillis "
                        + "must be positive");
            }
            if (minSessionTimeout < 1 || maxSessionTimeout < minSessionTimeout) {
                throw new IllegalArgumentException("session timeout bounds must satisfy 0 < min <= max, got "
                        + minSessionTimeout + ".." + maxSessionTimeout);
            }
        }

        public static Options defaults() {
            return new Options(10_000, 2_000, 500, 4_000, 40_000, 30_000, VoleryConfig.Partitioning.SUBTREE);
        }

        public Options withKeepAlive(long millis) {
            return new Options(window, retryMillis, millis, minSessionTimeout, maxSessionTimeout, requestTimeoutMillis, partitioning);
        }

        public Options withSessionTimeouts(int min, int max) {
            return new Options(window, retryMillis, keepAliveMillis, min, max, requestTimeoutMillis, partitioning);
        }

        public Options withWindow(int requests) {
            return new Options(requests, retryMillis, keepAliveMillis, minSessionTimeout, maxSessionTimeout,
                    requestTimeoutMillis, partitioning);
        }

        public Options withRequestTimeout(long millis) {
            return new Options(window, retryMillis, keepAliveMillis, minSessionTimeout, maxSessionTimeout, millis, partitioning);
        }

        /** Must match the servers' {@code partitioning}: the client routes requests itself. */
        public Options withPartitioning(VoleryConfig.Partitioning strategy) {
            return new Options(window, retryMillis, keepAliveMillis, minSessionTimeout, maxSessionTimeout,
                    requestTimeoutMillis, strategy);
        }
    }

    /** What a session hears from the replicas besides replies. */
    interface SessionListener {
        void event(WatchEvent event);

        void expired();
    }

    private volatile ClusterConfig config;
    private final int nodeId;
    private final Options options;
    private final MulticastNode node;
    private final EyrieClient client;
    private final VoleryOracle oracle;
    private final Map<Long, SessionListener> sessions = new ConcurrentHashMap<>();
    private final EventDeduplicator dedup = new EventDeduplicator(100_000);
    private final ScheduledExecutorService keepAlive;
    /** Releases a reply only after the front ends holding sessions its command fired events for have queued them. */
    private final EventAcknowledgements acks;
    private final AtomicLong reorderedResends = new AtomicLong();

    private RingAccess(ClusterConfig config, int nodeId, Options options, MulticastNode node) {
        this.config = config;
        this.nodeId = nodeId;
        this.options = options;
        this.node = node;
        int[] partitions = config.groups().stream().mapToInt(Integer::intValue).sorted().toArray();
        // Reads any partition can answer go to one partition per client node, to spread them.
        int local = partitions[Math.floorMod(nodeId, partitions.length)];
        this.oracle = new VoleryOracle(new PathPartitioner(partitions, options.partitioning()), local);
        node.onDirect(this::onDirect);
        this.client = new EyrieClient(node, oracle, options.window(), options.retryMillis());
        // this access owns its client node: an earlier process on it (killed or not) leaves the replicas'
        // reply tables (ADR 058); closing retires this one
        client.retireEarlierIncarnations().whenComplete((outcome, t) -> {
            if (t != null) {
                log.warn("client node {} could not retire its earlier clients: {}", nodeId, t.toString());
            } else {
                log.debug("client node {}: {}", nodeId, outcome);
            }
        });
        this.keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "volery-client-keepalive-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        this.acks = new EventAcknowledgements(nodeId, keepAlive, VoleryService.EVENT_ACK_TIMEOUT_MILLIS);
        keepAlive.scheduleWithFixedDelay(this::touch, options.keepAliveMillis(), options.keepAliveMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Opens the access through client node {@code nodeId} of the cluster file. */
    public static RingAccess open(ClusterConfig config, int nodeId, Options options) throws IOException {
        return open(config, nodeId, options, null);
    }

    /** {@link #open(ClusterConfig, int, Options)} over {@code transport} (null: the default one); for tests. */
    static RingAccess open(ClusterConfig config, int nodeId, Options options,
                           java.util.function.Function<MulticastNode, io.eyrie.multicast.Transport> transport)
            throws IOException {
        ClusterConfig.Node n;
        try {
            n = config.node(nodeId);
        } catch (IllegalArgumentException e) {
            throw new IOException("the cluster file has no node " + nodeId + "; add a client node line such as "
                    + "'node." + nodeId + " = <host>:<port>' (without groups) to the file every server uses", e);
        }
        if (n.groups().length != 0) {
            throw new IOException("node " + nodeId + " is a replica (node." + nodeId + ".groups = "
                    + Arrays.toString(n.groups()) + "); a client needs a node without groups");
        }
        MulticastNode.Builder builder = MulticastNode.builder(config, nodeId);
        if (transport != null) {
            builder.transport(transport);
        }
        MulticastNode node = builder.build();
        try {
            // A pure client delivers nothing, but its node must run to multicast and to hear replies.
            node.start(d -> { }, null);
        } catch (RuntimeException e) {
            node.close();
            throw new IOException("client node " + nodeId + " cannot start: " + e.getMessage(), e);
        }
        return new RingAccess(config, nodeId, options, node);
    }

    /**
     * Opens the access through the first client node of the cluster file whose address is free on this
     * machine; several client processes can thus share one cluster file.
     */
    public static RingAccess open(ClusterConfig config, Options options) throws IOException {
        List<String> tried = new ArrayList<>();
        for (ClusterConfig.Node n : config.nodes().values()) {
            if (n.groups().length != 0) {
                continue;
            }
            try {
                return open(config, n.id(), options);
            } catch (IOException e) {
                tried.add("node " + n.id() + ": " + e.getMessage());
            }
        }
        if (tried.isEmpty()) {
            throw new IOException("the cluster file lists no client node (a 'node.N = host:port' line without "
                    + "'node.N.groups'); the native client needs one, known to every server");
        }
        throw new IOException("no client node of the cluster file is free: " + String.join("; ", tried));
    }

    /**
     * {@link #open(ClusterConfig, Options)} on a cluster file: the servers' Volery configuration file (its
     * {@code partitioning} then overrides the options') or a plain ring file.
     */
    public static RingAccess open(Path clusterFile, Options options) throws IOException {
        VoleryConfig.ClientView view = VoleryConfig.loadForClient(clusterFile);
        return open(view.cluster(), options.withPartitioning(view.partitioning()));
    }

    public int nodeId() {
        return nodeId;
    }

    public Options options() {
        return options;
    }

    public ClusterConfig config() {
        return config;
    }

    /**
     * Takes up a new version of the cluster file in which server nodes moved to other addresses (a machine
     * replaced, ADR 102): this client dials them there from now on. Servers take such a version up by themselves;
     * a long-lived client is told by its application (or restarted).
     *
     * @return the ids of the nodes whose address changed
     * @throws IllegalArgumentException naming what else changed (nothing is taken up then), or a bad file
     */
    public List<Integer> readdress(Path clusterFile) throws IOException {
        ClusterConfig next = VoleryConfig.loadForClient(clusterFile).cluster();
        synchronized (this) {
            List<Integer> moved = node.readdress(next);
            config = node.config();
            return moved;
        }
    }

    /** The address this client is known by to the ip ACL scheme: its node's host. */
    String clientAddress() {
        return config.node(nodeId).host();
    }

    /**
     * A new session's request order: the one the front ends keep for theirs (ADR 084). With no replica
     * here, a request only pipelines behind one to the same single partition, naming it ({@code after}), and
     * is sent again if a replica refuses it for having overtaken it.
     */
    SessionOrder newSessionOrder() {
        return new SessionOrder(reorderedResends, 0, oracle.partitioner().partitions().length);
    }

    /** Sends {@code r} in {@code order}; completes with the reply frame once it may go to the caller. */
    CompletableFuture<byte[]> submit(SessionOrder order, VoleryRequest r) {
        int[] destinations = oracle.destinations(r);
        boolean placedOnDelivery = destinations.length > 1 && oracle.placedOnDelivery(r);
        return order.submit(destinations, placedOnDelivery, r, (req, deliveredHere) -> send(req),
                answer -> acks.released(answer).thenApply(reply -> (byte[]) reply));
    }

    /**
     * Requests sent again because a replica refused them for having been ordered before the request of
     * their session they follow (a proposal lost and sent again, a coordinator failover).
     */
    public long reorderedResends() {
        return reorderedResends.get();
    }

    private CompletableFuture<Object> send(VoleryRequest r) {
        try {
            // a new command each time: a resend after a refusal must not find the refusal in the reply table
            return client.executeAsync(new Command(r));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Multicasts {@code r} to its partitions; completes with the first replica's reply. */
    CompletableFuture<Object> execute(VoleryRequest r) {
        try {
            return client.executeAsync(new Command(r)).thenCompose(acks::released);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }


    void register(long sessionId, SessionListener listener) {
        sessions.put(sessionId, listener);
    }

    void unregister(long sessionId) {
        sessions.remove(sessionId);
    }

    /** Orders a touch of this node's live sessions; like a front end's, it also advances session time. */
    private void touch() {
        if (sessions.isEmpty()) {
            return;
        }
        VoleryRequest r = new VoleryRequest();
        r.kind = VoleryRequest.TOUCH;
        r.frontEnd = nodeId;
        r.timeMillis = System.currentTimeMillis();
        r.sessions = sessions.keySet().stream().mapToLong(Long::longValue).toArray();
        execute(r).exceptionally(e -> {
            log.debug("client node={} touch failed: {}", nodeId, e.toString());
            return null;
        });
    }

    private void onDirect(int from, byte[] message) {
        VoleryWire.Message m;
        try {
            m = VoleryWire.decode(message);
        } catch (IllegalArgumentException e) {
            log.warn("client node={} dropped a malformed Volery message from node {}: {}", nodeId, from, e.getMessage());
            return;
        }
        if (m instanceof VoleryWire.Events ev) {
            for (WatchEvent e : dedup.firstCopies(ev.events())) {
                SessionListener s = sessions.get(e.sessionId());
                if (s != null) {
                    s.event(e);
                }
            }
            acks.queued(ev, node);
        } else if (m instanceof VoleryWire.EventsQueued q) {
            acks.acknowledged(from, q.zxid());
        } else if (m instanceof VoleryWire.Expired x) {
            SessionListener s = sessions.remove(x.sessionId());
            if (s != null) {
                s.expired();
            }
        }
    }

    @Override
    public void close() {
        keepAlive.shutdownNow();
        client.close();
        node.close();
    }
}
