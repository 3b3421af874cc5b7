package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StateMachine#exchange}: values computed during execution reach every other destination
 * partition, as remote objects do, even when the designated senders' messages are lost.
 */
class ValueExchangeTest {

    /** "contribute k": every partition contributes id*k, twice (two rounds), and answers the totals. */
    public static final class ContributingMachine extends StateMachine {
        public ContributingMachine(io.eyrie.multicast.MulticastEndpoint endpoint) {
            super(endpoint, new AllPartitions());
        }

        @Override
        public Object executeCommand(Command c) {
            c.rewind();
            c.getNext();
            int k = (Integer) c.getNext();
            int mine = getLocalPartition().getId() * k;
            long position = getCurrentPosition();
            int first = mine;
            for (Map.Entry<Partition, Object> e : exchange(mine).entrySet()) {
                first += (Integer) e.getValue();
            }
            // A second round whose value depends on the first: rounds must not be confused.
            int second = first + getLocalPartition().getId();
            for (Map.Entry<Partition, Object> e : exchange(second).entrySet()) {
                second += (Integer) e.getValue();
            }
            return first + "/" + second + "@" + position;
        }
    }

    public static final class AllPartitions extends PartitioningOracle {
        @Override
        public Set<Partition> getDestinations(Command c) {
            return new TreeSet<>(Partition.getPartitionList());
        }

        @Override
        public Partition getPartition(Object objectId) {
            return Partition.get(1);
        }
    }

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyPartitionGetsEveryOtherPartitionsValue_inEachRound() throws Exception {
        cluster = new SimCluster(3, 2, 1, 7, ContributingMachine::new, m -> m.setExchangeTimeoutMillis(50))
                .withClients(new AllPartitions(), 4, 60_000);
        // partitions 1..3 contribute 1k, 2k, 3k: first = 6k; second = sum over p of (6k + p) = 18k + 6
        long last = -1;
        for (int k = 1; k <= 5; k++) {
            String[] r = ((String) cluster.client(0).execute(new Command("contribute", k))).split("@");
            assertEquals((6 * k) + "/" + (18 * k + 6), r[0]);
            long position = Long.parseLong(r[1]);
            assertTrue(position > last, "getCurrentPosition() increases: " + position + " after " + last);
            last = position;
        }
        cluster.assertNoReplicaFailed();
    }

    @Test
    void lostExchangesAreRecoveredByAsking() throws Exception {
        cluster = new SimCluster(2, 3, 1, 11, ContributingMachine::new, m -> m.setExchangeTimeoutMillis(30))
                .withClients(new AllPartitions(), 4, 60_000);
        cluster.sim.setDirectFaults(0.3, 0.1, 5);
        for (int k = 1; k <= 10; k++) {
            // partitions 1, 2: first = 3k; second = (3k + 1) + (3k + 2) = 6k + 3
            String r = (String) cluster.client(0).execute(new Command("contribute", k));
            assertEquals((3 * k) + "/" + (6 * k + 3), r.substring(0, r.indexOf('@')));
        }
        cluster.assertNoReplicaFailed();
    }

    /**
     * "tell k": partition 1 tells the others 100*k with {@link StateMachine#receiveFrom}; every
     * partition answers what it got. Replicas of partition 1 wait on {@link #senderHeld} first, those of
     * the other partitions on {@link #held}.
     */
    public static final class TellingMachine extends StateMachine {
        static volatile java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(0);
        static volatile java.util.concurrent.CountDownLatch senderHeld = new java.util.concurrent.CountDownLatch(0);
        volatile Object told;

        public TellingMachine(io.eyrie.multicast.MulticastEndpoint endpoint) {
            super(endpoint, new AllPartitions());
        }

        @Override
        public Object executeCommand(Command c) {
            c.rewind();
            c.getNext();
            int k = (Integer) c.getNext();
            try {
                (getLocalPartition().getId() == 1 ? senderHeld : held).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            told = receiveFrom(Partition.get(1), getLocalPartition().getId() == 1 ? 100 * k : null);
            return "told " + told;
        }
    }

    /**
     * ADR 034: a one-way round does not make the sender wait for the others. Partitions 2 and 3 are
     * stuck before the round; partition 1 sends and finishes the command (its reply needs only their
     * bare signals, which leave at delivery). With {@link StateMachine#exchange} it would wait for
     * their values.
     */
    @Test
    void receiveFrom_theSenderGoesOnWithoutTheOthers_andTheyGetItsValue() throws Exception {
        TellingMachine.held = new java.util.concurrent.CountDownLatch(1);
        try {
            cluster = new SimCluster(3, 2, 1, 11, TellingMachine::new, m -> m.setExchangeTimeoutMillis(60_000))
                    .withClients(new AllPartitions(), 4, 60_000);
            var reply = cluster.client(0).executeAsync(new Command("tell", 7));
            for (int node : cluster.sim.replicasOf(1)) {
                SimCluster.awaitTrue("partition 1's replica " + node + " finishes the command alone",
                        () -> cluster.stats(node).commandsExecuted.get() == 1);
                assertEquals(700, ((TellingMachine) cluster.replica(node)).told);
            }
            for (int p = 2; p <= 3; p++) {
                for (int node : cluster.sim.replicasOf(p)) {
                    assertEquals(0, cluster.stats(node).commandsExecuted.get(), "partition " + p + " is held");
                }
            }
            TellingMachine.held.countDown();
            assertEquals("told 700", reply.get(30, java.util.concurrent.TimeUnit.SECONDS));
            cluster.awaitQuiescent();
            for (int p = 2; p <= 3; p++) {
                for (int node : cluster.sim.replicasOf(p)) {
                    assertEquals(700, ((TellingMachine) cluster.replica(node)).told, "node " + node + " got the value");
                }
            }
        } finally {
            TellingMachine.held.countDown();
        }
        cluster.assertNoReplicaFailed();
    }

    /** The receivers' wait for a one-way round's sender is counted; the sender waits for nobody. */
    @Test
    void receiveFrom_theReceiversWaitIsCounted_theSendersIsNot() throws Exception {
        TellingMachine.senderHeld = new java.util.concurrent.CountDownLatch(1);
        try {
            cluster = new SimCluster(3, 2, 1, 11, TellingMachine::new, m -> m.setExchangeTimeoutMillis(60_000))
                    .withClients(new AllPartitions(), 4, 60_000);
            var reply = cluster.client(0).executeAsync(new Command("tell", 3));
            Thread.sleep(500);
            assertFalse(reply.isDone(), "partition 1 is held before it tells");
            TellingMachine.senderHeld.countDown();
            assertEquals("told 300", reply.get(30, java.util.concurrent.TimeUnit.SECONDS));
            cluster.awaitQuiescent();
            for (int p = 1; p <= 3; p++) {
                for (int node : cluster.sim.replicasOf(p)) {
                    long waited = cluster.stats(node).valueWaitNanos.get();
                    if (p == 1) {
                        assertEquals(0, waited, "the sender " + node + " does not wait in its own round");
                    } else {
                        assertTrue(waited >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(300),
                                "receiver " + node + " waited about 500 ms for partition 1, counted " + waited / 1_000_000 + " ms");
                    }
                }
            }
        } finally {
            TellingMachine.senderHeld.countDown();
        }
        cluster.assertNoReplicaFailed();
    }
}
