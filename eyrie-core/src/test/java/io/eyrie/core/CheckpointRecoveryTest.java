package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;
import io.eyrie.core.internal.Wire;
import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica snapshots its state, reply table and learner position inside the delivery order, tells
 * the multicast once the snapshot is durable, and on restart restores it and replays what follows.
 */
class CheckpointRecoveryTest {

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimCluster start(Path dir, int interval) {
        cluster = new SimCluster(2, 2, 1, 1, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setCheckpointing(dir.resolve("replica-" + m.getLocalPartition().getId() + "-"
                    + ((RegisterMachine) m).nodeIdForTest()), interval);
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
        return cluster;
    }

    @Test
    void aRestartedReplicaRestoresItsCheckpointReplaysTheRestAndAgreesWithItsPeer(@TempDir Path dir) throws Exception {
        start(dir, 3);
        EyrieClient client = cluster.client(0);
        for (int i = 1; i <= 7; i++) {
            client.execute(new Command("add", "x1", i));
            client.execute(new Command("sum", "x1", "y2"));
        }
        cluster.awaitQuiescent();
        int victim = cluster.sim.replicasOf(1)[1];
        // Checkpoints are written in the background, and acceptors are told of one once a newer one is
        // on disk. A busy machine can schedule the writer so late that the images captured meanwhile
        // supersede each other into a single write, which is never declared: then read-only commands
        // (they change no register) lead to the next checkpoint.
        int extra = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (cluster.sim.checkpointedPosition(victim) == Position.NONE || cluster.runtime(victim).checkpointWritePending()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until the replica declares a checkpoint durable ("
                    + extra + " read-only commands added)");
            if (!cluster.runtime(victim).checkpointWritePending()) { // nothing on its way, nothing declared
                client.execute(new Command("sum", "x1", "y2"));
                extra++;
            }
            Thread.sleep(10);
        }
        try (Stream<Path> files = Files.list(dir.resolve("replica-1-" + victim))) {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("checkpoint-")),
                    "a checkpoint file on disk");
        }
        cluster.crash(victim);
        for (int i = 1; i <= 3; i++) {
            client.execute(new Command("add", "x1", 100));
        }
        RegisterMachine restarted = (RegisterMachine) cluster.startReplica(victim);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        int expected = 28 + 300;
        assertEquals(expected, restarted.valueOf("x1"), "restarted replica's x1");
        assertEquals(expected, ((RegisterMachine) cluster.replica(cluster.sim.replicasOf(1)[0])).valueOf("x1"));
        long replayed = cluster.stats(victim).commandsExecuted.get();
        int total = 17 + extra;
        assertTrue(replayed < total, "the restarted replica should replay only what follows its checkpoint, but executed "
                + replayed + " of " + total + " commands");
    }

    /**
     * ADR 055: with a delivery count the cluster never reaches, a replica still checkpoints once the age
     * bound has passed, at its next delivery, and a restart replays only what follows. Without the bound
     * it never checkpoints and a restart replays everything (session 27's Jepsen kill runs: every
     * replica of a partition replayed its whole history at once).
     */
    @Test
    void aReplicaCheckpointsByAgeWhenTheCountIsFarOff(@TempDir Path dir) throws Exception {
        cluster = new SimCluster(2, 2, 1, 1, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setCheckpointing(dir.resolve("replica-" + m.getLocalPartition().getId() + "-"
                    + ((RegisterMachine) m).nodeIdForTest()), 1_000_000, Duration.ofMillis(200));
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
        EyrieClient client = cluster.client(0);
        for (int i = 1; i <= 5; i++) {
            client.execute(new Command("add", "x1", i));
        }
        Thread.sleep(300);
        client.execute(new Command("add", "x1", 6)); // the first delivery past the age bound
        cluster.awaitQuiescent();
        int victim = cluster.sim.replicasOf(1)[1];
        SimCluster.awaitTrue("replica " + victim + " checkpoints by age", () ->
                cluster.runtime(victim).durableCheckpointPosition() == cluster.runtime(victim).lastPosition());
        cluster.crash(victim);
        client.execute(new Command("add", "x1", 100));
        RegisterMachine restarted = (RegisterMachine) cluster.startReplica(victim);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(121, restarted.valueOf("x1"), "restarted replica's x1");
        assertEquals(1, cluster.stats(victim).commandsExecuted.get(),
                "the restarted replica should replay only the add after its checkpoint");
    }

    @Test
    void theReplyTableSurvivesARestartSoARetryIsNotExecutedAgain(@TempDir Path dir) throws Exception {
        start(dir, 1);
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[0]);
        List<Object> replies = new ArrayList<>();
        raw.onDirect((from, message) -> {
            synchronized (replies) {
                replies.add(Wire.decodeDirect(message));
            }
        });
        long clientId = ((long) raw.nodeId() << 32) | 3;
        byte[] add = Wire.encode(new Wire.Request(clientId, 1, 1, KryoCodec.encode(new Command("add", "x1", 5))));
        raw.multicast(new int[] {1}, add);
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            SimCluster.awaitTrue("replica " + node + " checkpoints the add", () ->
                    cluster.runtime(node).durableCheckpointPosition() == cluster.runtime(node).lastPosition());
        }
        for (int node : cluster.sim.replicasOf(1)) {
            cluster.crash(node);
        }
        for (int node : cluster.sim.replicasOf(1)) {
            cluster.startReplica(node);
        }
        raw.multicast(new int[] {1}, add); // the client's retry, after every replica of the partition restarted
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("4 replies (2 replicas x 2 deliveries)", () -> {
            synchronized (replies) {
                return replies.size() == 4;
            }
        });
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(5, ((RegisterMachine) cluster.replica(node)).valueOf("x1"), "x1 at replica " + node);
            assertEquals(0, cluster.stats(node).commandsExecuted.get(), "replica " + node + " re-executed a command");
            assertEquals(1, cluster.stats(node).duplicatesAnswered.get(), "replica " + node + " answers the retry");
        }
    }

    /**
     * After every replica of both partitions restarts, partition 1 resumes from a checkpoint taken
     * after a command that read both partitions, while partition 2 (no checkpoints) executes that
     * command again and needs partition 1's value of x1 as of it. Partition 1 does not execute it
     * again: the exchange must come from its checkpoint image.
     */
    @Test
    void aPartitionReplayingACrossPartitionCommandGetsTheExchangeFromAPeerThatRestoredPastIt(@TempDir Path dir)
            throws Exception {
        cluster = new SimCluster(2, 2, 1, 1, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            if (m.getLocalPartition().getId() == 1) {
                m.setCheckpointing(dir.resolve("replica-1-" + ((RegisterMachine) m).nodeIdForTest()), 1);
            }
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
        EyrieClient client = cluster.client(0);
        for (int i = 1; i <= 5; i++) {
            client.execute(new Command("add", "x1", i));
            client.execute(new Command("add", "y2", 10 * i));
            assertEquals(i * (i + 1) / 2 * 11, client.execute(new Command("sum", "x1", "y2")));
        }
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            SimCluster.awaitTrue("replica " + node + " checkpoints its last command", () ->
                    cluster.runtime(node).durableCheckpointPosition() == cluster.runtime(node).lastPosition()
                            && !cluster.runtime(node).checkpointWritePending());
        }
        List<Integer> all = new ArrayList<>();
        for (int p = 1; p <= 2; p++) {
            for (int node : cluster.sim.replicasOf(p)) {
                all.add(node);
            }
        }
        all.forEach(cluster::crash);
        all.forEach(cluster::startReplica);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(0, cluster.stats(node).commandsExecuted.get(),
                    "partition 1's replica " + node + " resumes after its checkpoint and executes nothing again");
        }
        for (int node : cluster.sim.replicasOf(2)) {
            assertEquals(10, cluster.stats(node).commandsExecuted.get(),
                    "partition 2's replica " + node + " replays its 5 adds and the 5 sums it takes part in");
            assertEquals(150, ((RegisterMachine) cluster.replica(node)).valueOf("y2"), "y2 at replica " + node);
        }
        assertEquals(15 + 150, client.execute(new Command("sum", "x1", "y2")),
                "a new command across both partitions completes after the restart");
    }

    /**
     * A replica restarted without a checkpoint replays every cross-partition command it missed. The
     * other partition sent those exchanges long ago, so the replayer must ask; an answer carries the
     * kept exchanges that follow too, so it asks a few times, not once per command.
     */
    @Test
    void aReplayingReplicaAsksForExchangesInBatchesNotOncePerCommand() throws Exception {
        cluster = new SimCluster(2, 2, 1, 1, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new RegisterMachine.Oracle(), 4, 60_000);
        EyrieClient client = cluster.client(0);
        int victim = cluster.sim.replicasOf(1)[1];
        cluster.crash(victim);
        int commands = 60;
        for (int i = 1; i <= commands; i++) {
            client.execute(new Command("add", "y2", 1));
            client.execute(new Command("sum", "x1", "y2"));
        }
        cluster.startReplica(victim);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(commands, cluster.stats(victim).commandsExecuted.get(), "the restarted replica replays the sums");
        long asks = cluster.stats(victim).asksSent.get();
        assertTrue(asks < commands / 2, "the replayer should get the following exchanges with each answer, but sent "
                + asks + " asks for " + commands + " cross-partition commands");
    }
}
