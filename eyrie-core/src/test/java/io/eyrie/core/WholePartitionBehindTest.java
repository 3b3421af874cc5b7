package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every replica of a partition falls behind at once (its ring stalls: a paused node, a partitioned
 * coordinator) while the other partition goes on delivering cross-partition commands and keeping their
 * exchanges. When the lagging partition comes back, none of its replicas is ahead to take a state
 * image from, so it must find the other partition's exchanges still kept, however far behind it is:
 * the other partition forgets an exchange only once some replica of every partition it is for has
 * reported finishing it (ADR 049). Before that, the exchanges went after {@code sentPositionsMax}
 * newer positions, the lagging replicas were told "no longer kept", found no peer ahead, and waited
 * for an image forever (found by the Jepsen matrix's pause run of session 24).
 */
class WholePartitionBehindTest {

    /** Exchanges kept and buffered per replica: small, so that a hundred commands outrun both. */
    private static final int WINDOW = 16;
    private static final int COMMANDS = 200;

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWholePartitionFurtherBehindThanTheExchangeWindowCatchesUpWithoutAPeerAhead() throws Exception {
        cluster = new SimCluster(2, 3, 2, 11, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setSentPositionsMax(WINDOW);
            m.setInboxPositionsMax(WINDOW);
        }).withClients(new RegisterMachine.Oracle(), COMMANDS, 60_000); // room for every command at once
        EyrieClient client = cluster.client(0);
        assertEquals("ok", client.execute(new Command("writeAll", 0, "x1", "y2")));

        // partition 2 delivers nothing for a while; partition 1 delivers every command and keeps (and
        // sends) its signal for each, far more than WINDOW of them
        cluster.sim.pausePartition(2);
        List<CompletableFuture<Object>> replies = new ArrayList<>();
        for (int v = 1; v <= COMMANDS; v++) {
            replies.add(cluster.client(v % 2).executeAsync(new Command("writeAll", v, "x1", "y2")));
        }
        int p1 = cluster.sim.replicasOf(1)[0];
        SimCluster.awaitTrue("partition 1 delivers all " + COMMANDS + " commands",
                () -> cluster.sim.delivered(p1).size() >= COMMANDS + 1);
        cluster.sim.resumePartition(2);

        for (int v = 1; v <= COMMANDS; v++) {
            assertEquals("ok", replies.get(v - 1).get(30, TimeUnit.SECONDS), "writeAll " + v);
        }
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(0, cluster.total(s -> s.stateTransfers.get()), "no replica should need a state image");
        assertEquals(0, cluster.total(s -> s.gonesSent.get()), "no exchange asked for should be gone");
        for (int p = 1; p <= 2; p++) {
            for (int node : cluster.sim.replicasOf(p)) {
                RegisterMachine m = (RegisterMachine) cluster.replica(node);
                assertEquals(COMMANDS, m.valueOf(p == 1 ? "x1" : "y2"), "the last write at replica " + node);
            }
        }
        // and the cluster goes on
        assertEquals(2 * COMMANDS, client.execute(new Command("sum", "x1", "y2")));
    }
}
