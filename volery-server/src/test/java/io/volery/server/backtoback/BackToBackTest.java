package io.volery.server.backtoback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.volery.server.tree.CreateMode;
import io.volery.server.tree.TreeConfig;
import io.volery.server.tree.ZnodeTree;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The oracle test: the same seeded operations against a real ZooKeeper 3.9.5 and against a
 * {@link ZnodeTree}; every result code, created (sequential) name, Stat apart from zxids and times,
 * data and child list must agree, and so must the final subtree. Seeds: {@code -Db2b.seeds} (default 8).
 */
class BackToBackTest {

    private static final int OPS_PER_SEED = 150;

    @TempDir
    static Path dir;
    private static EmbeddedZooKeeper zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new EmbeddedZooKeeper(dir);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (zookeeper != null) {
            zookeeper.stop();
        }
    }

    @Test
    void znodeTreeAnswersLikeZooKeeper() throws Exception {
        int seeds = Integer.getInteger("b2b.seeds", 8);
        long first = Long.getLong("sim.firstSeed", 1);
        for (long seed = first; seed < first + seeds; seed++) {
            try (ZooKeeperDriver real = new ZooKeeperClientDriver("ZooKeeper 3.9.5", zookeeper.connectString(), 30_000);
                 ZooKeeperDriver tree = new ZnodeTreeDriver(new ZnodeTree(TreeConfig.defaults()), 0x5eed, 1, 1_000)) {
                runSeed(seed, real, tree);
            }
        }
    }

    static void runSeed(long seed, ZooKeeperDriver expected, ZooKeeperDriver actual) throws Exception {
        String base = "/b2b-" + seed;
        DriverOp setup = new DriverOp.Create(base, new byte[0], CreateMode.PERSISTENT, -1);
        assertEquals(expected.execute(setup), actual.execute(setup), "seed " + seed + ": base node");
        RandomWorkload workload = new RandomWorkload(seed, base);
        List<String> history = new ArrayList<>();
        for (int step = 0; step < OPS_PER_SEED; step++) {
            DriverOp op = workload.next();
            Outcome want = expected.execute(op);
            Outcome got = actual.execute(op);
            history.add(step + ": " + op + " -> " + want);
            if (!want.equals(got)) {
                int from = Math.max(0, history.size() - 8);
                assertEquals(want, got, "seed " + seed + " step " + step + ": " + expected.name() + " and "
                        + actual.name() + " disagree on " + op + "\nrecent history:\n"
                        + String.join("\n", history.subList(from, history.size())));
            }
            workload.learn(want);
        }
        assertEquals(subtree(expected, base), subtree(actual, base),
                "seed " + seed + ": the final subtrees of " + expected.name() + " and " + actual.name());
    }

    /** Every node under base with its Stat, data and children, read through the driver. */
    static List<String> subtree(ZooKeeperDriver driver, String base) throws Exception {
        List<String> out = new ArrayList<>();
        Deque<String> stack = new ArrayDeque<>();
        stack.push(base);
        while (!stack.isEmpty()) {
            String p = stack.pop();
            Outcome data = driver.execute(new DriverOp.GetData(p));
            Outcome children = driver.execute(new DriverOp.GetChildren(p));
            out.add(p + " " + data + " " + children.children());
            if (children.children() != null) {
                for (String c : children.children()) {
                    stack.push(p + "/" + c);
                }
            }
        }
        return out;
    }
}
