package io.volery.server;

import io.eyrie.core.EyrieClient;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;
import io.volery.server.frontend.ZkFrontEnd;
import io.volery.server.internal.PathPartitioner;
import io.volery.server.internal.VoleryOracle;
import io.volery.server.internal.VoleryService;
import io.volery.server.internal.VoleryStateMachine;
import io.volery.server.tree.TreeConfig;
import io.volery.server.tree.ZnodeTree;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One Volery server: a replica of one partition (with its acceptor roles in the rings) and a
 * ZooKeeper front end whose sessions it serves as the Eyrie client.
 */
public final class VoleryNode implements AutoCloseable {

    /** Settings of a node beyond the cluster file. */
    public record Options(InetSocketAddress clientAddress, int tickTimeMillis, int juteMaxBuffer, String superDigest,
                          long touchIntervalMillis, boolean reapsContainers) {
        public Options(InetSocketAddress clientAddress, int tickTimeMillis, int juteMaxBuffer, String superDigest,
                       long touchIntervalMillis) {
            this(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis, true);
        }

        public static Options at(InetSocketAddress clientAddress) {
            return new Options(clientAddress, 2000, TreeConfig.DEFAULT_MAX_BUFFER, null, 500);
        }

        /** Off only to compare with a ZooKeeper whose container manager is off: containers and TTL nodes stay. */
        public Options withContainerReaping(boolean reaps) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis, reaps);
        }

        public Options withTickTime(int millis) {
            return new Options(clientAddress, millis, juteMaxBuffer, superDigest, touchIntervalMillis, reapsContainers);
        }

        public Options withSuperDigest(String digest) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, digest, touchIntervalMillis, reapsContainers);
        }

        public Options withJuteMaxBuffer(int bytes) {
            return new Options(clientAddress, tickTimeMillis, bytes, superDigest, touchIntervalMillis, reapsContainers);
        }
    }

    private final int nodeId;
    private final MulticastNode multicast;
    private final VoleryStateMachine replica;
    private final EyrieClient client;
    private final VoleryService service;
    private final ZkFrontEnd frontEnd;

    public VoleryNode(ClusterConfig config, int nodeId, Options options) {
        Objects.requireNonNull(options, "options");
        this.nodeId = nodeId;
        int[] groups = config.node(nodeId).groups();
        if (groups.length != 1) {
            throw new IllegalArgumentException("node." + nodeId + ".groups must name exactly one partition, got "
                    + java.util.Arrays.toString(groups));
        }
        int[] partitions = config.groups().stream().mapToInt(Integer::intValue).toArray();
        VoleryOracle oracle = new VoleryOracle(new PathPartitioner(partitions), groups[0]);
        this.multicast = MulticastNode.builder(config, nodeId).build();
        TreeConfig treeConfig = new TreeConfig(options.tickTimeMillis(), options.juteMaxBuffer(), options.superDigest(), true,
                options.reapsContainers());
        this.replica = new VoleryStateMachine(multicast, oracle, treeConfig);
        replica.runStateMachine();
        this.client = new EyrieClient(multicast, oracle, 100_000, 10_000);
        this.service = new VoleryService(multicast, client, oracle, options.touchIntervalMillis());
        this.frontEnd = new ZkFrontEnd(options.clientAddress(), service, options.juteMaxBuffer() + 1024, 2);
    }

    public int nodeId() {
        return nodeId;
    }

    /** Where ZooKeeper clients connect. */
    public InetSocketAddress clientAddress() {
        return frontEnd.localAddress();
    }

    /** This replica's tree: for tests and tools, read only while no command runs. */
    public ZnodeTree tree() {
        return replica.tree();
    }

    public MulticastNode multicast() {
        return multicast;
    }

    @Override
    public void close() {
        frontEnd.close();
        service.close();
        client.close();
        replica.close();
        multicast.close();
    }
}
