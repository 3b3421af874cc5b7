package io.volery.server;

import io.eyrie.multicast.LoopbackPorts;
import io.eyrie.multicast.ClusterConfig;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * A whole Volery cluster in one JVM on loopback: {@code partitions × replicas} nodes, in-memory
 * acceptors. What {@code volery dev} runs, and what tests start.
 */
public final class VoleryCluster implements AutoCloseable {
    private final List<VoleryNode> nodes = new ArrayList<>();
    private final ClusterConfig config;

    /**
     * @param firstClientPort the first node's client port (the others follow), or 0 for free ports
     */
    public VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis) throws IOException {
        this(partitions, replicas, firstClientPort, tickTimeMillis, -1, o -> o);
    }

    /**
     * @param firstMetricsPort the first node's Prometheus port (the others follow), 0 for free ports,
     *                         -1 for no metrics endpoint
     */
    public VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis, int firstMetricsPort)
            throws IOException {
        this(partitions, replicas, firstClientPort, tickTimeMillis, firstMetricsPort, o -> o);
    }

    /**
     * @param options adjusts each node's options (super digest, container reaping, ...) after the client
     *                address and tick time are set
     */
    public VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis,
                         java.util.function.UnaryOperator<VoleryNode.Options> options) throws IOException {
        this(partitions, replicas, firstClientPort, tickTimeMillis, -1, options);
    }

    private VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis, int firstMetricsPort,
                          java.util.function.UnaryOperator<VoleryNode.Options> adjust) throws IOException {
        this(partitions, replicas, firstClientPort, tickTimeMillis, firstMetricsPort, c -> c, adjust);
    }

    /**
     * @param rings   adjusts the generated cluster configuration (e.g. {@code c -> c.withPeerTls(tls)}: TLS
     *                between the nodes)
     * @param options adjusts each node's options, as above
     */
    public VoleryCluster(int partitions, int replicas, int tickTimeMillis,
                         java.util.function.UnaryOperator<ClusterConfig> rings,
                         java.util.function.UnaryOperator<VoleryNode.Options> options) throws IOException {
        this(partitions, replicas, 0, tickTimeMillis, -1, rings, options);
    }

    /**
     * The same with each node's AdminServer commands (ADR 068) on {@code firstAdminPort} and the ports after it (0:
     * free ports, -1: none).
     */
    public VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis, int firstMetricsPort,
                         int firstAdminPort) throws IOException {
        this(partitions, replicas, firstClientPort, tickTimeMillis, firstMetricsPort, firstAdminPort, c -> c, o -> o);
    }

    private VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis, int firstMetricsPort,
                          java.util.function.UnaryOperator<ClusterConfig> rings,
                          java.util.function.UnaryOperator<VoleryNode.Options> adjust) throws IOException {
        this(partitions, replicas, firstClientPort, tickTimeMillis, firstMetricsPort, -1, rings, adjust);
    }

    private VoleryCluster(int partitions, int replicas, int firstClientPort, int tickTimeMillis, int firstMetricsPort,
                          int firstAdminPort, java.util.function.UnaryOperator<ClusterConfig> rings,
                          java.util.function.UnaryOperator<VoleryNode.Options> adjust) throws IOException {
        if (partitions < 1 || replicas < 1) {
            throw new IllegalArgumentException("need at least one partition of one replica");
        }
        this.config = rings.apply(ClusterConfig.parse(clusterFile(partitions, replicas), "volery-dev"));
        try {
            for (int n = 1; n <= partitions * replicas; n++) {
                int port = firstClientPort == 0 ? 0 : firstClientPort + n - 1;
                VoleryNode.Options options = VoleryNode.Options.at(new InetSocketAddress("127.0.0.1", port))
                        .withTickTime(tickTimeMillis);
                if (firstMetricsPort >= 0) {
                    int metricsPort = firstMetricsPort == 0 ? 0 : firstMetricsPort + n - 1;
                    options = options.withMetrics(new InetSocketAddress("127.0.0.1", metricsPort));
                }
                if (firstAdminPort >= 0) {
                    int adminPort = firstAdminPort == 0 ? 0 : firstAdminPort + n - 1;
                    options = options.withAdminServer(new InetSocketAddress("127.0.0.1", adminPort));
                }
                nodes.add(new VoleryNode(config, n, adjust.apply(options)));
            }
            List<io.volery.server.tree.EnsembleConfig.Member> members = new java.util.ArrayList<>();
            for (VoleryNode n : nodes) {
                ClusterConfig.Node ring = config.node(n.nodeId());
                members.add(new io.volery.server.tree.EnsembleConfig.Member(n.nodeId(), ring.host(), ring.port(),
                        n.clientAddress().getHostString(), n.clientAddress().getPort()));
            }
            nodes.forEach(n -> n.publishEnsemble(members));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Partition p's replicas are nodes (p-1)*R+1 .. p*R; each partition has its ring; ALL spans partitions. */
    static String clusterFile(int partitions, int replicas) throws IOException {
        StringBuilder b = new StringBuilder("# generated by VoleryCluster\n");
        // every request ZooKeeper accepts (up to jute.maxbuffer) must fit one multicast message
        b.append("batch.maxBytes = ").append(io.volery.server.tree.TreeConfig.DEFAULT_MAX_BUFFER
                + VoleryNode.COMMAND_OVERHEAD_BYTES).append('\n');
        int nodes = partitions * replicas;
        for (int n = 1; n <= nodes; n++) {
            b.append("node.").append(n).append(" = 127.0.0.1:").append(freePort()).append('\n');
            b.append("node.").append(n).append(".groups = ").append((n - 1) / replicas + 1).append('\n');
        }
        for (int p = 1; p <= partitions; p++) {
            StringJoiner acceptors = new StringJoiner(",");
            for (int r = 0; r < replicas; r++) {
                acceptors.add(String.valueOf((p - 1) * replicas + r + 1));
            }
            b.append("ring.").append(p).append(".acceptors = ").append(acceptors).append('\n');
            b.append("group.").append(p).append(".ring = ").append(p).append('\n');
        }
        // ALL: up to three acceptors taken round-robin across partitions.
        StringJoiner all = new StringJoiner(",");
        int taken = 0;
        for (int r = 0; r < replicas && taken < 3; r++) {
            for (int p = 0; p < partitions && taken < 3; p++) {
                all.add(String.valueOf(p * replicas + r + 1));
                taken++;
            }
        }
        b.append("ring.0.acceptors = ").append(all).append('\n');
        b.append("ring.all = 0\n");
        return b.toString();
    }

    /** A free port on 127.0.0.1 below the ephemeral range; see {@link LoopbackPorts}. */
    public static int freePort() {
        return LoopbackPorts.free();
    }

    public List<VoleryNode> nodes() {
        return nodes;
    }

    /** The partition ids (the cluster file's groups), ascending. */
    public int[] partitions() {
        return config.groups().stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    public ClusterConfig config() {
        return config;
    }

    /** The ZooKeeper connect string listing every node. */
    public String connectString() {
        StringJoiner j = new StringJoiner(",");
        for (VoleryNode n : nodes) {
            j.add("127.0.0.1:" + n.clientAddress().getPort());
        }
        return j.toString();
    }

    @Override
    public void close() {
        for (VoleryNode n : nodes) {
            try {
                n.close();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        }
    }
}
