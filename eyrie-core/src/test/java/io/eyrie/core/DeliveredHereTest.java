package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EyrieClient#executeAsync(Command, Runnable)} with {@link EyrieClient#observeOrderAt}: a client on a
 * replica's node learns when that replica delivers its command, before the command runs.
 */
class DeliveredHereTest {

    private static final int X = 1;
    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theCallbackRunsOnceTheNodesReplicaDeliversTheCommand_beforeItRuns_andNeverForAnotherPartitionsCommand()
            throws Exception {
        cluster = new SimCluster(2, 2, 1, 1, RegisterMachine::new, m -> { }).withClients(new RegisterMachine.Oracle(), 8, 60_000);
        int own = cluster.sim.replicasOf(X)[0];
        CountDownLatch release = new CountDownLatch(1);
        for (int x : cluster.sim.replicasOf(X)) {
            ((RegisterMachine) cluster.replica(x)).hold = release;
        }
        try (EyrieClient onReplica = new EyrieClient(cluster.sim.sharedEndpoint(own), new RegisterMachine.Oracle(), 8, 60_000)) {
            onReplica.observeOrderAt(cluster.replica(own));
            CompletableFuture<Void> delivered = new CompletableFuture<>();
            CompletableFuture<Object> result = onReplica.executeAsync(new Command("add", "x1", 7),
                    () -> delivered.complete(null));
            delivered.get(20, TimeUnit.SECONDS);
            assertFalse(result.isDone(), "delivered at X, where the replicas are held before running it");
            assertEquals(0, ((RegisterMachine) cluster.replica(own)).valueOf("x1"), "not run yet");

            CompletableFuture<Void> elsewhere = new CompletableFuture<>();
            CompletableFuture<Object> readY = onReplica.executeAsync(new Command("read", "y2"), () -> elsewhere.complete(null));
            release.countDown();
            assertEquals(7, result.get(20, TimeUnit.SECONDS));
            assertEquals(0, readY.get(20, TimeUnit.SECONDS));
            Thread.sleep(200);
            assertFalse(elsewhere.isDone(), "partition Y's command is never delivered at X's replica");
        } finally {
            release.countDown();
        }
    }

    @Test
    void observingAReplicaOfAnotherNodeIsRefused() {
        cluster = new SimCluster(1, 2, 1, 1, RegisterMachine::new, m -> { }).withClients(new RegisterMachine.Oracle(), 8, 60_000);
        int[] replicas = cluster.sim.replicasOf(X);
        try (EyrieClient onReplica = new EyrieClient(cluster.sim.sharedEndpoint(replicas[0]), new RegisterMachine.Oracle(), 8, 60_000)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> onReplica.observeOrderAt(cluster.replica(replicas[1])));
            assertTrue(e.getMessage().contains("not on this client's node"), e.getMessage());
        }
    }
}
