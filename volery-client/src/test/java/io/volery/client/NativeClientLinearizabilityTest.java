package io.volery.client;

import io.eyrie.core.linearizability.LinearizabilityChecker;
import io.eyrie.core.linearizability.Model;
import io.eyrie.core.linearizability.Operation;
import io.eyrie.core.linearizability.RegistersModel;
import io.eyrie.multicast.ClusterConfig;
import io.volery.server.config.VoleryConfig;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Native sessions over two client nodes read and write four registers (znodes, two in each of two partitions
 * of three replica processes) one call at a time, some reads and writes of all four at once (a multiRead or a
 * multi across both partitions), while node 1, the coordinator of partition 1's ring and of the ALL ring, is killed with
 * {@code kill -9}. The history of calls and answers must be linearizable; a call without an answer
 * (ConnectionLoss) may or may not have taken effect.
 *
 * <p>Shown to catch stale reads: with replicas answering getData from a read cache kept 100 ms (a planted
 * bug in {@code ZnodeTree}), the checker finds no order for the history (a readAll that saw values already
 * overwritten).
 */
class NativeClientLinearizabilityTest {

    private static final int REGISTERS = 4;
    private static final int SESSIONS_PER_NODE = 3;
    private static final int CALLS = 250;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void nativeSessionsAreLinearizableAcrossTheCoordinatorsKill() throws Exception {
        try (ProcessReplicas replicas = new ProcessReplicas(dir, 2, 2)) {
            ClusterConfig config = VoleryConfig.loadForClient(replicas.config()).cluster();
            Subtrees subtrees = new Subtrees(new int[] {1, 2});
            String[] paths = new String[REGISTERS];
            for (int r = 0; r < REGISTERS; r++) {
                paths[r] = subtrees.in(r % 2 + 1, "register");
            }
            List<RingAccess> accesses = new ArrayList<>();
            try {
                for (int n = 0; n < 2; n++) {
                    accesses.add(RingAccess.open(config, replicas.firstClientNode() + n, RingAccess.Options.defaults()));
                }
                try (VoleryClient setup = VoleryClient.connect(accesses.get(0), 30_000, e -> { })) {
                    for (String p : paths) {
                        setup.create(p, bytes(0), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    }
                }
                List<Operation> history = new CopyOnWriteArrayList<>();
                List<Throwable> failures = new CopyOnWriteArrayList<>();
                AtomicInteger lost = new AtomicInteger();
                AtomicInteger done = new AtomicInteger();
                long start = System.nanoTime();
                List<Thread> threads = new ArrayList<>();
                for (int k = 0; k < 2 * SESSIONS_PER_NODE; k++) {
                    int client = k;
                    RingAccess rings = accesses.get(k / SESSIONS_PER_NODE);
                    threads.add(new Thread(() -> {
                        Random rnd = new Random(17L * client + 3);
                        try (VoleryClient c = VoleryClient.connect(rings, 30_000, e -> { })) {
                            for (int i = 0; i < CALLS; i++) {
                                int dice = rnd.nextInt(20);
                                int reg = rnd.nextInt(REGISTERS);
                                int value = (client + 1) * 100_000 + i + 1;
                                List<Object> input = dice < 6 ? List.of("read", reg) : dice < 9 ? List.of("readAll")
                                        : dice < 17 ? List.of("write", reg, value) : List.of("writeAll", value);
                                long call = System.nanoTime() - start;
                                Object out;
                                try {
                                    out = call(c, paths, input);
                                } catch (KeeperException.ConnectionLossException e) {
                                    lost.incrementAndGet();
                                    if (!input.get(0).toString().startsWith("read")) {
                                        history.add(Operation.pending(client, call, input));
                                    }
                                    continue;
                                }
                                history.add(new Operation(client, call, System.nanoTime() - start, input, out));
                                Thread.sleep(5 + rnd.nextInt(20));
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                        } finally {
                            done.incrementAndGet();
                        }
                    }, "native-lin-" + k));
                }
                threads.forEach(Thread::start);
                // the kill comes once every session is well into its calls
                while (history.size() < 2 * SESSIONS_PER_NODE * CALLS / 3 && done.get() == 0) {
                    Thread.sleep(20);
                }
                int before = history.size();
                replicas.kill(1);
                for (Thread t : threads) {
                    t.join(200_000);
                }
                assertTrue(failures.isEmpty(), "sessions failed: " + failures);
                assertFalse(replicas.isAlive(1), "node 1 was killed");
                long after = history.stream().filter(o -> o.returnNanos() != Long.MAX_VALUE).count() - before;
                assertTrue(after > CALLS, "calls answered after the kill: " + after);
                LinearizabilityChecker.Result r = new LinearizabilityChecker().check(new Registers(), history);
                assertTrue(r.linearizable(), "not linearizable: " + r.explanation());
                System.out.println("native sessions across the coordinator's kill: " + history.size() + " calls ("
                        + before + " before the kill, " + lost.get() + " without an answer), linearizable ("
                        + r.statesExplored() + " states)");
                assertEquals(0, failures.size());
            } finally {
                accesses.forEach(RingAccess::close);
            }
        }
    }

    private static Object call(VoleryClient c, String[] paths, List<Object> input) throws Exception {
        switch ((String) input.get(0)) {
            case "read" -> {
                return Integer.parseInt(new String(c.getData(paths[(Integer) input.get(1)], false, null),
                        StandardCharsets.UTF_8));
            }
            case "readAll" -> {
                List<Op> ops = new ArrayList<>();
                for (String p : paths) {
                    ops.add(Op.getData(p));
                }
                List<Integer> values = new ArrayList<>();
                for (org.apache.zookeeper.OpResult res : c.multi(ops)) {
                    values.add(Integer.parseInt(new String(((org.apache.zookeeper.OpResult.GetDataResult) res).getData(),
                            StandardCharsets.UTF_8)));
                }
                return values;
            }
            case "write" -> {
                c.setData(paths[(Integer) input.get(1)], bytes((Integer) input.get(2)), -1);
                return "ok";
            }
            default -> {
                List<Op> ops = new ArrayList<>();
                for (String p : paths) {
                    ops.add(Op.setData(p, bytes((Integer) input.get(1)), -1));
                }
                c.multi(ops);
                return "ok";
            }
        }
    }

    /** The registers, and {@code readAll}: every register in one multiRead (output: their values in order). */
    private static final class Registers implements Model<RegistersModel.State> {
        private final RegistersModel registers = new RegistersModel(REGISTERS);

        @Override
        public RegistersModel.State init() {
            return registers.init();
        }

        @Override
        public RegistersModel.State step(RegistersModel.State s, Object input, Object output) {
            if (!((List<?>) input).get(0).equals("readAll")) {
                return registers.step(s, input, output);
            }
            List<Integer> values = new ArrayList<>();
            for (int v : s.values()) {
                values.add(v);
            }
            return output == Operation.UNKNOWN || values.equals(output) ? s : null;
        }
    }

    private static byte[] bytes(int value) {
        return Integer.toString(value).getBytes(StandardCharsets.UTF_8);
    }
}
