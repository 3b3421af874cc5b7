package io.eyrie.core;

import io.eyrie.multicast.MulticastEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An oracle that keeps {@link PartitioningOracle#getDestinations}'s default (every partition) sends to every
 * partition of its own cluster, also in a JVM that installed another cluster file after it: the JVM-wide
 * {@link Partition#getPartitionList()} is the last cluster's (the paper's static API), so the default that read it
 * sent a two-partition cluster's commands to partition 1 only once a one-partition cluster had started (ADR 086's
 * follow-up). An oracle serves one cluster and refuses a second with other partitions.
 */
class DefaultDestinationsTest {

    /** Counts what it executed; its oracle keeps the default destinations. */
    static final class Tally extends StateMachine {
        final AtomicInteger executed = new AtomicInteger();

        Tally(MulticastEndpoint endpoint) {
            super(endpoint, new Everywhere());
        }

        @Override
        public Object executeCommand(Command c) {
            executed.incrementAndGet();
            return "ran at " + getLocalPartition();
        }
    }

    /** Every command to every partition; objects live in the lowest partition. */
    static final class Everywhere extends PartitioningOracle {
        @Override
        public Partition getPartition(Object objectId) {
            return getClusterPartitions().get(0);
        }
    }

    private SimCluster two;
    private SimCluster one;

    @AfterEach
    void tearDown() {
        if (two != null) {
            two.close();
        }
        if (one != null) {
            one.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theDefaultDestinationsAreTheOraclesOwnClusterAfterAnotherIsInstalled() throws Exception {
        Everywhere twosOracle = new Everywhere();
        two = new SimCluster(2, 2, 1, 5, Tally::new, m -> { }).withClients(twosOracle, 4, 60_000);
        one = new SimCluster(1, 1, 1, 6, Tally::new, m -> { }).withClients(new Everywhere(), 4, 60_000);
        assertEquals(List.of(Partition.get(1)), Partition.getPartitionList(), "the JVM-wide list is the last cluster's");
        assertEquals(List.of(Partition.get(1), Partition.get(2)), twosOracle.getClusterPartitions());

        for (int i = 0; i < 3; i++) {
            assertTrue(String.valueOf(two.client(0).execute(new Command("tick", i))).startsWith("ran at "));
        }
        two.awaitQuiescent();
        two.assertNoReplicaFailed();
        for (int p = 1; p <= 2; p++) {
            for (int node : two.sim.replicasOf(p)) {
                assertEquals(3, ((Tally) two.replica(node)).executed.get(),
                        "replica " + node + " of partition " + p + " executed every command");
            }
        }

        // the two-partition cluster's oracle cannot serve the one-partition cluster too
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new EyrieClient(one.sim.endpoint(one.sim.clients()[0]), twosOracle));
        assertTrue(refused.getMessage().contains("give each cluster its own oracle"), refused.getMessage());
    }
}
