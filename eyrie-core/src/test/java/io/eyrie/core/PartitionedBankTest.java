package io.eyrie.core;

import io.eyrie.core.linearizability.BankModel;
import io.eyrie.core.linearizability.History;
import io.eyrie.core.linearizability.LinearizabilityChecker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bank over 3 partitions x 3 replicas, concurrent clients doing cross-partition transfers, with a
 * lossy, duplicating, delaying direct channel (so exchanges are asked for again and replies retried).
 * S-SMR claims: the history is linearizable, and money is conserved at every checkpoint of every
 * replica (the partitions' totals at the same position add up to the opening money).
 */
class PartitionedBankTest {

    private static final int PARTITIONS = 3;
    private static final int ACCOUNTS = 9;
    private static final long OPENING = 100;

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void concurrentCrossPartitionTransfersAreLinearizableAndConserveMoney(@TempDir Path dir) throws Exception {
        int seeds = Math.min(5, Integer.getInteger("sim.seeds", 2));
        long first = Long.getLong("sim.firstSeed", 1);
        for (long seed = first; seed < first + seeds; seed++) {
            runBank(seed, dir.resolve("seed-" + seed));
        }
    }

    private void runBank(long seed, Path dir) throws Exception {
        cluster = new SimCluster(PARTITIONS, 3, 4, seed,
                endpoint -> new BankMachine(endpoint, PARTITIONS, ACCOUNTS, OPENING),
                m -> {
                    m.setExchangeTimeoutMillis(20);
                    m.setCheckpointing(dir.resolve("node-" + m.getLocalPartition().getId() + "-"
                            + System.identityHashCode(m)), 4);
                })
                .withClients(new BankMachine.Oracle(PARTITIONS), 4, 300);
        cluster.sim.setDirectFaults(0.02, 0.02, 2);
        History history = new History();
        Random random = new Random(seed);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < cluster.clients().size(); c++) {
            int client = c;
            long clientSeed = random.nextLong();
            Thread t = new Thread(() -> {
                Random r = new Random(clientSeed);
                for (int i = 0; i < 20; i++) {
                    long call = System.nanoTime();
                    if (r.nextInt(10) < 7) {
                        int from = r.nextInt(ACCOUNTS);
                        int to = (from + 1 + r.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                        long amount = 1 + r.nextInt(60);
                        Object done = cluster.client(client).execute(new Command("transfer", from, to, amount));
                        history.add(client, call, System.nanoTime(), List.of("transfer", from, to, amount), done);
                    } else {
                        int a = r.nextInt(ACCOUNTS);
                        Object balance = cluster.client(client).execute(new Command("balance", a));
                        history.add(client, call, System.nanoTime(), List.of("balance", a), balance);
                    }
                }
            }, "bank-client-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
            assertTrue(!t.isAlive(), "seed " + seed + ": client " + t.getName() + " did not finish within 60 s");
        }
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        System.out.printf("bank seed=%d operations=%d asks=%d duplicatesAnswered=%d checkpoints=%d%n", seed,
                history.size(), cluster.total(s -> s.asksSent.get()), cluster.total(s -> s.duplicatesAnswered.get()),
                cluster.total(s -> s.checkpointsTaken.get()));

        LinearizabilityChecker.Result verdict = new LinearizabilityChecker().check(new BankModel(ACCOUNTS, OPENING),
                history.operations());
        assertTrue(verdict.linearizable(), "seed " + seed + ": " + verdict.explanation());

        // the replicas of a partition went through the same states
        Map<Integer, List<BankMachine.Money>> historyOfPartition = new TreeMap<>();
        for (int p = 1; p <= PARTITIONS; p++) {
            List<BankMachine.Money> reference = null;
            for (int node : cluster.sim.replicasOf(p)) {
                List<BankMachine.Money> mine = ((BankMachine) cluster.replica(node)).afterCommand();
                if (reference == null) {
                    reference = mine;
                } else {
                    assertEquals(reference, mine, "seed " + seed + ": replicas of partition " + p + " diverge");
                }
            }
            historyOfPartition.put(p, reference);
        }
        long totalOpening = ACCOUNTS * OPENING;
        int checkpoints = 0;
        for (Map.Entry<Integer, StateMachine> e : cluster.replicas().entrySet()) {
            BankMachine m = (BankMachine) e.getValue();
            int mine = m.getLocalPartition().getId();
            for (BankMachine.Money at : m.atCheckpoint()) {
                long total = at.total();
                for (int q = 1; q <= PARTITIONS; q++) {
                    if (q != mine) {
                        total += moneyAt(historyOfPartition.get(q), at.position());
                    }
                }
                assertEquals(totalOpening, total, "seed " + seed + ": money at the checkpoint of replica "
                        + e.getKey() + " (position " + at.position() + ")");
                checkpoints++;
            }
            assertEquals(moneyAt(historyOfPartition.get(mine), Long.MAX_VALUE), m.localMoney(),
                    "seed " + seed + ": replica " + e.getKey() + "'s final money matches its recorded history");
        }
        assertTrue(checkpoints >= cluster.replicas().size(), "expected checkpoints at every replica, got " + checkpoints);
        long finalTotal = 0;
        for (int p = 1; p <= PARTITIONS; p++) {
            finalTotal += ((BankMachine) cluster.replica(cluster.sim.replicasOf(p)[0])).localMoney();
        }
        assertEquals(totalOpening, finalTotal, "seed " + seed + ": total money at the end");
        cluster.close();
        cluster = null;
    }

    /** A partition's money after the last of its commands at or before {@code position}. */
    private static long moneyAt(List<BankMachine.Money> history, long position) {
        long money = OPENING * (ACCOUNTS / PARTITIONS);
        for (BankMachine.Money m : history) {
            if (m.position() <= position) {
                money = m.total();
            }
        }
        return money;
    }
}
