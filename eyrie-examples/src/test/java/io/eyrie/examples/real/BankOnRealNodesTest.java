package io.eyrie.examples.real;

import io.eyrie.core.EyrieClient;
import io.eyrie.core.linearizability.BankModel;
import io.eyrie.core.linearizability.History;
import io.eyrie.core.linearizability.LinearizabilityChecker;
import io.eyrie.examples.bank.BankCommands;
import io.eyrie.examples.bank.BankOracle;
import io.eyrie.examples.cluster.LocalClusterFile;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The example bank over 3 partitions x 3 replicas on real Multi-Ring Paxos nodes (Netty on
 * loopback, in one JVM), with concurrent clients doing transfers that mostly cross partitions.
 * S-SMR's claims: the history the clients observe is linearizable, the replicas of a partition go
 * through the same states, and money is conserved at every checkpoint of every replica (its own
 * money plus the other partitions' money at the same global position is the opening money).
 */
class BankOnRealNodesTest {

    private static final int PARTITIONS = 3;
    private static final int REPLICAS = 3;
    private static final int CLIENT_NODES = 4;
    private static final int THREADS_PER_CLIENT = 2;
    private static final int OPS_PER_THREAD = 40;
    private static final int ACCOUNTS = 9;
    private static final long OPENING = 100;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentCrossPartitionTransfersAreLinearizableAndConserveMoneyAtEveryCheckpoint(@TempDir Path dir)
            throws Exception {
        LocalClusterFile layout = LocalClusterFile.create(PARTITIONS, REPLICAS, CLIENT_NODES, "memory", dir.resolve("data"));
        ClusterConfig config = ClusterConfig.parse(layout.text(), "generated");
        List<MulticastNode> nodes = new ArrayList<>();
        Map<Integer, RecordingBank> replicas = new TreeMap<>();
        List<EyrieClient> clients = new ArrayList<>();
        try {
            for (int p = 1; p <= PARTITIONS; p++) {
                for (int id : layout.replicasOf(p)) {
                    MulticastNode node = MulticastNode.builder(config, id).build();
                    nodes.add(node);
                    RecordingBank bank = new RecordingBank(node, ACCOUNTS, OPENING);
                    bank.setCheckpointing(dir.resolve("checkpoints/node-" + id), 25);
                    bank.setExchangeTimeoutMillis(200);
                    bank.runStateMachine();
                    replicas.put(id, bank);
                }
            }
            for (int id : layout.clientNodes()) {
                MulticastNode node = MulticastNode.builder(config, id).build();
                nodes.add(node);
                // a pure client delivers nothing, but its node must run to multicast and hear replies
                node.start(d -> { }, null);
                clients.add(new EyrieClient(node, new BankOracle(), 4, 1000));
            }

            History history = new History();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            Random seeds = new Random(42);
            for (int t = 0; t < CLIENT_NODES * THREADS_PER_CLIENT; t++) {
                int process = t;
                EyrieClient client = clients.get(t % CLIENT_NODES);
                long seed = seeds.nextLong();
                Thread thread = new Thread(() -> {
                    Random r = new Random(seed);
                    try {
                        for (int i = 0; i < OPS_PER_THREAD; i++) {
                            long call = System.nanoTime();
                            if (r.nextInt(10) < 7) {
                                int from = r.nextInt(ACCOUNTS);
                                int to = (from + 1 + r.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                                long amount = 1 + r.nextInt(60);
                                Object moved = client.execute(BankCommands.transfer(from, to, amount));
                                history.add(process, call, System.nanoTime(), List.of("transfer", from, to, amount), moved);
                            } else {
                                int account = r.nextInt(ACCOUNTS);
                                Object balance = client.execute(BankCommands.balance(account));
                                history.add(process, call, System.nanoTime(), List.of("balance", account), balance);
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "bank-client-" + t);
                threads.add(thread);
                thread.start();
            }
            for (Thread t : threads) {
                t.join(90_000);
                assertTrue(!t.isAlive(), t.getName() + " did not finish its " + OPS_PER_THREAD + " commands within 90 s");
            }
            assertTrue(errors.isEmpty(), "client errors: " + errors);
            assertEquals(CLIENT_NODES * THREADS_PER_CLIENT * OPS_PER_THREAD, history.size(), "operations recorded");

            LinearizabilityChecker.Result verdict = new LinearizabilityChecker()
                    .check(new BankModel(ACCOUNTS, OPENING), history.operations());
            assertTrue(verdict.linearizable(), "history of " + history.size() + " operations is not linearizable: "
                    + verdict.explanation());

            // every replica of a partition executes the same commands, at the same positions, with the same money
            Map<Integer, List<RecordingBank.Money>> historyOf = new TreeMap<>();
            for (int p = 1; p <= PARTITIONS; p++) {
                int[] ids = layout.replicasOf(p);
                await(() -> sameHistory(replicas, ids), 30,
                        () -> "replicas " + java.util.Arrays.toString(ids) + " to execute the same commands; executed: "
                                + sizes(replicas, ids));
                historyOf.put(p, replicas.get(ids[0]).afterCommand());
            }
            int checkpoints = 0;
            for (RecordingBank bank : replicas.values()) {
                int mine = bank.getLocalPartition().getId();
                for (RecordingBank.Money at : bank.atCheckpoint()) {
                    long total = at.total();
                    for (int q = 1; q <= PARTITIONS; q++) {
                        if (q != mine) {
                            total += moneyAt(historyOf.get(q), at.position());
                        }
                    }
                    assertEquals(ACCOUNTS * OPENING, total, "money in the bank at the checkpoint of replica "
                            + bank.nodeId() + " (partition " + mine + ", position " + at.position() + ")");
                    checkpoints++;
                }
            }
            assertTrue(checkpoints >= 2 * replicas.size(), "expected at least two checkpoints per replica, got "
                    + checkpoints + " over " + replicas.size() + " replicas");
            long total = 0;
            for (int p = 1; p <= PARTITIONS; p++) {
                total += replicas.get(layout.replicasOf(p)[0]).localMoney();
            }
            assertEquals(ACCOUNTS * OPENING, total, "money in the bank at the end");
            System.out.printf("bank on real nodes: %d operations linearizable (%d states explored), %d checkpoints checked%n",
                    history.size(), verdict.statesExplored(), checkpoints);
        } finally {
            clients.forEach(EyrieClient::close);
            replicas.values().forEach(RecordingBank::close);
            nodes.forEach(MulticastNode::close);
        }
    }

    private static boolean sameHistory(Map<Integer, RecordingBank> replicas, int[] ids) {
        List<RecordingBank.Money> first = replicas.get(ids[0]).afterCommand();
        for (int i = 1; i < ids.length; i++) {
            if (!first.equals(replicas.get(ids[i]).afterCommand())) {
                return false;
            }
        }
        return true;
    }

    private static String sizes(Map<Integer, RecordingBank> replicas, int[] ids) {
        StringBuilder b = new StringBuilder();
        for (int id : ids) {
            b.append("node ").append(id).append('=').append(replicas.get(id).afterCommand().size()).append(' ');
        }
        return b.toString();
    }

    /** A partition's money after the last of its commands at or before {@code position}. */
    private static long moneyAt(List<RecordingBank.Money> history, long position) {
        long money = OPENING * (ACCOUNTS / PARTITIONS);
        for (RecordingBank.Money m : history) {
            if (m.position() <= position) {
                money = m.total();
            }
        }
        return money;
    }

    static void await(BooleanSupplier condition, int seconds, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + seconds + " s waiting for " + what.get());
            }
            Thread.sleep(20); // polls state that has no event to wait on; bounded by the deadline
        }
    }
}
