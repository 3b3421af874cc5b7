package io.volery.server;

import io.eyrie.core.linearizability.LinearizabilityChecker;
import io.eyrie.core.linearizability.Model;
import io.eyrie.core.linearizability.Operation;
import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checked history for ADR 053: clients on every node of a three-partition cluster create, delete and
 * read three top-level nodes (one owned by each partition, the first by the root's owner) and list the
 * root, concurrently; the history must be linearizable against a set of names. Reads of a node go to its
 * owner, reads of the root to the root's owner, and a create or delete waits for those two partitions
 * only, so a read anywhere must never miss a change that was answered, nor see one and then lose it.
 * Meanwhile one replica after another pauses for up to 120 ms, so that they apply changes at visibly
 * different times.
 */
class TopLevelLinearizabilityTest {

    private record Input(String op, int name) {
    }

    /** The set of existing names as a bit mask. */
    private static final class NamesModel implements Model<Integer> {
        @Override
        public Integer init() {
            return 0;
        }

        @Override
        public Integer step(Integer state, Object input, Object output) {
            Input in = (Input) input;
            if (output == Operation.UNKNOWN) {
                return switch (in.op()) {
                    case "create" -> state | (1 << in.name());
                    case "delete" -> state & ~(1 << in.name());
                    default -> state;
                };
            }
            boolean present = (state & (1 << in.name())) != 0;
            boolean fits = switch (in.op()) {
                case "create" -> output.equals(present ? "exists" : "ok");
                case "delete" -> output.equals(present ? "ok" : "none");
                case "exists" -> output.equals(present);
                case "children" -> output.equals(state);
                default -> false;
            };
            if (!fits) {
                return null;
            }
            return switch (in.op()) {
                case "create" -> state | (1 << in.name());
                case "delete" -> state & ~(1 << in.name());
                default -> state;
            };
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void topLevelCreatesDeletesAndRootReadsAreLinearizable() throws Exception {
        try (VoleryCluster c = new VoleryCluster(3, 2, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            String[] names = new String[3];
            for (int p = 0; p < 3; p++) {
                for (int i = 0; names[p] == null; i++) {
                    if (partitioner.ownerOf("/lin-" + i) == c.partitions()[p]) {
                        names[p] = "/lin-" + i;
                    }
                }
            }
            List<Operation> history = new CopyOnWriteArrayList<>();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime();
            for (int k = 0; k < c.nodes().size(); k++) {
                int client = k;
                String connect = "127.0.0.1:" + c.nodes().get(k).clientAddress().getPort();
                threads.add(new Thread(() -> {
                    Random rnd = new Random(31L * client + 7);
                    try {
                        ZooKeeper zk = VolerySmokeTest.connect(connect);
                        try {
                            for (int i = 0; i < 60; i++) {
                                int name = rnd.nextInt(3);
                                int dice = rnd.nextInt(10);
                                String op = dice < 3 ? "create" : dice < 6 ? "delete" : dice < 8 ? "exists" : "children";
                                long call = System.nanoTime() - start;
                                Object out = run(zk, op, names, name);
                                history.add(new Operation(client, call, System.nanoTime() - start, new Input(op, name), out));
                            }
                        } finally {
                            zk.close();
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }, "lin-client-" + k));
            }
            // one replica at a time falls behind for a while (its executor sleeps after a command), so that
            // partitions and replicas apply the changes at visibly different times
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread lagger = new Thread(() -> {
                Random rnd = new Random(99);
                while (running.get()) {
                    VoleryNode n = c.nodes().get(rnd.nextInt(c.nodes().size()));
                    fallBehind(n, 10 + rnd.nextInt(110));
                    try {
                        Thread.sleep(40 + rnd.nextInt(60));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "lin-lagger");
            lagger.start();
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(150_000);
            }
            running.set(false);
            lagger.join(10_000);
            assertTrue(failures.isEmpty(), "clients failed: " + failures);
            LinearizabilityChecker.Result r = new LinearizabilityChecker().check(new NamesModel(), history);
            assertTrue(r.linearizable(), "not linearizable: " + r.explanation());
        }
    }

    private static Object run(ZooKeeper zk, String op, String[] names, int name) throws Exception {
        String path = names[name];
        switch (op) {
            case "create" -> {
                try {
                    zk.create(path, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    return "ok";
                } catch (KeeperException.NodeExistsException e) {
                    return "exists";
                }
            }
            case "delete" -> {
                try {
                    zk.delete(path, -1);
                    return "ok";
                } catch (KeeperException.NoNodeException e) {
                    return "none";
                }
            }
            case "exists" -> {
                return zk.exists(path, false) != null;
            }
            default -> {
                int mask = 0;
                for (String child : zk.getChildren("/", false)) {
                    for (int n = 0; n < names.length; n++) {
                        if (("/" + child).equals(names[n])) {
                            mask |= 1 << n;
                        }
                    }
                }
                return mask;
            }
        }
    }

    /** {@code n}'s replica falls behind for {@code millis}: its executor sleeps after the command it is on. */
    static void fallBehind(VoleryNode n, long millis) {
        n.replica().probe().inspect(t -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        });
    }
}
