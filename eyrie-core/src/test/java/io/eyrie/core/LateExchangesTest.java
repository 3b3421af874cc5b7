package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ADR 038: an exchange that is late is not an exchange that is lost. A replica waiting for a slow
 * partition asks less and less often; a replica that is asked for an exchange it has not computed, or
 * by an asker that still hears from the designated sender, does not start sending every exchange
 * itself; and an asker that was running all along gets the exchange it asked for, not the kept ones
 * after it as well (those are for replicas that restarted, {@code CheckpointRecoveryTest}). Under 6 %
 * CPU caps these three had multiplied the exchanges of Volery's global mix by about eight.
 * Partition X = 1 ("x1"), Y = 2 ("y2"), 2 replicas each, a 50 ms exchange timeout.
 */
class LateExchangesTest {

    private static final int X = 1;
    private static final int Y = 2;

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void start() {
        cluster = new SimCluster(2, 2, 2, 1, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new RegisterMachine.Oracle(), 8, 60_000);
    }

    private void hold(int node, CountDownLatch latch) {
        ((RegisterMachine) cluster.replica(node)).hold = latch;
    }

    @Test
    void aSlowPartitionIsAskedLessAndLessOften_andItsOtherReplicaDoesNotTakeOver() throws Exception {
        start();
        EyrieClient client = cluster.client(0);
        // no warm-up command: an ask during a slow first command could find Y's designated sender silent
        // (X has heard nothing from it yet) and rightly make Y's other replica take over
        int[] xs = cluster.sim.replicasOf(X);
        int[] ys = cluster.sim.replicasOf(Y);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Object> sum;
        long asksBefore = cluster.stats(xs[0]).asksSent.get() + cluster.stats(xs[1]).asksSent.get();
        long waitedMillis;
        try {
            for (int y : ys) {
                hold(y, release);
            }
            // Y's executors stop in this command; the sum behind it needs y2 from Y at X
            CompletableFuture<Object> add = cluster.client(1).executeAsync(new Command("add", "y2", 3));
            for (int y : ys) {
                SimCluster.awaitTrue("Y replica " + y + " delivers the add", () -> !cluster.sim.delivered(y).isEmpty());
            }
            sum = client.executeAsync(new Command("sum", "x1", "y2"));
            SimCluster.awaitTrue("X asks Y for the sum's exchange", () ->
                    cluster.stats(xs[0]).asksSent.get() + cluster.stats(xs[1]).asksSent.get() > asksBefore);
            long t0 = System.nanoTime();
            Thread.sleep(1_500);
            waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(!sum.isDone() && !add.isDone(), "Y is held");
            assertEquals(0, cluster.stats(ys[1]).volunteerings.get(),
                    "Y's second replica was asked for an exchange it had not computed: that says nothing about Y's "
                            + "designated sender, so it must not start sending in its place; " + cluster.stats(ys[1]));
        } finally {
            release.countDown();
            for (int y : ys) {
                hold(y, null);
            }
        }
        assertEquals(3, sum.get(10, TimeUnit.SECONDS));
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        for (int x : xs) {
            long asks = cluster.stats(x).asksSent.get();
            // asking every 50 ms for 1.5 s is 30 rounds to 2 replicas; backing off 50, 100, ... 800 ms is 5
            assertTrue(asks <= 16, "X's replica " + x + " sent " + asks + " asks while Y was held for " + waitedMillis
                    + " ms; they should back off");
        }
    }

    @Test
    void anAskerThatRanAllAlongGetsWhatItAskedForAndNoCatchUp() throws Exception {
        start();
        EyrieClient client = cluster.client(0);
        assertEquals(0, client.execute(new Command("sum", "x1", "y2")));
        int[] xs = cluster.sim.replicasOf(X);
        int[] ys = cluster.sim.replicasOf(Y);
        int late = xs[1];
        // (an ask during the cold first sum may rightly have found Y's designated sender silent)
        long volunteeredBefore = cluster.stats(ys[1]).volunteerings.get();
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Object>> sums = new ArrayList<>();
        try {
            hold(late, release);
            // X's second replica stops in this command while the others go on
            CompletableFuture<Object> add = cluster.client(1).executeAsync(new Command("add", "x1", 1));
            assertEquals(1, add.get(10, TimeUnit.SECONDS));
            // Y's exchange of the first sum never reaches it (from the designated sender, nor from the other
            // replica should an ask during the cold first sum have made that one take over)
            cluster.sim.cutDirect((from, to) -> (from == ys[0] || from == ys[1]) && to == late);
            long y0 = cluster.stats(ys[0]).commandsExecuted.get();
            long y1 = cluster.stats(ys[1]).commandsExecuted.get();
            assertEquals(1, client.execute(new Command("sum", "x1", "y2")));
            // the answer may come from Y's other replica before the designated one has run (and sent): the
            // cut stays until both have
            SimCluster.awaitTrue("Y's replicas ran the sum", () -> cluster.stats(ys[0]).commandsExecuted.get() > y0
                    && cluster.stats(ys[1]).commandsExecuted.get() > y1);
            cluster.sim.cutDirect((from, to) -> false);
            // ... those of the next ones do, and wait in its inbox
            for (int i = 0; i < 20; i++) {
                sums.add(client.executeAsync(new Command("sum", "x1", "y2")));
            }
            for (CompletableFuture<Object> s : sums) {
                assertEquals(1, s.get(10, TimeUnit.SECONDS));
            }
        } finally {
            release.countDown();
            hold(late, null);
        }
        SimCluster.awaitTrue("the late replica asks for the lost exchange", () -> cluster.stats(late).asksSent.get() > 0);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(23, cluster.stats(late).commandsExecuted.get(), "the late replica ran the add and the 22 sums");
        assertTrue(cluster.stats(ys[0]).asksAnswered.get() + cluster.stats(ys[1]).asksAnswered.get() > 0,
                "Y answered the ask");
        assertEquals(0, cluster.total(s -> s.catchUpExchangesSent.get()),
                "the asker had the following exchanges already; nobody should send them again");
        assertEquals(volunteeredBefore, cluster.stats(ys[1]).volunteerings.get(),
                "the asker kept hearing from Y's designated sender: Y's second replica must not take over");
    }
    @Test
    void aDesignatedSenderThatFellSilentIsReplacedByAnotherReplica() throws Exception {
        start();
        EyrieClient client = cluster.client(0);
        int[] xs = cluster.sim.replicasOf(X);
        int[] ys = cluster.sim.replicasOf(Y);
        // X's designated sender can no longer reach partition Y (as if it had failed after executing)
        cluster.sim.cutDirect((from, to) -> from == xs[0] && (to == ys[0] || to == ys[1]));
        client.execute(new Command("add", "x1", 4));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int sums = 0;
        while (cluster.stats(xs[1]).volunteerings.get() == 0 && System.nanoTime() < deadline) {
            assertEquals(4, client.execute(new Command("sum", "x1", "y2")), "Y reads x1 from X's other replica");
            sums++;
            Thread.sleep(100);
        }
        assertTrue(cluster.stats(xs[1]).volunteerings.get() > 0, "after " + sums + " sums Y's asks should say that X's "
                + "designated sender is silent, and X's other replica should take over; " + cluster.stats(xs[1]));
        // the stretch lasts 10 s after the last silent ask, and its time counts while it lasts
        long volunteering = cluster.replica(xs[1]).volunteeringMillis();
        Thread.sleep(300);
        long later = cluster.replica(xs[1]).volunteeringMillis();
        assertTrue(later >= volunteering + 250, "X's other replica volunteers all along, yet its volunteering time went "
                + "from " + volunteering + " to " + later + " ms in 300 ms");
        long asks = cluster.stats(ys[0]).asksSent.get() + cluster.stats(ys[1]).asksSent.get();
        for (int i = 0; i < 10; i++) {
            assertEquals(4, client.execute(new Command("sum", "x1", "y2")));
        }
        long more = cluster.stats(ys[0]).asksSent.get() + cluster.stats(ys[1]).asksSent.get() - asks;
        // without a replacement every sum costs each Y replica an ask to each X replica: 40
        assertTrue(more < 10, "with X's other replica sending, Y should hardly need to ask, but sent " + more
                + " asks for 10 sums");
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
    }
}
