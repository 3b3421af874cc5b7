package io.volery.bench;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.internal.PathPartitioner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@code --owner-affinity} against a 2 x 3 Volery cluster: every client's session starts at a server of
 * the partition that owns its subtree (as the cluster's own partitioner places the subtree), and a run
 * with it completes without errors.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OwnerAffinityTest {
    static VoleryCluster cluster;
    static String connect;

    @BeforeAll
    static void start() throws Exception {
        // conf is not among the four-letter words answered by default (as in ZooKeeper); benchmark clusters allow all
        cluster = new VoleryCluster(2, 3, 0, 2000, o -> o.withFourLetterWords(java.util.Set.of("srvr", "conf")));
        // the servers in an order unlike the partitions', so that "server i mod n" would be wrong
        List<VoleryNode> nodes = cluster.nodes();
        connect = List.of(nodes.get(5), nodes.get(0), nodes.get(4), nodes.get(1), nodes.get(3), nodes.get(2)).stream()
                .map(n -> "127.0.0.1:" + n.clientAddress().getPort()).collect(Collectors.joining(","));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyClientStartsAtAServerOfItsSubtreesPartition() {
        // 8 subtrees: 4 in each of the 2 partitions (1 and 2 alone would both land in partition 2)
        BenchConfig config = BenchConfig.defaults(connect, Workload.SETDATA).withClients(24)
                .withShape(100, 80, 8, 0).withClientPerSubtree(true).withOwnerAffinity(true).validate();
        int[] first = OwnerAffinity.firstServers(config);
        assertNotNull(first, "the Volery servers say their partitions");
        List<VoleryNode> inOrder = List.of(cluster.nodes().get(5), cluster.nodes().get(0), cluster.nodes().get(4),
                cluster.nodes().get(1), cluster.nodes().get(3), cluster.nodes().get(2));
        PathPartitioner partitioner = new PathPartitioner(new int[] {1, 2});
        ZnodeLayout layout = new ZnodeLayout(80, 8);
        java.util.Set<Integer> used = new java.util.TreeSet<>();
        for (int i = 0; i < first.length; i++) {
            int owner = partitioner.ownerOf(layout.subtree(i % 8));
            VoleryNode server = inOrder.get(first[i]);
            assertEquals(owner, server.monitor().facts().partition(),
                    "client " + i + " (subtree " + layout.subtree(i % 8) + ") starts at node " + server.nodeId());
            used.add(first[i]);
        }
        assertEquals(6, used.size(), "24 clients over 8 subtrees (3 per subtree) use every server");
    }

    @Test
    void aRunWithOwnerAffinityCompletes() throws Exception {
        BenchConfig config = BenchConfig.defaults(connect, Workload.SETDATA).withClients(4)
                .withShape(100, 80, 8, 0).withTimes(Duration.ZERO, Duration.ofSeconds(1)).withClientPerSubtree(true)
                .withOwnerAffinity(true).withProgress(false).validate();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        BenchReport report = new LoadGenerator(config, new PrintStream(err, true, StandardCharsets.UTF_8)).run();
        assertEquals(0, report.errorCount(), "errors: " + err.toString(StandardCharsets.UTF_8));
        org.junit.jupiter.api.Assertions.assertTrue(report.operations() > 0);
    }

    @Test
    void withoutTheOptionNoPlacementIsMade() {
        BenchConfig config = BenchConfig.defaults(connect, Workload.SETDATA).withClientPerSubtree(true);
        assertNull(new ZooKeeperTarget(config).placement(), "sessions take the servers in turn");
    }
}
