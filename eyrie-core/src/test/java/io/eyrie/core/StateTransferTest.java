package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica that restarts further behind than the other partitions keep their exchanges
 * ({@code sentPositionsMax}) cannot replay the cross-partition commands it missed: the other
 * partition answers its asks with "no longer kept", and it takes the state of a peer of its own
 * partition instead, skips the deliveries that state covers, and executes the rest normally.
 */
class StateTransferTest {

    /** Exchanges each replica keeps: small, so that a few dozen commands outrun it. */
    private static final int WINDOW = 16;

    /** Registers of the wide writes: enough for an image of several chunks. */
    private static final int REGISTERS = 8000;

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void start(int sentPositionsMax, Path checkpoints, int checkpointInterval) {
        cluster = new SimCluster(2, 3, 1, 7, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setSentPositionsMax(sentPositionsMax);
            if (checkpoints != null) {
                m.setCheckpointing(checkpoints.resolve("replica-" + ((RegisterMachine) m).nodeIdForTest()),
                        checkpointInterval);
            }
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
    }

    /** Cross-partition sums (and single-partition adds) whose replies are checked as they come. */
    private static int[] runCrossPartitionLoad(EyrieClient client, int rounds, int[] xy) {
        for (int i = 1; i <= rounds; i++) {
            xy[0] += i;
            xy[1] += 2 * i;
            assertEquals(xy[0], client.execute(new Command("add", "x1", i)), "x1 after adding " + i);
            assertEquals(xy[1], client.execute(new Command("add", "y2", 2 * i)), "y2 after adding " + 2 * i);
            assertEquals(xy[0] + xy[1], client.execute(new Command("sum", "x1", "y2")), "sum x1 y2 in round " + i);
        }
        return xy;
    }

    /** Many registers of partition 1 and one of partition 2 in one blind write: a state image of several chunks. */
    private static Command wideWrite(int value, int registers) {
        List<Object> args = new ArrayList<>();
        args.add("writeAll");
        args.add(value);
        for (int i = 0; i < registers; i++) {
            args.add("x1r" + i);
        }
        args.add("y2w");
        return new Command(args.toArray());
    }

    /**
     * Partition 2 forgets the exchanges beyond WINDOW once partition 1's replicas have reported finishing
     * them (ADR 049; they report every half second): only then is a restarted replica of partition 1
     * further behind than partition 2 keeps.
     */
    private void awaitPartitionTwoForgets() {
        SimCluster.awaitTrue("partition 2 keeps no more than " + WINDOW + " commands' exchanges", () ->
                java.util.Arrays.stream(cluster.sim.replicasOf(2)).allMatch(n -> cluster.runtime(n).exchangesKept() <= WINDOW));
    }

    private void assertPartitionAgrees(int partition, String register, int expected) {
        for (int node : cluster.sim.replicasOf(partition)) {
            assertEquals(expected, ((RegisterMachine) cluster.replica(node)).valueOf(register),
                    register + " at replica " + node + " of partition " + partition);
        }
    }

    /**
     * One replica of partition 2 keeps few exchanges, its peers keep many: a replica of partition 1
     * restarted far behind hears "no longer kept" from that one first (its peers' answers are held back
     * until then), and still replays from the peers' answers instead of taking a state image.
     */
    @Test
    void oneOwnerReplicaThatNoLongerKeepsAnExchangeDoesNotForceAStateTransfer() {
        int forgetful = 4;
        cluster = new SimCluster(2, 3, 1, 7, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setSentPositionsMax(((RegisterMachine) m).nodeIdForTest() == forgetful ? WINDOW : 4096);
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
        int[] owners = cluster.sim.replicasOf(2);
        assertEquals(forgetful, owners[0], "partition 2's replicas: " + java.util.Arrays.toString(owners));
        EyrieClient client = cluster.client(0);
        int[] xy = runCrossPartitionLoad(client, 3, new int[2]);
        int victim = cluster.sim.replicasOf(1)[2];
        cluster.crash(victim);
        runCrossPartitionLoad(client, 4 * WINDOW, xy);
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("node " + forgetful + " forgets", () -> cluster.runtime(forgetful).exchangesKept() <= WINDOW);
        assertTrue(cluster.runtime(owners[1]).exchangesKept() > 4 * WINDOW, "its peers keep them");

        java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean(true);
        cluster.sim.cutDirect((from, to) -> held.get() && to == victim && (from == owners[1] || from == owners[2]));
        cluster.startReplica(victim); // no checkpoint: replays from the start
        SimCluster.awaitTrue("the forgetful replica answers an ask first", () -> cluster.stats(victim).gonesReceived.get() > 0);
        held.set(false);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(0, cluster.stats(victim).stateTransfers.get(), "the peers' answers were enough: " + cluster.stats(victim));
        assertPartitionAgrees(1, "x1", xy[0]);
        assertPartitionAgrees(2, "y2", xy[1]);
    }

    @Test
    void aReplicaRestartedFurtherBehindThanTheExchangeWindowCatchesUpByStateTransfer() {
        restartFarBehindAndCatchUp(0);
    }

    @Test
    void aStateTransferSurvivesLostAndDuplicatedMessages() {
        restartFarBehindAndCatchUp(0.2);
    }

    /** {@code loss}: the share of direct messages lost (and duplicated) while the restarted replica catches up. */
    private void restartFarBehindAndCatchUp(double loss) {
        start(WINDOW, null, 0);
        EyrieClient client = cluster.client(0);
        int[] xy = runCrossPartitionLoad(client, 3, new int[2]);
        int victim = cluster.sim.replicasOf(1)[2];
        cluster.crash(victim);
        for (int v = 1; v <= 3; v++) {
            assertEquals("ok", client.execute(wideWrite(v, REGISTERS)), "wide write " + v);
        }
        runCrossPartitionLoad(client, 4 * WINDOW, xy);
        cluster.awaitQuiescent();
        awaitPartitionTwoForgets();

        cluster.sim.setDirectFaults(loss, loss / 2, 0);
        RegisterMachine restarted = (RegisterMachine) cluster.startReplica(victim); // no checkpoint: replays from the start
        cluster.awaitQuiescent();
        cluster.sim.setDirectFaults(0, 0, 0);
        cluster.assertNoReplicaFailed();
        assertTrue(cluster.stats(victim).stateTransfers.get() > 0, "the restarted replica should have taken a peer's "
                + "state; its counters: " + cluster.stats(victim));
        assertTrue(cluster.stats(victim).stateTransferBytes.get() > 2 * 48 * 1024, "the image should span several "
                + "48 KiB chunks, but was " + cluster.stats(victim).stateTransferBytes + " bytes");
        assertTrue(cluster.stats(victim).deliveriesSkipped.get() > 0,
                "deliveries covered by the image are skipped; counters: " + cluster.stats(victim));
        assertEquals(xy[0], restarted.valueOf("x1"), "x1 at the restarted replica");
        assertEquals(3, restarted.valueOf("x1r0"), "first register of the last wide write at the restarted replica");
        assertEquals(3, restarted.valueOf("x1r" + (REGISTERS - 1)), "last register of the last wide write at the restarted replica");

        long executedBefore = cluster.stats(victim).commandsExecuted.get();
        runCrossPartitionLoad(client, 5, xy);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(executedBefore + 10, cluster.stats(victim).commandsExecuted.get(),
                "after catching up the replica executes every later command of its partition (5 adds of x1, 5 sums)");
        assertPartitionAgrees(1, "x1", xy[0]);
        assertPartitionAgrees(2, "y2", xy[1]);
        assertEquals(0, cluster.total(s -> s.stateTransfers.get()) - cluster.stats(victim).stateTransfers.get(),
                "only the restarted replica should transfer state");
    }

    @Test
    void aReplicaThatCanReplayWithinTheExchangeWindowNeverTransfersState() {
        start(1000, null, 0);
        EyrieClient client = cluster.client(0);
        int[] xy = runCrossPartitionLoad(client, 3, new int[2]);
        int victim = cluster.sim.replicasOf(1)[2];
        cluster.crash(victim);
        runCrossPartitionLoad(client, 2 * WINDOW, xy);

        RegisterMachine restarted = (RegisterMachine) cluster.startReplica(victim);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(0, cluster.stats(victim).stateTransfers.get(), "counters: " + cluster.stats(victim));
        assertEquals(0, cluster.stats(victim).deliveriesSkipped.get(), "counters: " + cluster.stats(victim));
        assertEquals(2L * (3 + 2 * WINDOW), cluster.stats(victim).commandsExecuted.get(),
                "the restarted replica replays every add of x1 and every sum");
        assertEquals(xy[0], restarted.valueOf("x1"), "x1 at the restarted replica");
        assertEquals(0, cluster.total(s -> s.gonesSent.get()), "no replica should have answered 'no longer kept'");
    }

    @Test
    void aReplicaWithAnOldCheckpointCatchesUpByStateTransferAndCheckpointsSoonAfter(@TempDir Path dir) {
        start(WINDOW, dir, 10);
        EyrieClient client = cluster.client(0);
        int[] xy = runCrossPartitionLoad(client, 5, new int[2]);
        int victim = cluster.sim.replicasOf(1)[1];
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("the victim has a checkpoint on disk", () ->
                cluster.runtime(victim).durableCheckpointPosition() != io.eyrie.multicast.Position.NONE
                        && !cluster.runtime(victim).checkpointWritePending());
        long oldCheckpoint = cluster.runtime(victim).durableCheckpointPosition();
        cluster.crash(victim);
        runCrossPartitionLoad(client, 3 * WINDOW, xy);
        awaitPartitionTwoForgets();

        cluster.startReplica(victim);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertTrue(cluster.stats(victim).stateTransfers.get() > 0, "counters: " + cluster.stats(victim));
        assertPartitionAgrees(1, "x1", xy[0]);
        long transferredTo = cluster.runtime(victim).lastPosition();
        runCrossPartitionLoad(client, 2, xy); // a delivery past the image tags a checkpoint
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("a checkpoint past the transferred state is written", () ->
                cluster.runtime(victim).durableCheckpointPosition() >= transferredTo
                        && !cluster.runtime(victim).checkpointWritePending());
        assertTrue(cluster.runtime(victim).durableCheckpointPosition() > oldCheckpoint, "checkpoint moved on");
        assertPartitionAgrees(1, "x1", xy[0]);
    }
}
