package io.volery.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.bench.InProcessZooKeeper;
import io.volery.server.VoleryCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * volery-copy against a real ZooKeeper 3.9.5 (live and from its data directory) and real Volery clusters:
 * what arrives is compared here with plain clients, apart from the tool's own verify pass.
 */
class VoleryCopyTest {

    private static final String ALICE = "alice:pw";
    private static final int WIDE = 5_200; // more than one read chunk of a level

    @TempDir
    static Path tmp;

    static InProcessZooKeeper zookeeper;
    static Path zkData;
    /** The source's ZooKeeper session: it holds the ephemerals, so it stays open until the data dir is read. */
    static ZooKeeper owner;
    static int queueCversion;
    /** The highest number the source gave a child of /app/queue (the ephemeral worker's). */
    static long queueLastIssued;

    @BeforeAll
    static void populateZooKeeper() throws Exception {
        System.setProperty("zookeeper.extendedTypesEnabled", "true");
        zkData = tmp.resolve("zk");
        zookeeper = new InProcessZooKeeper(zkData);
        owner = connect(zookeeper.connectString());
        owner.addAuthInfo("digest", ALICE.getBytes(StandardCharsets.UTF_8));
        populate(owner);
        queueCversion = owner.exists("/app/queue", false).getCversion();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (owner != null) {
            owner.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    static ZooKeeper connect(String connect) throws Exception {
        return io.volery.client.ProcessReplicas.connect(connect);
    }

    static List<ACL> aliceAll() throws Exception {
        return new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", DigestAuthenticationProvider.generateDigest(ALICE)))));
    }

    static List<ACL> alice(int perms) throws Exception {
        return new ArrayList<>(List.of(new ACL(perms, new Id("digest", DigestAuthenticationProvider.generateDigest(ALICE)))));
    }

    /** The namespace every test copies; comments say what each part exercises. */
    static void populate(ZooKeeper zk) throws Exception {
        var open = ZooDefs.Ids.OPEN_ACL_UNSAFE;
        zk.create("/app", "a".getBytes(StandardCharsets.UTF_8), open, CreateMode.PERSISTENT);
        byte[] binary = new byte[300];
        new Random(7).nextBytes(binary);
        zk.create("/app/config", binary, open, CreateMode.PERSISTENT);
        zk.create("/app/null", null, open, CreateMode.PERSISTENT); // null kept apart from empty
        zk.create("/app/empty", new byte[0], open, CreateMode.PERSISTENT);
        zk.create("/app/big", new byte[500_000], open, CreateMode.PERSISTENT);
        // a queue: 30 numbered items, 20 consumed, one ephemeral-sequential child (not copied): cversion 51, 11 children
        zk.create("/app/queue", new byte[0], open, CreateMode.PERSISTENT);
        List<String> items = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            items.add(zk.create("/app/queue/item-", ("job " + i).getBytes(StandardCharsets.UTF_8), open,
                    CreateMode.PERSISTENT_SEQUENTIAL));
        }
        for (String item : items.subList(0, 20)) {
            zk.delete(item, -1);
        }
        String worker = zk.create("/app/queue/worker-", new byte[0], open, CreateMode.EPHEMERAL_SEQUENTIAL);
        queueLastIssued = Long.parseLong(worker.substring(worker.length() - 10));
        zk.create("/app/session", new byte[0], open, CreateMode.EPHEMERAL);
        // ACLs that shut out an anonymous copier, and one that lets it read but not create below
        zk.create("/secure", "s".getBytes(StandardCharsets.UTF_8), aliceAll(), CreateMode.PERSISTENT);
        zk.create("/secure/inner", "i".getBytes(StandardCharsets.UTF_8), alice(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN),
                CreateMode.PERSISTENT);
        zk.create("/frozen", new byte[0], open, CreateMode.PERSISTENT);
        zk.create("/frozen/kid", "k".getBytes(StandardCharsets.UTF_8), open, CreateMode.PERSISTENT);
        zk.setACL("/frozen", ZooDefs.Ids.READ_ACL_UNSAFE, -1);
        // a container with a child, TTL nodes (one long, one short with a child that keeps it)
        zk.create("/locks", new byte[0], open, CreateMode.CONTAINER);
        zk.create("/locks/held", new byte[0], open, CreateMode.PERSISTENT);
        zk.create("/ttl", "t".getBytes(StandardCharsets.UTF_8), open, CreateMode.PERSISTENT_WITH_TTL, new Stat(), 3_600_000);
        zk.create("/ttl-short", new byte[0], open, CreateMode.PERSISTENT_WITH_TTL, new Stat(), 2_000);
        zk.create("/ttl-short/kid", new byte[0], open, CreateMode.PERSISTENT);
        // deep and wide
        String deep = "/deep";
        zk.create(deep, new byte[0], open, CreateMode.PERSISTENT);
        for (char c = 'a'; c <= 'l'; c++) {
            deep = deep + "/" + c;
            zk.create(deep, String.valueOf(c).getBytes(StandardCharsets.UTF_8), open, CreateMode.PERSISTENT);
        }
        zk.create("/wide", new byte[0], open, CreateMode.PERSISTENT);
        CountDownLatch wide = new CountDownLatch(WIDE);
        for (int i = 0; i < WIDE; i++) {
            zk.create("/wide/n" + i, ("v" + i).getBytes(StandardCharsets.UTF_8), open, CreateMode.PERSISTENT,
                    (rc, p, ctx, name) -> wide.countDown(), null);
        }
        assertTrue(wide.await(60, TimeUnit.SECONDS));
        // a quota on /app, as zkCli's setquota makes it
        zk.create("/zookeeper/quota/app", new byte[0], open, CreateMode.PERSISTENT);
        zk.create("/zookeeper/quota/app/zookeeper_limits", "count=1000,bytes=-1".getBytes(StandardCharsets.UTF_8), open,
                CreateMode.PERSISTENT);
        zk.create("/zookeeper/quota/app/zookeeper_stats", "count=0,bytes=0".getBytes(StandardCharsets.UTF_8), open,
                CreateMode.PERSISTENT);
    }

    /** Runs the tool; returns {exit status, stdout, stderr}. */
    static Object[] copy(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = VoleryCopy.run(args, new PrintStream(out, true), new PrintStream(err, true));
        return new Object[] {status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    static void assertStatus(int expected, Object[] run) {
        assertEquals(expected, (int) run[0], () -> "exit status; stdout:\n" + run[1] + "\nstderr:\n" + run[2]);
    }

    /** Data and ACL of these nodes at both ends, read with plain clients (alice may read everything). */
    static void assertSameNodes(ZooKeeper a, ZooKeeper b, String... paths) throws Exception {
        for (String p : paths) {
            assertArrayEquals(a.getData(p, false, null), b.getData(p, false, null), p + " data");
            assertEquals(new HashSet<>(a.getACL(p, new Stat())), new HashSet<>(b.getACL(p, new Stat())), p + " ACL");
        }
    }

    static final String[] CHECKED = {"/app", "/app/config", "/app/null", "/app/empty", "/app/big", "/app/queue",
        "/secure", "/secure/inner", "/frozen", "/frozen/kid", "/locks", "/locks/held", "/ttl", "/ttl-short",
        "/deep/a/b/c/d/e/f/g/h/i/j/k/l", "/wide/n0", "/wide/n5199", "/zookeeper/quota/app/zookeeper_limits"};

    /**
     * A numbered child made at the destination after the copy sorts after every one made before it, and is numbered
     * above every number the source ever gave (an ephemeral's included), and at least {@code minimum}: the source's
     * cversion, which a live session shows as the running server keeps it (a data directory replays to a lower one,
     * as a restarted ZooKeeper has it).
     */
    static void assertCounterContinues(ZooKeeper dest, int minimum) throws Exception {
        String next = dest.create("/app/queue/item-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
        long suffix = Long.parseLong(next.substring(next.length() - 10));
        assertTrue(suffix > queueLastIssued, "next item " + next + " not above the source's last number " + queueLastIssued);
        assertTrue(suffix >= minimum, "next item " + next + " numbered below the source's cversion " + minimum);
        for (String c : dest.getChildren("/app/queue", false)) {
            if (!("/app/queue/" + c).equals(next)) {
                assertTrue(c.compareTo(next.substring("/app/queue/".length())) < 0, c + " sorts after the new " + next);
            }
        }
        dest.delete(next, -1);
    }

    @Test
    void aLiveZooKeeperNamespaceArrivesInTwoPartitions() throws Exception {
        try (VoleryCluster volery = new VoleryCluster(2, 1, 0, 500)) {
            Object[] run = copy("--from", zookeeper.connectString(), "--to", volery.connectString(),
                    "--from-auth", "digest:" + ALICE, "--to-auth", "digest:" + ALICE);
            assertStatus(0, run);
            String out = (String) run[1];
            assertTrue(out.contains("skipped 2 ephemeral nodes"), out);
            assertTrue(out.contains("0 differ"), out);
            assertTrue(out.contains("container and TTL nodes as persistent"), out);
            ZooKeeper dest = connect(volery.connectString());
            dest.addAuthInfo("digest", ALICE.getBytes(StandardCharsets.UTF_8));
            assertSameNodes(owner, dest, CHECKED);
            assertNull(dest.exists("/app/session", false), "ephemerals are not copied");
            assertEquals(10, dest.getChildren("/app/queue", false).size());
            assertEquals(WIDE, dest.getChildren("/wide", false).size());
            assertNull(dest.getData("/app/null", false, null));
            assertArrayEquals(new byte[0], dest.getData("/app/empty", false, null));
            assertCounterContinues(dest, queueCversion);
            // the quota came along and Volery counts /app's subtree under it
            assertNotNull(dest.exists("/zookeeper/quota/app/zookeeper_stats", false));
            String stats = new String(dest.getData("/zookeeper/quota/app/zookeeper_stats", false, null), StandardCharsets.UTF_8);
            assertTrue(stats.startsWith("count=" + (1 + 5 + 10) + ","), stats); // /app, its 5 children, 10 items
            // a second copy into the same namespace is refused unless merging, and says why
            Object[] again = copy("--from", zookeeper.connectString(), "--to", volery.connectString(),
                    "--from-auth", "digest:" + ALICE, "--to-auth", "digest:" + ALICE);
            assertStatus(3, again);
            assertTrue(((String) again[2]).contains("--merge"), (String) again[2]);
            dest.close();
        }
    }

    @Test
    void aDataDirectoryKeepsContainersAndTtlNodes() throws Exception {
        // the source as a stopped server leaves it: a copy of the live data directory, read offline
        Path snapshotCopy = tmp.resolve("zk-copy");
        copyDirectory(zkData, snapshotCopy);
        try (VoleryCluster volery = new VoleryCluster(2, 1, 0, 500)) {
            Object[] run = copy("--from-datadir", snapshotCopy.toString(), "--to", volery.connectString(),
                    "--to-auth", "digest:" + ALICE);
            assertStatus(0, run);
            String out = (String) run[1];
            assertTrue(out.contains("(1 containers, 2 TTL)"), out);
            assertTrue(out.contains("skipped 2 ephemeral nodes"), out);
            ZooKeeper dest = connect(volery.connectString());
            dest.addAuthInfo("digest", ALICE.getBytes(StandardCharsets.UTF_8));
            assertSameNodes(owner, dest, CHECKED);
            assertCounterContinues(dest, 0);
            // the container goes once its last child does, the short TTL node once its child is gone and its TTL
            // passed; the long TTL node stays
            dest.delete("/locks/held", -1);
            dest.delete("/ttl-short/kid", -1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((dest.exists("/locks", false) != null || dest.exists("/ttl-short", false) != null)
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertNull(dest.exists("/locks", false), "the container was reaped");
            assertNull(dest.exists("/ttl-short", false), "the short TTL node expired");
            assertNotNull(dest.exists("/ttl", false));
            dest.close();
        }
    }

    @Test
    void repartitioningVoleryAndMergingIntoANonEmptyDestination() throws Exception {
        try (VoleryCluster two = new VoleryCluster(2, 1, 0, 500); VoleryCluster three = new VoleryCluster(3, 1, 0, 500)) {
            assertStatus(0, copy("--from", zookeeper.connectString(), "--to", two.connectString(), "--path", "/app",
                    "--from-auth", "digest:" + ALICE));
            ZooKeeper target = connect(three.connectString());
            target.create("/app", "old".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            target.create("/app/config", "old".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            // not empty below /app: refused
            Object[] refused = copy("--from", two.connectString(), "--to", three.connectString(), "--path", "/app");
            assertStatus(3, refused);
            assertTrue(((String) refused[2]).contains("config"), (String) refused[2]);
            // keep: the old data stays, and the verify pass says where it differs
            Object[] kept = copy("--from", two.connectString(), "--to", three.connectString(), "--path", "/app", "--merge", "keep");
            assertStatus(1, kept);
            assertTrue(((String) kept[1]).contains("2 differ"), (String) kept[1]);
            assertTrue(((String) kept[1]).contains("differs: /app/config: data"), (String) kept[1]);
            assertArrayEquals("old".getBytes(StandardCharsets.UTF_8), target.getData("/app/config", false, null));
            // overwrite: the source's data wins; nothing differs any more
            Object[] overwritten = copy("--from", two.connectString(), "--to", three.connectString(), "--path", "/app",
                    "--merge", "overwrite");
            assertStatus(0, overwritten);
            ZooKeeper source = connect(two.connectString());
            assertSameNodes(source, target, "/app", "/app/config", "/app/null", "/app/big", "/app/queue",
                    "/zookeeper/quota/app/zookeeper_limits");
            assertEquals(new HashSet<>(source.getChildren("/app/queue", false)),
                    new HashSet<>(target.getChildren("/app/queue", false)));
            assertCounterContinues(target, queueCversion);
            // a difference made afterwards is found by the verify pass (exit 1)
            target.setData("/app/queue/" + target.getChildren("/app/queue", false).get(0), "changed".getBytes(StandardCharsets.UTF_8), -1);
            Object[] found = copy("--from", two.connectString(), "--to", three.connectString(), "--path", "/app",
                    "--merge", "keep", "--no-sequence-counters");
            assertStatus(1, found);
            assertTrue(((String) found[1]).contains("1 differ"), (String) found[1]);
            // so is a quota whose limits differ (its stats, which each server counts, are not compared)
            target.setData("/zookeeper/quota/app/zookeeper_limits", "count=5,bytes=-1".getBytes(StandardCharsets.UTF_8), -1);
            Object[] quota = copy("--from", two.connectString(), "--to", three.connectString(), "--path", "/app",
                    "--merge", "keep", "--no-sequence-counters");
            assertStatus(1, quota);
            assertTrue(((String) quota[1]).contains("2 differ"), (String) quota[1]);
            assertTrue(((String) quota[1]).contains("differs: /zookeeper/quota/app/zookeeper_limits: data"), (String) quota[1]);
            source.close();
            target.close();
        }
    }

    @Test
    void hashPartitioningTakesTheSameCopy() throws Exception {
        try (VoleryCluster hash = new VoleryCluster(2, 1, 0, 500,
                o -> o.withPartitioning(io.volery.server.config.VoleryConfig.Partitioning.HASH))) {
            Object[] run = copy("--from", zookeeper.connectString(), "--to", hash.connectString(), "--path", "/app",
                    "--from-auth", "digest:" + ALICE, "--exclude", "/app/big");
            assertStatus(0, run);
            assertTrue(((String) run[1]).contains("0 differ"), (String) run[1]);
            ZooKeeper dest = connect(hash.connectString());
            assertNull(dest.exists("/app/big", false), "excluded");
            assertSameNodes(owner, dest, "/app", "/app/config", "/app/null", "/app/empty", "/app/queue",
                    "/zookeeper/quota/app/zookeeper_limits");
            assertEquals(10, dest.getChildren("/app/queue", false).size());
            assertCounterContinues(dest, queueCversion);
            dest.close();
        }
    }

    @Test
    void badInputGetsAClearErrorAndAStatus() throws Exception {
        Object[] none = copy("--to", "127.0.0.1:1");
        assertStatus(2, none);
        assertTrue(((String) none[2]).contains("exactly one source"), (String) none[2]);
        Object[] system = copy("--from", "127.0.0.1:1", "--to", "127.0.0.1:1", "--path", "/zookeeper/quota");
        assertStatus(2, system);
        Object[] path = copy("--from", "127.0.0.1:1", "--to", "127.0.0.1:1", "--path", "app/");
        assertStatus(2, path);
        Object[] merge = copy("--from", "127.0.0.1:1", "--to", "127.0.0.1:1", "--merge", "sometimes");
        assertStatus(2, merge);
        Path notData = Files.createDirectories(tmp.resolve("not-a-data-dir"));
        try (VoleryCluster volery = new VoleryCluster(1, 1, 0, 500)) {
            Object[] dir = copy("--from-datadir", notData.toString(), "--to", volery.connectString());
            assertStatus(3, dir);
            assertTrue(((String) dir[2]).contains("no version-2"), (String) dir[2]);
            // a source node the copier may not read: named, with what to do
            Object[] noAuth = copy("--from", zookeeper.connectString(), "--to", volery.connectString(), "--path", "/secure");
            assertStatus(3, noAuth);
            assertTrue(((String) noAuth[2]).contains("cannot read /secure"), (String) noAuth[2]);
            assertTrue(((String) noAuth[2]).contains("--from-auth"), (String) noAuth[2]);
            Object[] missing = copy("--from", zookeeper.connectString(), "--to", volery.connectString(), "--path", "/nothing");
            assertStatus(3, missing);
            assertTrue(((String) missing[2]).contains("the source has no node /nothing"), (String) missing[2]);
            // an ACL the source shows redacted (alice may read but not administer it) is not copied as shown
            owner.create("/hidden", new byte[0], alice(ZooDefs.Perms.READ), CreateMode.PERSISTENT);
            try {
                Object[] hidden = copy("--from", zookeeper.connectString(), "--to", volery.connectString(), "--path", "/hidden",
                        "--from-auth", "digest:" + ALICE, "--to-auth", "digest:" + ALICE);
                assertStatus(3, hidden);
                assertTrue(((String) hidden[2]).contains("hides the ACL of /hidden"), (String) hidden[2]);
            } finally {
                owner.delete("/hidden", -1);
            }
        }
    }

    @Test
    void aDryRunCountsAndWritesNothing() throws Exception {
        Object[] live = copy("--from", zookeeper.connectString(), "--dry-run", "--from-auth", "digest:" + ALICE);
        assertStatus(0, live);
        // /app 6 + 10 items, /secure 2, /frozen 2, /locks 2, /ttl 1, /ttl-short 2, /deep 13, /wide 1 + WIDE, quota 3
        int persistent = 16 + 2 + 2 + 2 + 1 + 2 + 13 + 1 + WIDE + 3;
        assertTrue(((String) live[1]).contains("would create " + persistent + " (0 containers, 0 TTL)"), (String) live[1]);
        assertTrue(((String) live[1]).contains("2 ephemeral nodes would be skipped"), (String) live[1]);
        Path snapshotCopy = tmp.resolve("zk-dry");
        copyDirectory(zkData, snapshotCopy);
        Object[] offline = copy("--from-datadir", snapshotCopy.toString(), "--dry-run");
        assertStatus(0, offline);
        assertTrue(((String) offline[1]).contains("would create " + persistent + " (1 containers, 2 TTL)"), (String) offline[1]);
    }

    @Test
    void eachSideHasItsOwnClientConfiguration() throws Exception {
        Path plain = tmp.resolve("plain.properties");
        Files.writeString(plain, "zookeeper.request.timeout=60000\n");
        Path secure = tmp.resolve("secure.properties");
        Files.writeString(secure, "zookeeper.client.secure=true\nzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty\n");
        try (VoleryCluster volery = new VoleryCluster(1, 1, 0, 500)) {
            // TLS towards the plain ZooKeeper port: the source session cannot connect, and the tool says so
            Object[] tls = copy("--from", zookeeper.connectString(), "--from-client-config", secure.toString(),
                    "--to", volery.connectString(), "--to-client-config", plain.toString(), "--path", "/deep",
                    "--session-timeout-ms", "3000");
            assertStatus(3, tls);
            assertTrue(((String) tls[2]).contains("could not connect to '" + zookeeper.connectString() + "'"), (String) tls[2]);
            // the same files the other way round: the destination's TLS setting does not leak into the source
            Object[] wrongSide = copy("--from", zookeeper.connectString(), "--from-client-config", plain.toString(),
                    "--to", volery.connectString(), "--to-client-config", secure.toString(), "--path", "/deep",
                    "--session-timeout-ms", "3000");
            assertStatus(3, wrongSide);
            assertTrue(((String) wrongSide[2]).contains("could not connect to '" + volery.connectString() + "'"),
                    (String) wrongSide[2]);
            Object[] ok = copy("--from", zookeeper.connectString(), "--from-client-config", plain.toString(),
                    "--to", volery.connectString(), "--to-client-config", plain.toString(), "--path", "/deep");
            assertStatus(0, ok);
            Object[] missing = copy("--from", zookeeper.connectString(), "--from-client-config", tmp.resolve("none").toString(),
                    "--to", volery.connectString());
            assertStatus(2, missing);
        }
    }

    @Test
    void aDumpFileRestoresWhatItHoldsAndRefusesDamage() throws Exception {
        Path dataDir = tmp.resolve("zk-for-dump");
        copyDirectory(zkData, dataDir);
        Path dump = tmp.resolve("namespace.dump");
        Object[] written = copy("--from-datadir", dataDir.toString(), "--to-file", dump.toString());
        assertStatus(0, written);
        assertTrue(((String) written[1]).contains("(1 containers, 2 TTL"), (String) written[1]);
        assertFalse(Files.exists(tmp.resolve("namespace.dump.partial")));
        try (VoleryCluster volery = new VoleryCluster(2, 1, 0, 500)) {
            Object[] restored = copy("--from-file", dump.toString(), "--to", volery.connectString(), "--to-auth", "digest:" + ALICE);
            assertStatus(0, restored);
            assertTrue(((String) restored[1]).contains("(1 containers, 2 TTL)"), (String) restored[1]);
            assertTrue(((String) restored[1]).contains("0 differ"), (String) restored[1]);
            ZooKeeper dest = connect(volery.connectString());
            dest.addAuthInfo("digest", ALICE.getBytes(StandardCharsets.UTF_8));
            assertSameNodes(owner, dest, CHECKED);
            assertCounterContinues(dest, 0);
            dest.close();
        }
        // a subtree's dump restores that subtree, and nothing above it
        Path app = tmp.resolve("app.dump");
        assertStatus(0, copy("--from", zookeeper.connectString(), "--path", "/app", "--to-file", app.toString()));
        try (VoleryCluster volery = new VoleryCluster(1, 1, 0, 500)) {
            Object[] above = copy("--from-file", app.toString(), "--to", volery.connectString(), "--path", "/");
            assertStatus(3, above);
            assertTrue(((String) above[2]).contains("the dump holds /app"), (String) above[2]);
            Object[] restored = copy("--from-file", app.toString(), "--to", volery.connectString());
            assertStatus(0, restored);
            ZooKeeper dest = connect(volery.connectString());
            assertSameNodes(owner, dest, "/app", "/app/config", "/app/null", "/app/big", "/zookeeper/quota/app/zookeeper_limits");
            assertCounterContinues(dest, queueCversion);
            assertEquals(List.of("app", "zookeeper"), dest.getChildren("/", false).stream().sorted().toList());
            dest.close();
            // a cut or damaged file is refused before anything is written
            byte[] bytes = Files.readAllBytes(app);
            Path cut = tmp.resolve("cut.dump");
            Files.write(cut, Arrays.copyOf(bytes, bytes.length / 2));
            Path flipped = tmp.resolve("flipped.dump");
            byte[] changed = bytes.clone();
            changed[bytes.length / 2] ^= 0x5a;
            Files.write(flipped, changed);
            for (Path bad : List.of(cut, flipped)) {
                Object[] refused = copy("--from-file", bad.toString(), "--to", volery.connectString(), "--merge", "keep");
                assertStatus(3, refused);
                assertTrue(((String) refused[2]).matches("(?s).*(ends early|damaged).*"), (String) refused[2]);
            }
        }
    }

    static void copyDirectory(Path from, Path to) throws Exception {
        try (var files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
