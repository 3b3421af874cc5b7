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
                    m.setCheckpointing(dir.resolve("node-" + ((BankMachine) m).nodeId()), 4);
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

    /**
     * The designated sender of a partition crashes mid-run: the other replicas answer the asks, the
     * service goes on, and the crashed replica later restarts from its checkpoint and catches up.
     */
    @Test
    void aCrashedDesignatedSenderIsReplacedAndRecoversFromItsCheckpoint(@TempDir Path dir) throws Exception {
        long seed = Long.getLong("sim.firstSeed", 1);
        cluster = new SimCluster(PARTITIONS, 3, 2, seed,
                endpoint -> new BankMachine(endpoint, PARTITIONS, ACCOUNTS, OPENING),
                m -> {
                    m.setExchangeTimeoutMillis(20);
                    m.setCheckpointing(dir.resolve("node-" + ((BankMachine) m).nodeId()), 3);
                })
                .withClients(new BankMachine.Oracle(PARTITIONS), 4, 300);
        int designated = cluster.sim.replicasOf(2)[0];
        History history = new History();
        Random random = new Random(seed);
        for (int i = 0; i < 40; i++) {
            if (i == 15) {
                // checkpoints are written in the background: let the newest reach the disk first
                SimCluster.awaitTrue("the designated sender's checkpoint is on disk",
                        () -> !cluster.runtime(designated).checkpointWritePending());
                cluster.crash(designated);
            }
            int client = i % 2;
            int from = random.nextInt(ACCOUNTS);
            int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
            long amount = 1 + random.nextInt(60);
            long call = System.nanoTime();
            Object done = cluster.client(client).execute(new Command("transfer", from, to, amount));
            history.add(client, call, System.nanoTime(), List.of("transfer", from, to, amount), done);
        }
        long total = 0;
        for (int a = 0; a < ACCOUNTS; a++) {
            long call = System.nanoTime();
            Object balance = cluster.client(0).execute(new Command("balance", a));
            history.add(0, call, System.nanoTime(), List.of("balance", a), balance);
            total += (Long) balance;
        }
        assertEquals(ACCOUNTS * OPENING, total, "money after the crash");
        LinearizabilityChecker.Result verdict = new LinearizabilityChecker().check(new BankModel(ACCOUNTS, OPENING),
                history.operations());
        assertTrue(verdict.linearizable(), verdict.explanation());
        int[] peers = cluster.sim.replicasOf(2);
        // Only the designated sender sends exchanges until someone asks; then an asked replica answers
        // (if it has executed the command yet) and volunteers for a while. Which of the two shows up
        // depends on timing, so count what the survivors sent either way.
        assertTrue(cluster.stats(peers[1]).exchangesSent.get() + cluster.stats(peers[2]).exchangesSent.get() > 0,
                "the surviving replicas of partition 2 should have sent exchanges in place of the crashed sender");

        // the crashed replica restarts from its newest checkpoint (a fresh object, as after a process restart)
        StateMachine restarted = cluster.startReplica(designated);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(((BankMachine) cluster.replica(peers[1])).localMoney(), ((BankMachine) restarted).localMoney(),
                "the restarted replica holds the same money as its peers");
        long replayed = cluster.stats(designated).commandsExecuted.get();
        long all = cluster.stats(peers[1]).commandsExecuted.get();
        assertTrue(replayed < all - 5, "the restarted replica should replay from its checkpoint, not from the "
                + "beginning: it executed " + replayed + " of its partition's " + all + " commands");
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
