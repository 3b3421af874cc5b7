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
 * The oracle test: the same seeded operations of three sessions against a real ZooKeeper 3.9.5 and
 * against a {@link ZnodeTree}. Every result code, created (sequential) name, Stat apart from zxids and
 * times, data, child list, ACL list, count, per-op multi result and every session's watch events must
 * agree, and so must the final subtree. Seeds: {@code -Db2b.seeds} (default 6) from {@code -Dsim.firstSeed}.
 */
class BackToBackTest {

    private static final int SESSIONS = 3;
    private static final int OPS_PER_SEED = 200;

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
        int seeds = Integer.getInteger("b2b.seeds", 6);
        long first = Long.getLong("sim.firstSeed", 1);
        for (long seed = first; seed < first + seeds; seed++) {
            try (ZooKeeperDriver real = new ZooKeeperClientDriver("ZooKeeper 3.9.5", zookeeper.connectString(), SESSIONS);
                 ZooKeeperDriver tree = new ZnodeTreeDriver(new ZnodeTree(TreeConfig.defaults()
                         .withSuperDigest(ZnodeTreeDriver.digest(EmbeddedZooKeeper.SUPER_CREDENTIALS))), SESSIONS, 1, 1_000)) {
                runSeed(seed, real, tree);
            }
        }
    }

    /**
     * Orders clients can see and that only show with many entries: getChildren of a node whose child
     * set grew past several resizes and lost some names, and the order in which a session holding 30
     * ephemerals has them deleted (watch events) on close.
     */
    @Test
    void largeChildAndEphemeralSetsListInZooKeepersOrder() throws Exception {
        try (ZooKeeperDriver real = new ZooKeeperClientDriver("ZooKeeper 3.9.5", zookeeper.connectString(), SESSIONS);
             ZooKeeperDriver tree = new ZnodeTreeDriver(new ZnodeTree(TreeConfig.defaults()), SESSIONS, 1, 1_000)) {
            List<RandomWorkload.Step> script = new ArrayList<>();
            String base = "/orders";
            script.add(new RandomWorkload.Step(0, new DriverOp.Create(base, new byte[0], CreateMode.PERSISTENT, -1,
                    DriverOp.AclChoice.OPEN)));
            for (int i = 0; i < 60; i++) {
                CreateMode mode = i % 2 == 0 ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT_SEQUENTIAL;
                script.add(new RandomWorkload.Step(1, new DriverOp.Create(base + "/node-" + (i * 7919 % 1000) + "-",
                        new byte[0], mode, -1, DriverOp.AclChoice.OPEN)));
                script.add(new RandomWorkload.Step(0, new DriverOp.Exists(base + "/node-" + (i * 7919 % 1000) + "-", true)));
            }
            for (int i = 0; i < 60; i += 5) {
                script.add(new RandomWorkload.Step(1, new DriverOp.Delete(base + "/node-" + (i * 7919 % 1000) + "-", -1)));
            }
            script.add(new RandomWorkload.Step(2, new DriverOp.GetChildren(base, true)));
            script.add(new RandomWorkload.Step(1, new DriverOp.GetEphemerals("/")));
            script.add(new RandomWorkload.Step(0, new DriverOp.AddWatch(base, true)));
            script.add(new RandomWorkload.Step(1, new DriverOp.Reopen()));
            script.add(new RandomWorkload.Step(2, new DriverOp.GetChildren(base, false)));
            runScript("child and ephemeral orders", script, real, tree);
        }
    }

    static void runScript(String name, List<RandomWorkload.Step> script, ZooKeeperDriver expected,
                          ZooKeeperDriver actual) throws Exception {
        for (int step = 0; step < script.size(); step++) {
            RandomWorkload.Step next = script.get(step);
            Outcome want = expected.execute(next.session(), next.op());
            Outcome got = actual.execute(next.session(), next.op());
            String context = name + " step " + step + ": session " + next.session() + " " + next.op();
            assertEquals(want, got, context);
            for (int s = 0; s < SESSIONS; s++) {
                assertEquals(expected.takeEvents(s), actual.takeEvents(s), "watch events of session " + s + ": " + context);
            }
        }
    }

    static void runSeed(long seed, ZooKeeperDriver expected, ZooKeeperDriver actual) throws Exception {
        String base = "/b2b-" + seed;
        DriverOp setup = new DriverOp.Create(base, new byte[0], CreateMode.PERSISTENT, -1, DriverOp.AclChoice.OPEN);
        assertEquals(expected.execute(0, setup), actual.execute(0, setup), "seed " + seed + ": base node");
        RandomWorkload workload = new RandomWorkload(seed, base, SESSIONS);
        List<String> history = new ArrayList<>();
        for (int step = 0; step < OPS_PER_SEED; step++) {
            RandomWorkload.Step next = workload.next();
            Outcome want = expected.execute(next.session(), next.op());
            Outcome got = actual.execute(next.session(), next.op());
            history.add(step + ": session " + next.session() + " " + next.op() + " -> " + want);
            String context = "seed " + seed + " step " + step + ": " + expected.name() + " and " + actual.name()
                    + " disagree on session " + next.session() + " " + next.op() + "\nrecent history:\n"
                    + String.join("\n", history.subList(Math.max(0, history.size() - 400), history.size()));
            assertEquals(want, got, context);
            for (int s = 0; s < SESSIONS; s++) {
                assertEquals(expected.takeEvents(s), actual.takeEvents(s), "watch events of session " + s + ": " + context);
            }
            workload.learn(want);
        }
        assertEquals(subtree(expected, base), subtree(actual, base),
                "seed " + seed + ": the final subtrees of " + expected.name() + " and " + actual.name());
    }

    /** Every node under base with its Stat, data and children, as far as session 0 may read them. */
    static List<String> subtree(ZooKeeperDriver driver, String base) throws Exception {
        List<String> out = new ArrayList<>();
        Deque<String> stack = new ArrayDeque<>();
        stack.push(base);
        while (!stack.isEmpty()) {
            String p = stack.pop();
            Outcome stat = driver.execute(0, new DriverOp.Exists(p, false));
            Outcome children = driver.execute(0, new DriverOp.GetChildren(p, false));
            out.add(p + " " + stat + " " + children.list());
            if (children.list() != null) {
                for (String c : children.list()) {
                    stack.push(p + "/" + c);
                }
            }
        }
        return out;
    }
}
