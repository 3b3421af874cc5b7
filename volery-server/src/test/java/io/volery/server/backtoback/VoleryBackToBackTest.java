package io.volery.server.backtoback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.VoleryCluster;
import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import io.volery.server.tree.CreateMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same seeded operations of three sessions, through the same ZooKeeper 3.9.5 Java client, against
 * a real ZooKeeper 3.9.5 and against a Volery cluster of 2 partitions x 3 replicas, once partitioned by
 * subtree and once by hash. The workload spans
 * subtrees of both partitions and creates and deletes top-level nodes, so that many operations and
 * multis cross partitions. Result codes, created names, Stats apart from zxids and times, data,
 * children in order, ACLs, counts, per-op multi results and every session's watch events must agree.
 * Seeds: {@code -Dvolery.b2b.seeds} (default 20) of {@code -Dvolery.b2b.ops} (default 500) operations.
 */
class VoleryBackToBackTest {

    private static final int SESSIONS = 3;

    @TempDir
    static Path dir;
    private static ExecutorService oracleThread;
    private EmbeddedZooKeeper zookeeper;
    private PathPartitioner partitioner;

    @BeforeAll
    static void start() {
        oracleThread = Executors.newSingleThreadExecutor();
    }

    @AfterAll
    static void stop() throws Exception {
        if (oracleThread != null) {
            oracleThread.shutdownNow();
        }
    }

    /** Seeds of the hash run: {@code -Dvolery.b2b.hashSeeds}, by default as many as the subtree run's. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void voleryAnswersLikeZooKeeperAcrossPartitions(VoleryConfig.Partitioning partitioning) throws Exception {
        int seeds = Integer.getInteger("volery.b2b.seeds", 20);
        if (partitioning == VoleryConfig.Partitioning.HASH) {
            seeds = Integer.getInteger("volery.b2b.hashSeeds", seeds);
        }
        int ops = Integer.getInteger("volery.b2b.ops", 500);
        long first = Long.getLong("volery.b2b.firstSeed", 1);
        String run = "/" + partitioning.name().toLowerCase(java.util.Locale.ROOT).charAt(0);
        // a fresh ZooKeeper per run: the root's sequential suffixes count every earlier run's top-level creates
        zookeeper = new EmbeddedZooKeeper(java.nio.file.Files.createDirectory(dir.resolve(partitioning.name())));
        // like the oracle's, Volery's container manager stays off: reaping happens on a timer, not in step
        try (VoleryCluster volery = new VoleryCluster(2, 3, 0, 2000, o -> o
                .withSuperDigest(ZnodeTreeDriver.digest(EmbeddedZooKeeper.SUPER_CREDENTIALS))
                .withContainerReaping(false)
                .withPartitioning(partitioning))) {
            partitioner = new PathPartitioner(volery.partitions(), partitioning);
            compare(volery, "Volery 2x3 " + partitioning.name().toLowerCase(java.util.Locale.ROOT), run, seeds, ops, first);
        } finally {
            zookeeper.stop();
        }
    }

    /**
     * ADR 054 under ZooKeeper's oracle: with four partitions (one replica each) a top-level change has
     * bystanders, partitions that are neither its node's owner, nor the root's owner, nor its front end's,
     * and the sessions sit on different front ends, so watch events of top-level changes reach front ends
     * whose partition took no part. Seeds: {@code -Dvolery.b2b.fourSeeds} (default 4).
     */
    @org.junit.jupiter.api.Test
    void voleryAnswersLikeZooKeeperAcrossFourPartitions() throws Exception {
        int seeds = Integer.getInteger("volery.b2b.fourSeeds", 4);
        int ops = Integer.getInteger("volery.b2b.ops", 500);
        long first = Long.getLong("volery.b2b.firstSeed", 1);
        String run = "/f";
        zookeeper = new EmbeddedZooKeeper(java.nio.file.Files.createDirectory(dir.resolve("FOUR")));
        try (VoleryCluster volery = new VoleryCluster(4, 1, 0, 2000, o -> o
                .withSuperDigest(ZnodeTreeDriver.digest(EmbeddedZooKeeper.SUPER_CREDENTIALS))
                .withContainerReaping(false))) {
            partitioner = new PathPartitioner(volery.partitions());
            compare(volery, "Volery 4x1 subtree", run, seeds, ops, first);
        } finally {
            zookeeper.stop();
        }
    }

    private void compare(VoleryCluster volery, String name, String run, int seeds, int ops, long first) throws Exception {
        // Barrier reads of the root node would be ordered in one partition only: Volery promises that a
        // watch event comes before a response that reflects its change, which a read of the root, held by
        // another partition, does not. A node of each partition, created first, serves as barrier.
        List<String> barrier = new ArrayList<>();
        for (int i = 0; i < partitioner.partitions().length; i++) {
            barrier.add(topLevel(run, i));
        }
        try (ZooKeeperClientDriver real = new ZooKeeperClientDriver("ZooKeeper 3.9.5", zookeeper.connectString(), SESSIONS)
                     .barrierPaths(barrier);
             ZooKeeperClientDriver tested = new ZooKeeperClientDriver(name, volery.connectString(), SESSIONS)
                     .barrierPaths(barrier)) {
            for (String b : barrier) {
                DriverOp create = new DriverOp.Create(b, new byte[0], CreateMode.PERSISTENT, -1, DriverOp.AclChoice.OPEN);
                assertEquals(real.execute(0, create), tested.execute(0, create), "barrier node " + b);
            }
            int[] multis = new int[2];
            for (long seed = first; seed < first + seeds; seed++) {
                List<String> bases = basesOnEveryPartition(run + seed + "-");
                List<String> topLevel = List.of(run + seed + "-t", run + seed + "-u", run + seed + "-w");
                for (String base : bases) {
                    DriverOp setup = new DriverOp.Create(base, new byte[0], CreateMode.PERSISTENT, -1,
                            DriverOp.AclChoice.OPEN);
                    assertEquals(real.execute(0, setup), tested.execute(0, setup), "seed " + seed + ": base " + base);
                }
                runSeed(seed, ops, bases, topLevel, real, tested, multis);
                // a fresh set of sessions per seed, as a fresh client would have
                for (int s = 0; s < SESSIONS; s++) {
                    assertEquals(real.execute(s, new DriverOp.Reopen()), tested.execute(s, new DriverOp.Reopen()));
                }
            }
            assertTrue(multis[1] * 4 >= multis[0], "at least a quarter of the multis should span several partitions: "
                    + multis[1] + " of " + multis[0] + " did");
        }
    }

    /** A top-level name of the {@code index}th partition, for the barrier. */
    private String topLevel(String run, int index) {
        for (int i = 0; ; i++) {
            String name = run + "barrier-" + i;
            if (partitioner.ownerOf(name) == partitioner.partitions()[index]) {
                return name;
            }
        }
    }

    /** Two names per partition under {@code prefix}, so the workload's subtrees cover every partition. */
    private List<String> basesOnEveryPartition(String prefix) {
        List<String> out = new ArrayList<>();
        for (int p : partitioner.partitions()) {
            int found = 0;
            for (int i = 0; found < 2 && i < 1000; i++) {
                String name = prefix + "b" + i;
                if (partitioner.ownerOf(name) == p) {
                    out.add(name);
                    found++;
                }
            }
            assertTrue(found == 2, "no two names under " + prefix + " land on partition " + p);
        }
        return out;
    }

    private static String pathOf(DriverOp.MultiStep step) {
        if (step instanceof DriverOp.Create c) {
            return c.path();
        } else if (step instanceof DriverOp.Delete d) {
            return d.path();
        } else if (step instanceof DriverOp.SetData d) {
            return d.path();
        }
        return ((DriverOp.Check) step).path();
    }

    /**
     * Reads, watch and ACL changes, logins and checks fire no watch: steps after them need no barrier
     * round trip (a quarter of the run's time).
     */
    private static boolean mayFireWatches(DriverOp op) {
        return op instanceof DriverOp.Create || op instanceof DriverOp.Delete || op instanceof DriverOp.SetData
                || op instanceof DriverOp.Multi || op instanceof DriverOp.Reopen;
    }

    private void runSeed(long seed, int ops, List<String> bases, List<String> topLevel,
                                ZooKeeperDriver expected, ZooKeeperDriver actual, int[] multis) throws Exception {
        RandomWorkload workload = new RandomWorkload(seed, bases, topLevel, SESSIONS);
        List<String> history = new ArrayList<>();
        for (int step = 0; step < ops; step++) {
            RandomWorkload.Step next = workload.next();
            if (next.op() instanceof DriverOp.Multi m) {
                multis[0]++;
                if (m.steps().stream().map(VoleryBackToBackTest::pathOf).mapToInt(partitioner::ownerOf).distinct()
                        .count() > 1) {
                    multis[1]++;
                }
            }
            // both servers work on the step at once: they share nothing, and the run is twice as short
            Future<Outcome> wanted = oracleThread.submit(() -> expected.execute(next.session(), next.op()));
            Outcome got = actual.execute(next.session(), next.op());
            Outcome want = wanted.get();
            history.add(step + ": session " + next.session() + " " + next.op() + " -> " + want);
            String context = "seed " + seed + " step " + step + ": " + expected.name() + " and " + actual.name()
                    + " disagree on session " + next.session() + " " + next.op() + "\nrecent history:\n"
                    + String.join("\n", history.subList(Math.max(0, history.size() - 60), history.size()));
            assertEquals(want, got, context);
            if (!mayFireWatches(next.op()) && step < ops - 1) {
                // events pile up until the next barrier, in order, and are compared there
                workload.learn(want);
                continue;
            }
            Future<List<List<String>>> wantedEvents = oracleThread.submit(() -> expected.takeAllEvents(SESSIONS));
            List<List<String>> gotEvents = actual.takeAllEvents(SESSIONS);
            List<List<String>> wantEvents = wantedEvents.get();
            for (int s = 0; s < SESSIONS; s++) {
                assertEquals(wantEvents.get(s), gotEvents.get(s), "watch events of session " + s + ": " + context);
            }
            workload.learn(want);
        }
        List<String> roots = new ArrayList<>(bases);
        roots.addAll(topLevel);
        for (String root : roots) {
            assertEquals(BackToBackTest.subtree(expected, root), BackToBackTest.subtree(actual, root),
                    "seed " + seed + ": the final subtrees under " + root);
        }
    }
}
