package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A command that runs without signals ({@link PartitioningOracle#executesIndependently}) is answered by
 * the first partition that executes it, possibly before another destination even delivered it. The
 * client then tells every partition, with its next commands, that it holds that reply; a partition that
 * learns so (from a command to it alone, which its own ring ordered first) before it delivered the
 * independent command must still execute it: a replica skips a command whose reply the client holds
 * only when its partition already ran it. Found by the Jepsen partition-bridge run of session 25: one
 * partition skipped a session touch, so the partitions' session deadlines parted, a later tick expired a
 * session in one partition only, and its exchange of the expired session's ephemerals waited forever.
 */
class IndependentCommandNotSkippedTest {

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPartitionThatLearnsOfTheReplyFirstStillExecutesTheIndependentCommand() throws Exception {
        cluster = new SimCluster(2, 3, 2, 11, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new RegisterMachine.Oracle(), 16, 60_000);
        EyrieClient client = cluster.client(0);
        assertEquals("ok", client.execute(new Command("writeAll", 1, "x1", "y2")));

        cluster.sim.pausePartition(2);
        // partition 1 alone executes and answers it
        assertEquals("ok", client.execute(new Command("writeEach", 7, "x1", "y2")));
        // to partition 2 only, saying the client holds every reply before it; partition 2's ring orders
        // it before the ALL ring's writeEach (that ring is far ahead in rounds)
        CompletableFuture<Object> read = client.executeAsync(new Command("read", "y2"));
        Thread.sleep(500);
        cluster.sim.resumePartition(2);
        read.get(30, TimeUnit.SECONDS);

        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        for (int p = 1; p <= 2; p++) {
            for (int node : cluster.sim.replicasOf(p)) {
                RegisterMachine m = (RegisterMachine) cluster.replica(node);
                assertEquals(7, m.valueOf(p == 1 ? "x1" : "y2"), "replica " + node + " of partition " + p
                        + " executed the independent write");
            }
        }
    }
}
