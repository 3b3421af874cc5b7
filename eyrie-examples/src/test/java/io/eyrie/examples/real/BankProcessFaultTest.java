package io.eyrie.examples.real;

import io.eyrie.core.EyrieClient;
import io.eyrie.core.linearizability.BankModel;
import io.eyrie.core.linearizability.History;
import io.eyrie.core.linearizability.LinearizabilityChecker;
import io.eyrie.examples.bank.BankCommands;
import io.eyrie.examples.bank.BankOracle;
import io.eyrie.examples.bank.BankReplicaMain;
import io.eyrie.examples.cluster.LocalClusterFile;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.eyrie.examples.real.BankOnRealNodesTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bank, 3 partitions x 3 replicas, each replica its own JVM ({@link BankReplicaMain}) with
 * durable acceptor logs and checkpoints, under load from this JVM. A replica is killed with SIGKILL,
 * then the designated sender of another partition: commands keep completing; each restarts on the
 * same directories, restores its checkpoint, replays, and then holds exactly its peers' state (the
 * same digest at the same position of the order). Or a replica loses its disk and comes back empty.
 * Either way the history is checked for linearizability.
 */
class BankProcessFaultTest {

    private static final int PARTITIONS = 3;
    private static final int REPLICAS = 3;
    private static final int ACCOUNTS = 9;
    private static final long OPENING = 100;
    private static final int LOAD_THREADS = 4;
    private static final int PROGRESS = 60;

    /** What a scenario does to the running cluster while the load goes on. */
    private interface Faults {
        void inject(LocalClusterFile layout, ReplicaProcesses replicas, AtomicInteger completed) throws Exception;
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void killedReplicasIncludingADesignatedSenderRecoverToTheirPeersState(@TempDir Path dir) throws Exception {
        runUnderLoad(dir, (layout, replicas, completed) -> {
            int plainReplica = layout.replicasOf(2)[1];
            int designatedSender = layout.replicasOf(1)[0];
            for (int victim : new int[] {plainReplica, designatedSender}) {
                awaitCheckpoint(dir.resolve("checkpoints/node-" + victim), replicas);
                replicas.kill9(victim);
                awaitProgress(completed, PROGRESS, 60, "commands to keep completing after node " + victim
                        + " was killed with SIGKILL", replicas);
                replicas.start(victim);
                int restarted = victim;
                await(() -> output(replicas, restarted).contains("node=" + restarted + " restores checkpoint"), 30,
                        () -> "restarted node " + restarted + " to restore a checkpoint; it printed:\n"
                                + output(replicas, restarted));
                awaitProgress(completed, PROGRESS, 60, "commands to keep completing after node " + victim
                        + " restarted", replicas);
            }
        });
    }

    /**
     * A replica's disk is lost (kill -9, its checkpoints and acceptor logs deleted) after its partition's acceptors
     * trimmed their logs, so replaying from the start is impossible: restarted empty, with nothing configured
     * beyond checkpointing, it takes a peer's checkpoint over the ring port (ADR 104) and then holds its peers'
     * state. Before, a plain Eyrie replica had no source of peer checkpoints unless the application wired one:
     * it started from the beginning and never executed again.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aReplicaThatLostItsDiskTakesAPeersCheckpointWithoutBeingToldWhere(@TempDir Path dir) throws Exception {
        runUnderLoad(dir, (layout, replicas, completed) -> {
            int victim = layout.replicasOf(2)[2];
            for (int n : layout.replicasOf(2)) {
                // two checkpoints each: the acceptors trim below the older, so the start of the ring is gone
                awaitCheckpoints(dir.resolve("checkpoints/node-" + n), 2, replicas);
            }
            awaitProgress(completed, PROGRESS, 60, "commands after every replica of partition 2 checkpointed twice",
                    replicas);
            replicas.kill9(victim);
            deleteTree(dir.resolve("checkpoints/node-" + victim));
            deleteTree(dir.resolve("data/node-" + victim));
            awaitProgress(completed, PROGRESS, 60, "commands to keep completing after node " + victim
                    + " lost its disk", replicas);
            replicas.start(victim);
            await(() -> output(replicas, victim).contains("restored one from a peer"), 60,
                    () -> "node " + victim + " to restore a peer's checkpoint; it printed:\n" + output(replicas, victim));
            awaitProgress(completed, PROGRESS, 60, "commands to keep completing after node " + victim
                    + " restarted", replicas);
        });
    }

    private void runUnderLoad(Path dir, Faults faults) throws Exception {
        LocalClusterFile layout = LocalClusterFile.create(PARTITIONS, REPLICAS, 2, "durable", dir.resolve("data"));
        Path configFile = layout.writeTo(dir.resolve("cluster.cfg"));
        Path digests = dir.resolve("digests");
        ClusterConfig config = ClusterConfig.parse(layout.text(), configFile.toString());
        List<MulticastNode> clientNodes = new ArrayList<>();
        List<EyrieClient> clients = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        try (ReplicaProcesses replicas = new ReplicaProcesses(dir.resolve("out"), BankReplicaMain.class.getName(),
                node -> List.of("--config", configFile.toString(), "--node", String.valueOf(node),
                        "--checkpoints", dir.resolve("checkpoints/node-" + node).toString(), "--interval", "40",
                        "--accounts", String.valueOf(ACCOUNTS), "--opening", String.valueOf(OPENING),
                        "--digests", digests.toString()))) {
            for (int p = 1; p <= PARTITIONS; p++) {
                for (int node : layout.replicasOf(p)) {
                    replicas.start(node);
                }
            }
            for (int id : layout.clientNodes()) {
                MulticastNode node = MulticastNode.builder(config, id).build();
                clientNodes.add(node);
                node.start(d -> { }, null);
                clients.add(new EyrieClient(node, new BankOracle(), 4, 1000));
            }
            History history = new History();
            AtomicInteger completed = new AtomicInteger();
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < LOAD_THREADS; t++) {
                int process = t;
                EyrieClient client = clients.get(t % clients.size());
                Thread thread = new Thread(() -> {
                    Random r = new Random(process);
                    try {
                        while (!stop.get()) {
                            long call = System.nanoTime();
                            if (r.nextInt(10) < 8) {
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
                            completed.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "bank-load-" + t);
                load.add(thread);
                thread.start();
            }
            awaitProgress(completed, PROGRESS, 90, "the cluster to serve its first commands", replicas);

            faults.inject(layout, replicas, completed);
            stop.set(true);
            for (Thread t : load) {
                t.join(30_000);
                assertTrue(!t.isAlive(), t.getName() + " did not stop within 30 s");
            }
            assertTrue(errors.isEmpty(), "client errors: " + errors);

            // the state of every replica at the same point of each partition's order
            for (int p = 1; p <= PARTITIONS; p++) {
                String tag = "final-" + p;
                clients.get(0).execute(BankCommands.digest(p, tag));
                int[] ids = layout.replicasOf(p);
                await(() -> java.util.Arrays.stream(ids).allMatch(n -> digestLine(digests, n, tag) != null), 60,
                        () -> "every replica of partition " + tagged(ids) + " to execute digest command " + tag
                                + "\n" + replicas.tails());
                String reference = digestLine(digests, ids[0], tag);
                for (int n : ids) {
                    assertEquals(reference, digestLine(digests, n, tag), "replica " + n + " of partition " + p
                            + " after the kills: (tag position digest) differs from replica " + ids[0] + "'s");
                }
            }

            long total = 0;
            for (int a = 0; a < ACCOUNTS; a++) {
                long call = System.nanoTime();
                Object balance = clients.get(0).execute(BankCommands.balance(a));
                history.add(LOAD_THREADS, call, System.nanoTime(), List.of("balance", a), balance);
                total += (Long) balance;
            }
            assertEquals(ACCOUNTS * OPENING, total, "money in the bank after the kills and restarts");
            LinearizabilityChecker.Result verdict = new LinearizabilityChecker()
                    .check(new BankModel(ACCOUNTS, OPENING), history.operations());
            assertTrue(verdict.linearizable(), "history of " + history.size() + " operations is not linearizable: "
                    + verdict.explanation());
            System.out.printf("bank processes: %d operations through the faults, linearizable; digests agree%n",
                    history.size());
        } finally {
            stop.set(true);
            clients.forEach(EyrieClient::close);
            clientNodes.forEach(MulticastNode::close);
        }
    }

    private static String output(ReplicaProcesses replicas, int node) {
        try {
            return Files.readString(replicas.outputOf(node));
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String tagged(int[] ids) {
        return java.util.Arrays.toString(ids);
    }

    /** The {@code tag position digest} line replica {@code node} logged for {@code tag}, or null. */
    private static String digestLine(Path digests, int node, String tag) {
        Path f = digests.resolve("digest-" + node + ".log");
        try {
            if (!Files.exists(f)) {
                return null;
            }
            String found = null;
            for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
                if (line.startsWith(tag + " ")) {
                    if (found != null && !found.equals(line)) {
                        throw new AssertionError("replica " + node + " executed " + tag + " twice with different "
                                + "results: '" + found + "' and '" + line + "'");
                    }
                    found = line;
                }
            }
            return found;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void awaitProgress(AtomicInteger completed, int more, int seconds, String what,
                                      ReplicaProcesses replicas) throws InterruptedException {
        int target = completed.get() + more;
        await(() -> completed.get() >= target, seconds,
                () -> what + ": " + completed.get() + " commands completed, expected " + target + "\n" + replicas.tails());
    }

    /** A victim must have a checkpoint to restore, or the test would not exercise recovery from one. */
    private static void awaitCheckpoint(Path checkpointDir, ReplicaProcesses replicas) throws InterruptedException {
        awaitCheckpoints(checkpointDir, 1, replicas);
    }

    private static void awaitCheckpoints(Path checkpointDir, int count, ReplicaProcesses replicas)
            throws InterruptedException {
        await(() -> {
            try (var files = Files.list(checkpointDir)) {
                return files.filter(f -> f.getFileName().toString().endsWith(".kryo")).count() >= count;
            } catch (IOException e) {
                return false;
            }
        }, 60, () -> count + " checkpoints in " + checkpointDir + "\n" + replicas.tails());
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
