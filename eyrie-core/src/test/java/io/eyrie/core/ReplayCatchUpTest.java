package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ADR 055: partitions that replay from the beginning at once, with deferred rounds (ADR 036) in every
 * command, get what they ask for in catch-up bursts that carry every round, and a burst does not send
 * an asker again what a recent one carried. Each "relay" has signals and two deferred rounds from
 * every partition to every other; every replica but partition 1's first restarts with no checkpoint,
 * partition 3's a second after the others (as in session 27's Jepsen kill runs, where a whole
 * partition and two replicas of another replayed at once and the cluster stopped serving).
 */
class ReplayCatchUpTest {

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Runs {@code commands} relays, restarts every replica but partition 1's first and waits until all replayed. */
    private void relaysThenReplay(int replicasPerPartition, int commands, long exchangeTimeoutMillis) throws Exception {
        cluster = new SimCluster(3, replicasPerPartition, 1, 1, DeferredRoundsTest.DeferringMachine::new,
                m -> m.setExchangeTimeoutMillis(exchangeTimeoutMillis))
                .withClients(new DeferredRoundsTest.Oracle(), 4, 60_000);
        EyrieClient client = cluster.client(0);
        for (int k = 1; k <= commands; k++) {
            assertEquals((6 * k) + "/" + (18 * k + 6), client.execute(new Command("relay", k)),
                    "relay " + k);
        }
        cluster.awaitQuiescent();
        int[] p1 = cluster.sim.replicasOf(1);
        int[] p3 = cluster.sim.replicasOf(3);
        int[] restarted = IntStream.concat(Arrays.stream(p1).skip(1),
                IntStream.concat(Arrays.stream(cluster.sim.replicasOf(2)), Arrays.stream(p3))).toArray();
        for (int node : restarted) {
            cluster.crash(node);
        }
        for (int node : restarted) {
            if (Arrays.stream(p3).noneMatch(n -> n == node)) {
                cluster.startReplica(node);
            }
        }
        Thread.sleep(1_000);
        for (int node : p3) {
            cluster.startReplica(node);
        }
        try {
            SimCluster.awaitTrue("every restarted replica replayed the relays", () -> Arrays.stream(restarted).allMatch(
                    n -> cluster.<DeferredRoundsTest.DeferringMachine>replica(n).relayed.get() == commands),
                    Duration.ofSeconds(60));
        } catch (AssertionError e) {
            // where each replica stands, for a replay that stalled (seen once in about 30 local runs, not explained)
            StringBuilder where = new StringBuilder(e.getMessage());
            for (int n : cluster.replicas().keySet()) {
                where.append("\nnode ").append(n).append(": relayed ")
                        .append(cluster.<DeferredRoundsTest.DeferringMachine>replica(n).relayed.get())
                        .append(", deliveries waiting ").append(cluster.runtime(n).deliveriesWaiting())
                        .append(", skipped ").append(cluster.stats(n).catchUpsSkipped.get())
                        .append(", gone ").append(cluster.stats(n).gonesSent.get()).append(", ").append(cluster.stats(n));
            }
            throw new AssertionError(where.toString(), e);
        }
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
    }

    @Test
    void replayingPartitionsGetDeferredRoundsWithTheCatchUpNotByOneAskEach() throws Exception {
        int commands = 100;
        relaysThenReplay(3, commands, 200);
        for (int node : cluster.replicas().keySet()) {
            if (node == cluster.sim.replicasOf(1)[0]) {
                continue;
            }
            long asks = cluster.stats(node).asksSent.get();
            // a burst of signals alone left each replayer asking for each deferred round: ~800 asks here
            assertTrue(asks < commands / 2, "replica " + node + " sent " + asks + " asks to replay " + commands
                    + " relays; the catch-up bursts should carry the deferred rounds too. " + cluster.stats(node));
        }
    }

    @Test
    void aBurstDoesNotSendAnAskerWhatARecentBurstCarried() throws Exception {
        int commands = 200;
        // a burst is remembered for 25 exchange timeouts (at least 5 s): 400 ms gives a slow machine 10 s
        // to replay before a burst may carry again what an earlier one did
        relaysThenReplay(1, commands, 400);
        int up = cluster.sim.replicasOf(1)[0];
        // the two replayers (partitions 2 and 3) each need from partition 1 a signal and two deferred
        // rounds per relay; partition 1's one replica holds them all and is asked by both
        long needed = 2L * 3 * commands;
        long sent = cluster.stats(up).catchUpExchangesSent.get();
        assertTrue(sent <= needed, "partition 1's replica sent " + sent + " catch-up exchanges, more than the " + needed
                + " its askers lack between them: some went twice. " + cluster.stats(up));
    }
}
