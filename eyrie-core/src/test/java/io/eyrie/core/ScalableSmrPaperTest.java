package io.eyrie.core;

import io.eyrie.core.internal.ReplicaRuntime;
import io.eyrie.core.linearizability.History;
import io.eyrie.core.linearizability.LinearizabilityChecker;
import io.eyrie.core.linearizability.RegistersModel;
import io.eyrie.multicast.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The claims of Bezerra, Pedone and van Renesse, "Scalable State-Machine Replication" (DSN 2014),
 * one test per claim, on the simulated Multi-Ring Paxos ordering. Partition X = 1 (register "x1"),
 * Y = 2 (register "y2"); 2 replicas each; clients are the nodes after them.
 */
class ScalableSmrPaperTest {

    private static final int X = 1;
    private static final int Y = 2;

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        ReplicaRuntime.setSignalsEnabledForTesting(true);
        ReplicaRuntime.setProgressReportsForTesting(true);
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimCluster start(int replicasPerPartition, long exchangeTimeoutMillis) {
        cluster = new SimCluster(2, replicasPerPartition, 3, 1, RegisterMachine::new,
                m -> m.setExchangeTimeoutMillis(exchangeTimeoutMillis))
                .withClients(new RegisterMachine.Oracle(), 8, 60_000);
        return cluster;
    }

    /** The Figure 1 schedule; returns the history the three clients observed. */
    private History figureOneSchedule(boolean signals) throws Exception {
        ReplicaRuntime.setSignalsEnabledForTesting(signals);
        start(2, 100);
        History h = new History();
        EyrieClient a = cluster.client(0);
        EyrieClient b = cluster.client(1);
        EyrieClient c = cluster.client(2);
        // Y lags: its replicas deliver nothing for now, so ring Y does not skip ahead
        cluster.sim.pausePartition(Y);

        long t0 = System.nanoTime();
        Object cx = a.execute(new Command("read", "x1"));
        h.add(0, t0, System.nanoTime(), List.of("read", 0), cx);

        long t1 = System.nanoTime();
        CompletableFuture<Object> cxy = b.executeAsync(new Command("writeAll", 1, "x1", "y2"));
        int xReplica = cluster.sim.replicasOf(X)[0];
        if (signals) {
            // X executed Cxy and now waits for Y's signal: it has asked Y at least once
            SimCluster.awaitTrue("partition X asks Y for its signal", () -> cluster.stats(xReplica).asksSent.get() > 0);
            assertFalse(cxy.isDone(), "with signals, Cxy must not complete while partition Y has not delivered it");
        } else {
            cxy.get(30, TimeUnit.SECONDS);
            h.add(1, t1, System.nanoTime(), List.of("writeAll", 1), cxy.get());
        }

        // Cy is invoked now: after Cxy completed (signals off) or while it is pending (signals on)
        long t2 = System.nanoTime();
        CompletableFuture<Object> cy = c.executeAsync(new Command("read", "y2"));
        SimCluster.awaitTrue("Cy is multicast", () -> cluster.sim.multicasts() == 3);
        cluster.sim.resumePartition(Y);
        Object cyResult = cy.get(30, TimeUnit.SECONDS);
        long t3 = System.nanoTime();
        h.add(2, t2, t3, List.of("read", 1), cyResult);
        if (signals) {
            h.add(1, t1, System.nanoTime(), List.of("writeAll", 1), cxy.get(30, TimeUnit.SECONDS));
        }

        // the ordering of Figure 1: Y orders the later Cy before Cxy, X delivered Cxy first
        int yReplica = cluster.sim.replicasOf(Y)[0];
        cluster.awaitQuiescent();
        List<Long> yOrder = cluster.sim.delivered(yReplica);
        assertEquals(2, yOrder.size(), "Y delivers Cy and Cxy");
        assertTrue(Position.ringId(yOrder.get(0)) == Y && Position.ringId(yOrder.get(1)) == 0,
                "expected Y to deliver Cy (ring Y) before Cxy (ring ALL), got "
                        + yOrder.stream().map(Position::toString).toList());
        cluster.assertNoReplicaFailed();
        return h;
    }

    @Test
    void figure1_withoutSignals_atomicMulticastAloneIsNotLinearizable() throws Exception {
        History h = figureOneSchedule(false);
        LinearizabilityChecker.Result r = new LinearizabilityChecker().check(new RegistersModel(2), h.operations());
        assertFalse(r.linearizable(), "with signals off, Cy reads y=0 after Cxy (y:=1) completed; the checker must "
                + "reject that history, but accepted " + h.operations());
    }

    @Test
    void figure1_withSignals_theSameScheduleIsLinearizable() throws Exception {
        History h = figureOneSchedule(true);
        LinearizabilityChecker.Result r = new LinearizabilityChecker().check(new RegistersModel(2), h.operations());
        assertTrue(r.linearizable(), "with signals: " + r.explanation() + " in " + h.operations());
    }

    /** Random pauses of either partition while clients mix single- and multi-partition commands. */
    @Test
    void figure1_withSignals_randomSchedulesAreNeverRejected() throws Exception {
        int seeds = Math.min(20, Integer.getInteger("sim.seeds", 5));
        long first = Long.getLong("sim.firstSeed", 1);
        for (long seed = first; seed < first + seeds; seed++) {
            cluster = new SimCluster(2, 2, 3, seed, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                    .withClients(new RegisterMachine.Oracle(), 4, 60_000);
            Random random = new Random(seed);
            History h = new History();
            int[] nextValue = {1};
            List<Thread> threads = new java.util.ArrayList<>();
            for (int ci = 0; ci < 3; ci++) {
                int client = ci;
                long clientSeed = random.nextLong();
                Thread t = new Thread(() -> {
                    Random r = new Random(clientSeed);
                    for (int i = 0; i < 8; i++) {
                        int kind = r.nextInt(3);
                        long call = System.nanoTime();
                        if (kind == 2) {
                            int v;
                            synchronized (nextValue) {
                                v = nextValue[0]++;
                            }
                            Object out = cluster.client(client).execute(new Command("writeAll", v, "x1", "y2"));
                            h.add(client, call, System.nanoTime(), List.of("writeAll", v), out);
                        } else {
                            Object out = cluster.client(client).execute(new Command("read", kind == 0 ? "x1" : "y2"));
                            h.add(client, call, System.nanoTime(), List.of("read", kind), out);
                        }
                    }
                });
                threads.add(t);
                t.start();
            }
            while (threads.stream().anyMatch(Thread::isAlive)) {
                int p = 1 + random.nextInt(2);
                cluster.sim.pausePartition(p);
                threads.get(0).join(1 + random.nextInt(5));
                cluster.sim.resumePartition(p);
                threads.get(0).join(1 + random.nextInt(5));
            }
            for (Thread t : threads) {
                t.join();
            }
            LinearizabilityChecker.Result r = new LinearizabilityChecker().check(new RegistersModel(2), h.operations());
            assertTrue(r.linearizable(), "seed " + seed + ": " + r.explanation() + " in " + h.operations());
            cluster.assertNoReplicaFailed();
            cluster.close();
            cluster = null;
        }
    }

    @Test
    void algorithm1_anEarlySignalIsBufferedAndUsed() throws Exception {
        start(2, 60_000); // asks would hide a lost early signal: make them impossible within the test
        cluster.sim.pausePartition(Y);
        CompletableFuture<Object> cxy = cluster.client(0).executeAsync(new Command("writeAll", 7, "x1", "y2"));
        int xSender = cluster.sim.replicasOf(X)[0];
        // X's signal reaches Y's replicas before they deliver Cxy
        SimCluster.awaitTrue("both Y replicas hold X's signal for a command they have not delivered",
                () -> java.util.Arrays.stream(cluster.sim.replicasOf(Y)).allMatch(y -> cluster.runtime(y).bufferedExchanges() == 1));
        assertEquals(2, cluster.stats(xSender).exchangesSent.get(), "X's designated replica signals both Y replicas");
        cluster.sim.resumePartition(Y);
        assertEquals("ok", cxy.get(30, TimeUnit.SECONDS));
        cluster.awaitQuiescent();
        for (int y : cluster.sim.replicasOf(Y)) {
            assertEquals(1, cluster.stats(y).earlyExchangesUsed.get(),
                    "replica " + y + " of Y should have used the signal that arrived before Cxy");
            assertEquals(7, ((RegisterMachine) cluster.replica(y)).valueOf("y2"));
        }
        assertEquals(0, cluster.total(s -> s.asksSent.get()), "no replica needed to ask again");
    }

    /** The executor's wait for a partition that has not delivered the command is counted (mntr shows it). */
    @Test
    void algorithm1_theWaitForAnotherPartitionsSignalIsCounted() throws Exception {
        start(2, 60_000);
        cluster.sim.pausePartition(Y);
        CompletableFuture<Object> cxy = cluster.client(0).executeAsync(new Command("writeAll", 7, "x1", "y2"));
        long paused = System.nanoTime();
        Thread.sleep(400); // X delivers Cxy within milliseconds and waits for Y's signal
        assertFalse(cxy.isDone(), "X cannot answer before Y delivers Cxy");
        cluster.sim.resumePartition(Y);
        assertEquals("ok", cxy.get(30, TimeUnit.SECONDS));
        long pausedNanos = System.nanoTime() - paused;
        cluster.awaitQuiescent();
        for (int x : cluster.sim.replicasOf(X)) {
            long waited = cluster.stats(x).signalWaitNanos.get();
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(300) && waited <= pausedNanos + TimeUnit.SECONDS.toNanos(5),
                    "X replica " + x + " waited about the 400 ms Y was paused, counted " + waited / 1_000_000 + " ms");
            assertEquals(0, cluster.stats(x).valueWaitNanos.get(), "no value round");
        }
    }

    @Test
    void algorithm1_anExchangedObjectStandsForASignal() throws Exception {
        ReplicaRuntime.setProgressReportsForTesting(false); // not Algorithm 1's: they would blur the count (ADR 049)
        start(2, 60_000);
        cluster.client(0).execute(new Command("add", "x1", 5));
        cluster.awaitQuiescent(); // both replies of the add are out
        long before = cluster.sim.directMessagesSent();
        // sum reads x1 at Y and y2 at X: each partition's designated replica sends one message per replica
        // of the other partition, carrying its object, and that message is the only signal
        assertEquals(5, cluster.client(0).execute(new Command("sum", "x1", "y2")));
        cluster.awaitQuiescent();
        long exchanges = cluster.total(s -> s.exchangesSent.get());
        assertEquals(4, exchanges, "2 partitions x 2 receiving replicas, one message each (object = signal)");
        assertEquals(2, cluster.total(s -> s.valuesShipped.get()), "x1 to Y and y2 to X");
        long replies = 4;
        assertEquals(exchanges + replies, cluster.sim.directMessagesSent() - before,
                "direct messages for one two-partition command: exchanges plus one reply per replica");
        assertEquals(0, cluster.total(s -> s.asksSent.get()));
    }

    @Test
    void algorithm1_localMethodCallOnARemoteObjectSendsNothing() throws Exception {
        start(2, 60_000);
        long before = cluster.sim.directMessagesSent();
        // executed at X only, calls the @LocalMethodCall set() on Y's register: no wait, no message
        assertEquals("ok", cluster.client(0).execute(new Command("blindWriteAt", X, "y2", 9)));
        cluster.awaitQuiescent();
        assertEquals(2, cluster.sim.directMessagesSent() - before, "only the replies of X's 2 replicas");
        assertEquals(0, cluster.total(s -> s.remoteReads.get()));
    }

    /**
     * Beyond the paper (ADR 032): a command the oracle declares independent is executed by each
     * destination as soon as its order reaches it. With Y delivering nothing, X executes and answers
     * it at once and no replica signals anyone; Y applies it when it resumes.
     */
    @Test
    void independentCommand_runsWithoutSignals_aPartitionAheadAnswersAlone() throws Exception {
        start(2, 60_000);
        cluster.sim.pausePartition(Y);
        assertEquals("ok", cluster.client(0).executeAsync(new Command("writeEach", 3, "x1", "y2"))
                .get(10, TimeUnit.SECONDS), "X answers while Y has not delivered the command");
        // the first reply wins: the other X replica executes it too, still without Y
        for (int x : cluster.sim.replicasOf(X)) {
            SimCluster.awaitTrue("X replica " + x + " executes it while Y delivers nothing",
                    () -> ((RegisterMachine) cluster.replica(x)).valueOf("x1") == 3);
        }
        cluster.sim.resumePartition(Y);
        cluster.awaitQuiescent();
        for (int y : cluster.sim.replicasOf(Y)) {
            assertEquals(3, ((RegisterMachine) cluster.replica(y)).valueOf("y2"));
        }
        assertEquals(0, cluster.total(s -> s.exchangesSent.get()), "no signal for an independent command");
        assertEquals(4, cluster.total(s -> s.independentCommands.get()), "2 partitions x 2 replicas");
        // the same command as writeAll keeps its signals: 2 partitions x 2 receiving replicas
        assertEquals("ok", cluster.client(0).execute(new Command("writeAll", 4, "x1", "y2")));
        cluster.awaitQuiescent();
        assertEquals(4, cluster.total(s -> s.exchangesSent.get()));
        cluster.assertNoReplicaFailed();
    }

    /**
     * ADR 034: a bare signal says "this partition delivered C" and leaves as C is delivered, so a
     * partition whose executor is far behind does not hold up the other destinations of C. X's
     * replicas are stuck in an earlier command; Y executes writeAll(x1, y2) and goes on to its next
     * command. With signals sent when the executor reaches C, Y would wait for X's executor.
     */
    @Test
    void algorithm1_aBareSignalLeavesOnDelivery_aPartitionBehindInExecutionDoesNotHoldTheOthers() throws Exception {
        start(2, 60_000);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        for (int x : cluster.sim.replicasOf(X)) {
            ((RegisterMachine) cluster.replica(x)).hold = release;
        }
        try {
            EyrieClient client = cluster.client(0);
            var add = client.executeAsync(new Command("add", "x1", 1));
            for (int x : cluster.sim.replicasOf(X)) {
                SimCluster.awaitTrue("X replica " + x + " is held in add",
                        () -> cluster.runtime(x).executingPosition() != Position.NONE);
            }
            var write = client.executeAsync(new Command("writeAll", 5, "x1", "y2"));
            for (int y : cluster.sim.replicasOf(Y)) {
                SimCluster.awaitTrue("Y replica " + y + " executes writeAll",
                        () -> ((RegisterMachine) cluster.replica(y)).valueOf("y2") == 5);
            }
            // ordered after writeAll at Y; it runs only once Y's executors are past writeAll's wait for X
            assertEquals(5, cluster.client(1).executeAsync(new Command("read", "y2")).get(10, TimeUnit.SECONDS),
                    "Y finished writeAll and ran the read after it while X's executors had not reached writeAll");
            assertFalse(add.isDone(), "X is still held");
            assertTrue(cluster.total(s -> s.signalsAtDelivery.get()) >= 2,
                    "X's and Y's designated replicas signalled at delivery");
            release.countDown();
            assertEquals(1, add.get(10, TimeUnit.SECONDS));
            assertEquals("ok", write.get(10, TimeUnit.SECONDS));
        } finally {
            release.countDown();
            for (int x : cluster.sim.replicasOf(X)) {
                ((RegisterMachine) cluster.replica(x)).hold = null;
            }
        }
        assertEquals(5, cluster.client(0).execute(new Command("read", "x1")), "writeAll ran after add at X");
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
    }

    @Test
    void algorithm1_aRemoteReadOutsideTheDestinationsIsAnOracleErrorWithAClearMessage() {
        start(2, 60_000);
        EyrieException e = assertThrows(EyrieException.class,
                () -> cluster.client(0).execute(new Command("peekAt", X, "y2")));
        assertTrue(e.getMessage().contains("not among its destinations"), "got: " + e.getMessage());
    }

    @Test
    void algorithm1_whenTheDesignatedSenderIsSilentAnotherReplicaAnswersTheAsk() throws Exception {
        start(2, 50);
        int xDesignated = cluster.sim.replicasOf(X)[0];
        int xOther = cluster.sim.replicasOf(X)[1];
        // X's designated replica cannot reach partition Y (as if it had failed after executing)
        int[] yReplicas = cluster.sim.replicasOf(Y);
        cluster.sim.cutDirect((from, to) -> from == xDesignated && (to == yReplicas[0] || to == yReplicas[1]));
        cluster.client(0).execute(new Command("add", "x1", 4));
        assertEquals(4, cluster.client(0).execute(new Command("sum", "x1", "y2")),
                "Y reads x1 = 4 although X's designated replica never reached it");
        cluster.awaitQuiescent();
        assertTrue(cluster.stats(xOther).asksAnswered.get() > 0,
                "X's second replica should have answered Y's asks, stats " + cluster.stats(xOther));
    }
}
