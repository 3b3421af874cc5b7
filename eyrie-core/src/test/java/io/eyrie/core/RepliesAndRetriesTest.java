package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;
import io.eyrie.core.internal.Wire;
import io.eyrie.multicast.MulticastEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every replica may reply, the first reply wins, and a retried command executes at most once. */
class RepliesAndRetriesTest {

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimCluster start(long retryMillis) {
        cluster = new SimCluster(2, 3, 2, 1, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new RegisterMachine.Oracle(), 4, retryMillis);
        return cluster;
    }

    @Test
    void aClientWhoseRepliesAreLostRetriesAndTheCommandExecutesOnce() throws Exception {
        start(100);
        int clientNode = cluster.sim.clients()[0];
        cluster.sim.cutDirect((from, to) -> to == clientNode);
        CompletableFuture<Object> add = cluster.client(0).executeAsync(new Command("add", "x1", 1));
        SimCluster.awaitTrue("the client multicasts its command again", () -> cluster.sim.multicasts() >= 3);
        cluster.sim.cutDirect((from, to) -> false);
        assertEquals(1, add.get(30, TimeUnit.SECONDS), "the retried add returns the result of its only execution");
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(1, ((RegisterMachine) cluster.replica(node)).valueOf("x1"),
                    "replica " + node + " executed the add more than once");
            assertTrue(cluster.stats(node).duplicatesAnswered.get() >= 1,
                    "replica " + node + " should have answered a retry from its reply table");
        }
    }

    @Test
    void aMulticastRefusedByTheLocalNodeIsTriedAgainLongBeforeTheRetryPeriod() throws Exception {
        // A refused multicast never left the node: waiting the retry period (here an hour) for a reply
        // would stall the command and everything a service orders behind it.
        start(3_600_000);
        cluster.sim.refuseNextMulticasts(3);
        CompletableFuture<Object> add = cluster.client(0).executeAsync(new Command("add", "x1", 5));
        assertEquals(5, add.get(30, TimeUnit.SECONDS), "the refused command is multicast again and executes");
        assertTrue(cluster.sim.multicasts() >= 1, "it was multicast once the node accepted it");
    }

    @Test
    void aDuplicatedMultiPartitionRequestIsAnsweredFromTheTableByEveryPartition() throws Exception {
        start(60_000);
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[1]);
        List<Object> replies = new ArrayList<>();
        raw.onDirect((from, message) -> {
            synchronized (replies) {
                replies.add(Wire.decodeDirect(message));
            }
        });
        long clientId = ((long) raw.nodeId() << 32) | 7;
        byte[] request = Wire.encode(new Wire.Request(clientId, 1, 1, KryoCodec.encode(new Command("sum", "x1", "y2"))));
        raw.multicast(new int[] {1, 2}, request);
        raw.multicast(new int[] {1, 2}, request);
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("12 replies (6 replicas x 2 deliveries)", () -> {
            synchronized (replies) {
                return replies.size() == 12;
            }
        });
        assertEquals(6, cluster.total(s -> s.commandsExecuted.get()), "each replica executes the sum once");
        assertEquals(6, cluster.total(s -> s.duplicatesAnswered.get()), "and answers the copy from its table");
    }

    @Test
    void aRequestBelowTheClientsAcknowledgedSeqIsIgnored() throws Exception {
        start(60_000);
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[1]);
        List<Object> replies = new ArrayList<>();
        raw.onDirect((from, message) -> {
            synchronized (replies) {
                replies.add(Wire.decodeDirect(message));
            }
        });
        long clientId = ((long) raw.nodeId() << 32) | 9;
        byte[] first = Wire.encode(new Wire.Request(clientId, 1, 1, KryoCodec.encode(new Command("add", "x1", 5))));
        byte[] second = Wire.encode(new Wire.Request(clientId, 2, 2, KryoCodec.encode(new Command("add", "x1", 5))));
        raw.multicast(new int[] {1}, first);
        raw.multicast(new int[] {1}, second);
        raw.multicast(new int[] {1}, first); // a late copy of seq 1, which the client has acknowledged
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("6 replies", () -> {
            synchronized (replies) {
                return replies.size() == 6;
            }
        });
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(10, ((RegisterMachine) cluster.replica(node)).valueOf("x1"));
        }
        assertEquals(0, cluster.total(s -> s.duplicatesAnswered.get()), "the late copy gets no reply and no execution");
    }

    @Test
    void theWindowBoundsOutstandingCommands() throws Exception {
        start(60_000);
        cluster.sim.pausePartition(1);
        EyrieClient client = cluster.client(0);
        List<CompletableFuture<Object>> futures = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            futures.add(client.executeAsync(new Command("add", "x1", 1)));
        }
        CompletableFuture<Object> fifth = CompletableFuture.supplyAsync(() -> client.executeAsync(new Command("add", "x1", 1)))
                .thenCompose(f -> f);
        SimCluster.awaitTrue("4 commands multicast", () -> cluster.sim.multicasts() == 4);
        assertEquals(4, client.outstanding(), "a window of 4");
        assertFalse(fifth.isDone(), "the fifth command must wait for a free slot in the window");
        cluster.sim.resumePartition(1);
        assertEquals(5, fifth.get(30, TimeUnit.SECONDS));
        for (CompletableFuture<Object> f : futures) {
            assertTrue(f.isDone());
        }
    }

    @Test
    void theServiceLimitKeepsLaterCommandsUnorderedUntilAnswersFreePlaces_andTheirOrder() throws Exception {
        // ADR 064: a stalled partition; 12 commands; only 3 reach the proposer, the other 9 wait in the client,
        // where no reply timer runs (retry period 200 ms), and go out in order as answers come
        cluster = new SimCluster(2, 3, 2, 1, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new RegisterMachine.Oracle(), 16, 200);
        EyrieClient client = cluster.client(0);
        client.setServiceLimit(3);
        cluster.sim.pausePartition(1);
        List<CompletableFuture<Object>> adds = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            adds.add(client.executeAsync(new Command("add", "x1", 1)));
        }
        assertEquals(3, client.inService(), "commands handed to the proposer");
        assertEquals(9, client.backlog(), "commands waiting for a place");
        SimCluster.awaitTrue("the commands in service are multicast again", () -> client.resends() >= 6);
        Thread.sleep(500); // several retry periods: the waiting commands are never multicast meanwhile
        assertEquals(9, client.backlog(), "commands waiting for a place");
        long multicastsWhileStalled = cluster.sim.multicasts();
        assertEquals(3 + client.resends(), multicastsWhileStalled, "only the 3 in service and their copies went out");
        cluster.sim.resumePartition(1);
        for (int i = 0; i < 12; i++) {
            assertEquals(i + 1, adds.get(i).get(30, TimeUnit.SECONDS), "add " + i + " ran in submission order");
        }
        assertEquals(0, client.inService());
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(12, ((RegisterMachine) cluster.replica(node)).valueOf("x1"), "replica " + node + " ran each add once");
        }
    }

    @Test
    void anUrgentCommandGoesAheadOfTheCommandsWaitingForAPlace() throws Exception {
        cluster = new SimCluster(2, 3, 2, 1, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new RegisterMachine.Oracle(), 16, 60_000);
        EyrieClient client = cluster.client(0);
        client.setServiceLimit(3);
        cluster.sim.pausePartition(1);
        List<CompletableFuture<Object>> adds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            adds.add(client.executeAsync(new Command("add", "x1", 1)));
        }
        assertEquals(3, client.backlog(), "commands waiting for a place");
        CompletableFuture<Object> urgent = client.executeUrgent(new Command("add", "x1", 100));
        assertEquals(4L, cluster.sim.multicasts(), "the urgent command goes out at once, taking no place");
        assertEquals(3, client.inService(), "places taken");
        assertEquals(3, client.backlog(), "commands still waiting");
        cluster.sim.resumePartition(1);
        assertEquals(103, urgent.get(30, TimeUnit.SECONDS), "ordered after the three in service, before the rest");
        for (int i = 0; i < 6; i++) {
            assertEquals(i < 3 ? i + 1 : i + 101, adds.get(i).get(30, TimeUnit.SECONDS), "add " + i);
        }
    }

    @Test
    void aMalformedRequestIsSkippedByEveryReplicaAndTheServiceGoesOn() throws Exception {
        start(60_000);
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[1]);
        raw.multicast(new int[] {1, 2}, new byte[] {1, 2, 3});
        byte[] undecodableCommand = Wire.encode(new Wire.Request(((long) raw.nodeId() << 32) | 5, 1, 1, new byte[] {9, 9}));
        raw.multicast(new int[] {1, 2}, undecodableCommand);
        assertEquals(3, cluster.client(0).execute(new Command("add", "x1", 3)));
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(0, cluster.total(s -> s.exchangesSent.get()), "nobody exchanged anything for the bad requests");
    }

    @Test
    void aClientOnAReplicaNodeOfTheCommandsPartitionIsAnsweredByItsOwnReplicaAlone() throws Exception {
        start(3_600_000);
        int own = cluster.sim.replicasOf(1)[1];
        try (EyrieClient onReplica = new EyrieClient(cluster.sim.sharedEndpoint(own), new RegisterMachine.Oracle(), 4, 3_600_000)) {
            onReplica.answerLocallyWhile(g -> g == 1 && cluster.replica(own).isCaughtUp(5_000));
            for (int i = 1; i <= 5; i++) {
                assertEquals(i, onReplica.execute(new Command("add", "x1", 1)), "the add's result on x1");
            }
            // partition 2 alone: the client's node is none of its replicas, so all of them answer
            assertEquals(7, onReplica.execute(new Command("add", "y2", 7)), "the add's result on y2");
            cluster.awaitQuiescent();
            for (int node : cluster.sim.replicasOf(1)) {
                assertEquals(node == own ? 5 : 0, cluster.stats(node).repliesSent.get(),
                        "replies sent by replica " + node + " of partition 1 (the client is on node " + own + ")");
                assertEquals(node == own ? 0 : 5, cluster.stats(node).repliesLeftToReplier.get(),
                        "replies replica " + node + " left to the client's own replica");
            }
            for (int node : cluster.sim.replicasOf(2)) {
                assertEquals(1, cluster.stats(node).repliesSent.get(), "replies sent by replica " + node + " of partition 2");
            }
            assertEquals(0, onReplica.localReplyFallbacks(), "commands that had to ask every replica");
        }
    }

    @Test
    void aClientOnNoReplicaNodeNamesOneReplicaOfThePartitionToAnswer_inTurn() throws Exception {
        start(3_600_000);
        cluster.client(0).nameRemoteReplier(true);
        for (int i = 1; i <= 6; i++) {
            assertEquals(i, cluster.client(0).execute(new Command("add", "x1", 1)), "the add's result on x1");
        }
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(2, cluster.stats(node).repliesSent.get(), "replies sent by replica " + node
                    + " (6 commands, each answered by the one replica it named, in turn)");
            assertEquals(4, cluster.stats(node).repliesLeftToReplier.get(), "replies replica " + node + " left to another");
        }
        assertEquals(0, cluster.client(0).localReplyFallbacks(), "commands that had to ask every replica");
    }

    @Test
    void aNamedReplicaThatDoesNotAnswerIsReplacedByEveryReplica_andNotNamedAgainForAWhile() throws Exception {
        start(3_600_000);
        int stuck = cluster.sim.replicasOf(1)[0];
        RegisterMachine stuckReplica = (RegisterMachine) cluster.replica(stuck);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        EyrieClient client = cluster.client(0);
        client.nameRemoteReplier(true);
        client.setLocalReplyTimeoutMillis(300);
        stuckReplica.hold = release; // as a replica that crashed or fell far behind
        try {
            for (int i = 1; i <= 6; i++) {
                assertEquals(i, client.executeAsync(new Command("add", "x1", 1)).get(20, TimeUnit.SECONDS),
                        "the add's result on x1 (retry period: an hour)");
            }
            assertEquals(1, client.localReplyFallbacks(),
                    "only the first command naming the stuck replica waits for it; later ones name the others");
        } finally {
            release.countDown();
            stuckReplica.hold = null;
        }
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(6, ((RegisterMachine) cluster.replica(node)).valueOf("x1"), "replica " + node + " executed each add once");
        }
    }

    @Test
    void whileTheOwnReplicaIsHeldBehindTheOthersAnswerLongBeforeTheRetryPeriod() throws Exception {
        start(3_600_000);
        int own = cluster.sim.replicasOf(1)[1];
        RegisterMachine ownReplica = (RegisterMachine) cluster.replica(own);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (EyrieClient onReplica = new EyrieClient(cluster.sim.sharedEndpoint(own), new RegisterMachine.Oracle(), 8, 3_600_000)) {
            onReplica.answerLocallyWhile(g -> g == 1 && ownReplica.isCaughtUp(200));
            onReplica.setLocalReplyTimeoutMillis(300);
            assertEquals(1, onReplica.execute(new Command("add", "x1", 1)), "a first add, answered locally");
            ownReplica.hold = release;
            // Sent while the own replica still looks caught up: asks for the local reply, which does not come.
            CompletableFuture<Object> first = onReplica.executeAsync(new Command("add", "x1", 1));
            SimCluster.awaitTrue("the own replica falls behind", () -> !ownReplica.isCaughtUp(200));
            // Sent while it is behind: asks every replica from the start.
            CompletableFuture<Object> second = onReplica.executeAsync(new Command("add", "x1", 1));
            assertEquals(2, first.get(20, TimeUnit.SECONDS), "the add sent for a local reply, answered by the others");
            assertEquals(3, second.get(20, TimeUnit.SECONDS), "the add sent while the own replica lagged");
            assertEquals(1, onReplica.localReplyFallbacks(), "commands that had to ask every replica after the timeout");
        } finally {
            release.countDown();
            ownReplica.hold = null;
        }
        cluster.awaitQuiescent();
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(3, ((RegisterMachine) cluster.replica(node)).valueOf("x1"),
                    "replica " + node + " executed each add exactly once");
        }
    }

    /**
     * Under overload the ring may take longer to order a command than the local-reply timeout: the
     * timeout runs from the ordering, so the command is not sent again for every replica (a copy that
     * would only add to the load) while the own replica answers right after the ordering.
     */
    @Test
    void aCommandTheRingTakesLongToOrderIsNotSentAgainWhileItsOwnReplicaAnswersSoonAfter() throws Exception {
        start(3_600_000);
        int own = cluster.sim.replicasOf(1)[1];
        RegisterMachine ownReplica = (RegisterMachine) cluster.replica(own);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (EyrieClient onReplica = new EyrieClient(cluster.sim.sharedEndpoint(own), new RegisterMachine.Oracle(), 8, 3_600_000)) {
            onReplica.answerLocallyWhile(g -> g == 1);
            onReplica.setLocalReplyTimeoutMillis(1500);
            cluster.sim.holdMulticasts();
            CompletableFuture<Object> add = onReplica.executeAsync(new Command("add", "x1", 1));
            Thread.sleep(2000); // the ring takes 2 s to order it, longer than the local-reply timeout
            ownReplica.hold = release; // and the own replica answers 0.6 s after the ordering, longer than a timer scan
            cluster.sim.orderHeldMulticasts();
            Thread.sleep(600);
            release.countDown();
            assertEquals(1, add.get(20, TimeUnit.SECONDS), "the add's result");
            assertEquals(0, onReplica.localReplyFallbacks(), "copies sent for every replica");
        } finally {
            release.countDown();
            ownReplica.hold = null;
        }
    }

    @Test
    void theMulticastWindowIsPerRing_andNoCommandPassesTheOldestWaiting() throws Exception {
        // A client of several partitions keeps a full window at each ring: with one window for all, the
        // commands of four partitions reached each coordinator a quarter as many at a time, in batches a
        // quarter the size (ADR 033).
        cluster = new SimCluster(2, 3, 1, 1, RegisterMachine::new, m -> { });
        try (EyrieClient client = new EyrieClient(cluster.sim.endpoint(cluster.sim.clients()[0]),
                new RegisterMachine.Oracle(), 64, 60_000, 2)) {
            cluster.sim.holdMulticasts();
            List<CompletableFuture<Object>> x = new ArrayList<>();
            List<CompletableFuture<Object>> y = new ArrayList<>();
            x.add(client.executeAsync(new Command("add", "x1", 1)));
            x.add(client.executeAsync(new Command("add", "x1", 1)));
            y.add(client.executeAsync(new Command("add", "y2", 1)));
            y.add(client.executeAsync(new Command("add", "y2", 1)));
            assertEquals(0, client.backlog(), "two commands for each of two rings fit a window of two per ring");
            assertEquals(0, client.multicastsQueued());
            x.add(client.executeAsync(new Command("add", "x1", 1)));
            assertEquals(1, client.backlog(), "ring 1 has two at the proposer: the third waits");
            y.add(client.executeAsync(new Command("add", "y2", 1)));
            assertEquals(2, client.backlog(), "ring 2 has room, but no command passes an earlier one waiting");
            cluster.sim.orderHeldMulticasts();
            for (int i = 0; i < 3; i++) {
                assertEquals(i + 1, x.get(i).get(30, TimeUnit.SECONDS), "add " + i + " to x1, in submission order");
                assertEquals(i + 1, y.get(i).get(30, TimeUnit.SECONDS), "add " + i + " to y2, in submission order");
            }
            assertEquals(0, client.backlog());
            assertEquals(2, client.multicastsQueued());
        }
    }
}
