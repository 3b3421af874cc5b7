package io.volery.client;

import io.volery.server.config.VoleryConfig;

import io.eyrie.multicast.ClusterConfig;
import io.volery.server.VoleryNode;
import io.volery.server.tree.TreeConfig;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * A Volery cluster of {@code partitions × replicas} servers on loopback, in this JVM, whose cluster
 * file also lists {@code clientNodes} nodes without groups for native clients. Ports are free ones.
 */
public final class ClusterWithClientNodes implements AutoCloseable {
    private final ClusterConfig config;
    private final String text;
    private final List<VoleryNode> servers = new ArrayList<>();

    public ClusterWithClientNodes(int partitions, int replicas, int clientNodes, int tickTimeMillis) throws IOException {
        this(partitions, replicas, clientNodes, tickTimeMillis, VoleryConfig.Partitioning.SUBTREE);
    }

    public ClusterWithClientNodes(int partitions, int replicas, int clientNodes, int tickTimeMillis,
                                  VoleryConfig.Partitioning partitioning) throws IOException {
        this.text = clusterFile(partitions, replicas, clientNodes);
        this.config = ClusterConfig.parse(text, "test-cluster");
        try {
            for (int n = 1; n <= partitions * replicas; n++) {
                servers.add(new VoleryNode(config, n, VoleryNode.Options.at(new InetSocketAddress("127.0.0.1", 0))
                        .withTickTime(tickTimeMillis).withPartitioning(partitioning)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Replicas are nodes 1..P*R (partition p: (p-1)*R+1..p*R); client nodes follow them. */
    private static String clusterFile(int partitions, int replicas, int clientNodes) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("batch.maxBytes = ").append(TreeConfig.DEFAULT_MAX_BUFFER + VoleryNode.COMMAND_OVERHEAD_BYTES).append('\n');
        int servers = partitions * replicas;
        for (int n = 1; n <= servers + clientNodes; n++) {
            b.append("node.").append(n).append(" = 127.0.0.1:").append(freePort()).append('\n');
            if (n <= servers) {
                b.append("node.").append(n).append(".groups = ").append((n - 1) / replicas + 1).append('\n');
            }
        }
        for (int p = 1; p <= partitions; p++) {
            StringJoiner acceptors = new StringJoiner(",");
            for (int r = 1; r <= replicas; r++) {
                acceptors.add(String.valueOf((p - 1) * replicas + r));
            }
            b.append("ring.").append(p).append(".acceptors = ").append(acceptors).append('\n');
            b.append("group.").append(p).append(".ring = ").append(p).append('\n');
        }
        StringJoiner all = new StringJoiner(",");
        for (int i = 0; i < Math.min(3, servers); i++) {
            // one acceptor from each partition in turn
            int p = i % partitions;
            int r = i / partitions;
            all.add(String.valueOf(p * replicas + r + 1));
        }
        b.append("ring.0.acceptors = ").append(all).append('\n');
        b.append("ring.all = 0\n");
        return b.toString();
    }

    private static int freePort() throws IOException {
        return io.volery.server.VoleryCluster.freePort();
    }

    public ClusterConfig config() {
        return config;
    }

    /** The cluster file's text, for clients that read it from disk. */
    public String clusterFileText() {
        return text;
    }

    public List<VoleryNode> servers() {
        return servers;
    }

    /** The ZooKeeper connect string of every server's front end. */
    public String connectString() {
        StringJoiner j = new StringJoiner(",");
        for (VoleryNode n : servers) {
            j.add("127.0.0.1:" + n.clientAddress().getPort());
        }
        return j.toString();
    }

    @Override
    public void close() {
        for (VoleryNode n : servers) {
            try {
                n.close();
            } catch (RuntimeException e) {
                // keep closing the others
            }
        }
    }
}
