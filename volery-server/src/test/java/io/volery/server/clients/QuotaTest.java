package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's quotas, back to back: one client script (zkCli's {@code setquota}, {@code listquota} and
 * {@code delquota} as an operator runs them, and a Java client reading {@code /zookeeper/quota}, writing
 * under the quota'd subtrees and watching a limits node) against ZooKeeper 3.9.5 with
 * {@code zookeeper.enforceQuota=true}, then against a two-partition Volery with quota enforcement; the two
 * runs must record the same outcomes. The two quota'd subtrees live in different partitions: A has soft
 * limits (never refused, only logged), B hard ones (QUOTAEXCEEDED). ZooKeeper counts the quota's root among
 * its nodes and its data among its bytes, checks only creates and setData that change the bytes, and checks
 * each op of a multi against the tree as it was before the multi. zkCli 3.9 takes one limit per
 * {@code setquota} ({@code -n 5 -b 100} together is refused by its option parser); a second one on the same
 * path rewrites the limits node.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class QuotaTest {
    @TempDir
    Path dir;

    /** The partition ids VoleryCluster gives two partitions: the cluster file's groups 1 and 2. */
    static final int[] PARTITIONS = {1, 2};
    /**
     * A: soft limits; B: hard limits. Top-level names owned by different partitions under subtree, A before B
     * (listings are sorted), and each with its first nodes spread over both partitions under hash.
     */
    static final String A = topLevelOwnedBy(PARTITIONS[0], "/q`", "/x1", "/sub", "/sub/c1");
    static final String B = topLevelOwnedBy(PARTITIONS[1], A, "/b1", "/b2");
    static final String QUOTA = "/zookeeper/quota";

    /** zkCli's StatsTrack text for limits: soft count and bytes, then the hard ones (the "=;" is zkCli's own). */
    static String limits(long count, long bytes, long byteHard, long countHard) {
        return "count=" + count + ",bytes=" + bytes + "=;byteHardLimit=" + byteHard + ";countHardLimit=" + countHard;
    }

    /** The first "/q?" name after {@code after} owned by {@code partition} whose nodes with these suffixes it spreads under hash. */
    private static String topLevelOwnedBy(int partition, String after, String... below) {
        PathPartitioner partitioner = new PathPartitioner(PARTITIONS);
        PathPartitioner hash = new PathPartitioner(PARTITIONS, VoleryConfig.Partitioning.HASH);
        for (char c = (char) (after.charAt(2) + 1); c <= 'z'; c++) {
            String name = "/q" + c;
            java.util.Set<Integer> owners = new java.util.HashSet<>(List.of(hash.ownerOf(name)));
            for (String b : below) {
                owners.add(hash.ownerOf(name + b));
            }
            if (partitioner.ownerOf(name) == partition && owners.size() > 1) {
                return name;
            }
        }
        throw new IllegalStateException("no /q? name owned by partition " + partition);
    }

    @Test
    void quotasBehaveAsInZooKeeper() throws Exception {
        assertNotEquals(new PathPartitioner(PARTITIONS).ownerOf(A), new PathPartitioner(PARTITIONS).ownerOf(B));
        List<String> oracle = zooKeeperOutcomes("", "-Dzookeeper.enforceQuota=true");
        checkOracle(oracle);

        List<String> volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 2000, c -> c,
                o -> o.withQuotaEnforcement(true).withMetrics(new java.net.InetSocketAddress("127.0.0.1", 0)))) {
            // the names were chosen for these partitions: A and B must live apart
            assertArrayEquals(PARTITIONS, cluster.partitions(), "VoleryCluster's partition ids");
            PathPartitioner partitioner = new PathPartitioner(cluster.partitions());
            assertNotEquals(partitioner.ownerOf(A), partitioner.ownerOf(B), A + " and " + B + " in one partition");
            // each node reports the quotas its partition holds; together they must be ZooKeeper's
            volery = script("127.0.0.1:" + cluster.nodes().get(0).clientAddress().getPort(), () -> quotaLines(
                    cluster.nodes().stream().map(io.volery.server.VoleryNode::clientAddress).toList()));
            // the Prometheus endpoint shows the same figures, a namespace per label
            List<String> mntr = quotaLines(cluster.nodes().stream().map(io.volery.server.VoleryNode::clientAddress).toList());
            assertEquals(mntr, prometheusQuotaLines(cluster), "the nodes' /metrics against their mntr");
        }
        System.out.println("--- Volery's quota outcomes");
        volery.forEach(System.out::println);
        assertEquals(String.join("\n", oracle), String.join("\n", volery),
                () -> "Volery's quota outcomes against ZooKeeper's; they differ at\n" + differences(oracle, volery));
    }

    /**
     * Under hash partitioning (ADR 089) a quota's subtree is spread over the partitions: each keeps every node
     * but applies setData only to its own, so each stats node holds a partition's share of the bytes and a read
     * of it sums the shares. The same script against ZooKeeper 3.9.5 without enforcement (hash refuses it) and
     * a two-partition hash Volery must record the same outcomes; mntr's quota lines summed over one node per
     * partition must be ZooKeeper's.
     */
    @Test
    void quotaStatsUnderHashAsInZooKeeperWithoutEnforcement() throws Exception {
        PathPartitioner hash = new PathPartitioner(PARTITIONS, VoleryConfig.Partitioning.HASH);
        // the quota'd subtree must be spread, or a stats node's share would be the whole
        assertEquals(2, java.util.stream.Stream.of(A, A + "/x1", A + "/sub", A + "/sub/c1", A + "/x2")
                .map(hash::ownerOf).distinct().count(), "A's nodes all in one partition under hash");
        List<String> oracle = zooKeeperOutcomes(" without enforcement");
        checkUnenforcedOracle(oracle);

        List<String> volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 2000, c -> c, o -> o
                .withPartitioning(VoleryConfig.Partitioning.HASH)
                .withMetrics(new java.net.InetSocketAddress("127.0.0.1", 0)))) {
            assertArrayEquals(PARTITIONS, cluster.partitions(), "VoleryCluster's partition ids");
            List<java.net.InetSocketAddress> nodes = cluster.nodes().stream()
                    .map(io.volery.server.VoleryNode::clientAddress).toList();
            volery = script("127.0.0.1:" + nodes.get(0).getPort(), () -> summed(quotaLines(nodes)));
            // each node's share on the Prometheus endpoint is its mntr share
            assertEquals(quotaLines(nodes), prometheusQuotaLines(cluster), "the nodes' /metrics against their mntr");
        }
        System.out.println("--- Volery's quota outcomes under hash");
        volery.forEach(System.out::println);
        assertEquals(String.join("\n", oracle), String.join("\n", volery),
                () -> "Volery's quota outcomes under hash against ZooKeeper's; they differ at\n" + differences(oracle, volery));
    }

    /** The script's outcomes against ZooKeeper 3.9.5 started with these system properties (printed). */
    private List<String> zooKeeperOutcomes(String label, String... properties) throws Exception {
        Path jaas = dir.resolve("jaas.conf");
        Files.writeString(jaas, SaslZooKeeper.serverSection(Map.of("nobody", "unused")));
        List<String> args = new ArrayList<>(List.of(properties));
        args.add("-Dzookeeper.4lw.commands.whitelist=*");
        List<String> oracle;
        try (SaslZooKeeper zookeeper = SaslZooKeeper.start(dir.resolve("zk"), jaas, args.toArray(new String[0]))) {
            oracle = script(zookeeper.connectString(), () -> quotaLines(List.of(
                    new java.net.InetSocketAddress("127.0.0.1", zookeeper.port()))));
        }
        System.out.println("--- ZooKeeper's quota outcomes" + label + " (A=" + A + ", B=" + B + ")");
        oracle.forEach(System.out::println);
        return oracle;
    }

    /** mntr lines with one name, from several nodes, as one line with their values summed; sorted. */
    private static List<String> summed(List<String> lines) {
        Map<String, Long> sums = new java.util.TreeMap<>();
        for (String line : lines) {
            int space = line.lastIndexOf(' ');
            sums.merge(line.substring(0, space), Long.parseLong(line.substring(space + 1)), Long::sum);
        }
        List<String> out = new ArrayList<>();
        sums.forEach((name, value) -> out.add(name + " " + value));
        return out;
    }

    /** Absolute values from ZooKeeper's run without enforcement. */
    private static void checkUnenforcedOracle(List<String> o) {
        String statsA = "getData " + QUOTA + A + "/zookeeper_stats -> ";
        String statsB = "getData " + QUOTA + B + "/zookeeper_stats -> ";
        assertContains(o, "[2] " + statsA + "count=4,bytes=17");
        assertContains(o, "[2] " + statsB + "count=2,bytes=7");
        assertContains(o, "[3] " + statsA + "count=5,bytes=28");
        assertContains(o, "[3] " + statsA + "count=7,bytes=15");
        // nothing is refused: B goes past its hard limits
        assertContains(o, "[4] create " + B + "/b3 (0 bytes) -> OK");
        assertContains(o, "[4] setData " + B + "/b1 (36 bytes) -> OK");
        assertContains(o, "[8] after the session closed: " + statsA + "count=8,bytes=133");
    }

    /** The lines at which two outcome lists differ, side by side ("zk:" then "volery:"). */
    static String differences(List<String> zookeeper, List<String> volery) {
        StringBuilder d = new StringBuilder();
        for (int i = 0; i < Math.max(zookeeper.size(), volery.size()); i++) {
            String z = i < zookeeper.size() ? zookeeper.get(i) : "(none)";
            String v = i < volery.size() ? volery.get(i) : "(none)";
            if (!z.equals(v)) {
                d.append("  #").append(i).append(" zk:     ").append(z).append('\n')
                        .append("  #").append(i).append(" volery: ").append(v).append('\n');
            }
        }
        return d.toString();
    }

    /** Absolute values from ZooKeeper's run, so that the comparison is not with just anything. */
    private static void checkOracle(List<String> o) {
        String statsA = "getData " + QUOTA + A + "/zookeeper_stats -> ";
        String statsB = "getData " + QUOTA + B + "/zookeeper_stats -> ";
        // after setquota: A is A, A/x1, A/sub, A/sub/c1 (4+10+1+2 bytes); B is B and B/b1 (2+5 bytes)
        assertContains(o, "[2] " + statsA + "count=4,bytes=17");
        assertContains(o, "[2] getData " + QUOTA + A + "/zookeeper_limits -> " + limits(5, 100, -1, -1));
        assertContains(o, "[2] " + statsB + "count=2,bytes=7");
        assertContains(o, "[2] getData " + QUOTA + B + "/zookeeper_limits -> " + limits(-1, -1, 40, 3));
        assertContains(o, "zkCli listquota " + A + " -> absolute path is " + QUOTA + A + "/zookeeper_limits | Output quota for "
                + A + " " + limits(5, 100, -1, -1) + " | Output stat for " + A + " count=4,bytes=17");
        assertContains(o, "zkCli setquota -n 2 " + A + "/sub -> " + A + "/sub has a parent " + A + " which has a quota");
        // A's writes: create +5 bytes, x1 10->16->2, A 4->0, delete -5, nested +4, a multi +2 nodes +3+0 bytes, sub 1->4
        assertContains(o, "[3] " + statsA + "count=5,bytes=22");
        assertContains(o, "[3] " + statsA + "count=5,bytes=28");
        assertContains(o, "[3] " + statsA + "count=5,bytes=14");
        assertContains(o, "[3] " + statsA + "count=5,bytes=10");
        assertContains(o, "[3] " + statsA + "count=4,bytes=5");
        assertContains(o, "[3] " + statsA + "count=5,bytes=9");
        assertContains(o, "[3] " + statsA + "count=7,bytes=15");
        assertContains(o, "[3] failed multi: " + statsA + "count=7,bytes=15");
        // B's hard limits
        assertContains(o, "[4] create " + B + "/b2 (3 bytes) -> OK");
        assertContains(o, "[4] create " + B + "/b3 (0 bytes) -> QUOTAEXCEEDED");
        assertContains(o, "[4] setData " + B + "/b1 (36 bytes) -> QUOTAEXCEEDED");
        assertContains(o, "[4] setData " + B + "/b1 (35 bytes) -> OK");
        assertContains(o, "[4] " + statsB + "count=3,bytes=40");
        assertContains(o, "[4] multi setData " + B + "/b1, create " + B + "/b3 -> QUOTAEXCEEDED [error OK, error QUOTAEXCEEDED]");
        // each op of a multi is checked against the tree before it, so one multi may go past a hard limit
        assertContains(o, "[4] one multi: " + statsB + "count=4,bytes=3");
        assertContains(o, "[4] one multi: " + statsB + "count=4,bytes=62");
        assertContains(o, "[4] over the limits: setData " + B + "/m1 (20 bytes) -> QUOTAEXCEEDED");
        assertContains(o, "[4] over the limits: setData " + B + "/m1 (30 bytes) -> OK");
        // the server rewrites the stats node in place: its version stays 0
        assertContains(o, "[4] over the limits: stat " + QUOTA + B + "/zookeeper_stats -> version=0 cversion=0 dataLength=15"
                + " numChildren=0 ephemeralOwner=0");
        // soft limits do not refuse
        assertContains(o, "[4] soft: create " + A + "/s1 (0 bytes) -> OK");
        assertContains(o, "[4] soft: setData " + A + "/x1 (120 bytes) -> OK");
        assertContains(o, "[5] getChildren " + QUOTA + " -> [" + A.substring(1) + ", " + B.substring(1) + "]");
        assertContains(o, "[7] event NodeDataChanged " + QUOTA + A + "/zookeeper_limits");
        assertContains(o, "[7] more events: []");
        assertContains(o, "[6] exists " + QUOTA + B + " -> false");
        assertContains(o, "[8] " + statsA + "count=9,bytes=136");
        assertContains(o, "[8] after the session closed: " + statsA + "count=8,bytes=133");
    }

    private static void assertContains(List<String> outcomes, String expected) {
        assertTrue(outcomes.contains(expected), "ZooKeeper's outcomes lack \"" + expected + "\":\n"
                + String.join("\n", outcomes));
    }

    interface Step {
        Object run() throws Exception;
    }

    /** The outcomes of one run, in order. */
    private static final class Recorder {
        final List<String> outcomes = new ArrayList<>();
        String step = "";

        void note(String line) {
            outcomes.add(step + line);
        }

        /** "label -> result" or "label -> ERROR_CODE". */
        void record(String label, Step s) {
            String result;
            try {
                Object r = s.run();
                result = r == null ? "OK" : r.toString();
            } catch (KeeperException e) {
                result = e.code().name();
            } catch (Exception e) {
                result = e.getClass().getSimpleName();
            }
            note(label + " -> " + result);
        }
    }

    private static byte[] bytes(int n, char c) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String statsPath(String root) {
        return QUOTA + root + "/zookeeper_stats";
    }

    private static String getData(ZooKeeper zk, String path) throws Exception {
        return new String(zk.getData(path, false, null), StandardCharsets.UTF_8);
    }

    private static void create(Recorder r, ZooKeeper zk, String path, byte[] data) {
        r.record("create " + path + " (" + data.length + " bytes)", () -> {
            zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            return null;
        });
    }

    private static void setData(Recorder r, ZooKeeper zk, String path, byte[] data) {
        r.record("setData " + path + " (" + data.length + " bytes)", () -> {
            zk.setData(path, data, -1);
            return null;
        });
    }

    private static void delete(Recorder r, ZooKeeper zk, String path) {
        r.record("delete " + path, () -> {
            zk.delete(path, -1);
            return null;
        });
    }

    private static void stats(Recorder r, ZooKeeper zk, String root) {
        r.record("getData " + statsPath(root), () -> getData(zk, statsPath(root)));
    }

    /** A multi's outcome: each op's result, the failing one's code (ZooKeeper's ErrorResults) if it failed. */
    private static void multi(Recorder r, ZooKeeper zk, String label, List<Op> ops) {
        List<OpResult> results;
        String outcome;
        try {
            results = zk.multi(ops);
            outcome = "OK";
        } catch (KeeperException e) {
            results = e.getResults();
            outcome = e.code().name();
        } catch (Exception e) {
            r.note("multi " + label + " -> " + e.getClass().getSimpleName());
            return;
        }
        List<String> each = new ArrayList<>();
        if (results != null) {
            for (OpResult result : results) {
                each.add(result instanceof OpResult.ErrorResult err
                        ? "error " + KeeperException.Code.get(err.getErr()).name()
                        : result.getClass().getSimpleName());
            }
        }
        r.note("multi " + label + " -> " + outcome + " " + each);
    }

    private static final byte[] NONE = new byte[0];

    /** The whole client script against {@code connect}: its outcomes, in order. */
    interface Lines {
        List<String> get() throws Exception;
    }

    /** mntr's quota lines (ZooKeeper's quota gauges and refusal counters) of these servers, together and sorted. */
    private static List<String> quotaLines(List<java.net.InetSocketAddress> servers) throws Exception {
        List<String> out = new ArrayList<>();
        for (java.net.InetSocketAddress a : servers) {
            for (String line : io.volery.server.admin.FourLetterWordClient.ask(a, "mntr", 10_000).split("\n")) {
                if (line.contains("_quota_")) {
                    out.add(line.strip().replace('\t', ' '));
                }
            }
        }
        out.sort(null);
        return out;
    }

    private static final Pattern QUOTA_SAMPLE = Pattern.compile(
            "volery_quota_(count_limit|bytes_limit|count_usage|bytes_usage|exceeded_errors)\\{(.*)} (\\S+)");

    /** The nodes' volery_quota_* samples, written as the mntr lines they stand for. */
    private static List<String> prometheusQuotaLines(VoleryCluster cluster) throws Exception {
        List<String> out = new ArrayList<>();
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        for (io.volery.server.VoleryNode n : cluster.nodes()) {
            String body = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + n.metricsAddress().getPort() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            for (String line : body.split("\n")) {
                java.util.regex.Matcher m = QUOTA_SAMPLE.matcher(line);
                if (m.matches()) {
                    java.util.regex.Matcher ns = Pattern.compile("namespace=\"([^\"]*)\"").matcher(m.group(2));
                    assertTrue(ns.find(), "a quota sample without its namespace: " + line);
                    String kind = m.group(1).equals("exceeded_errors") ? "exceeded_error" : m.group(1);
                    out.add("zk_" + ns.group(1) + "_quota_" + kind + "_per_namespace " + (long) Double.parseDouble(m.group(3)));
                }
            }
        }
        out.sort(null);
        return out;
    }

    private static List<String> script(String connect, Lines mntrQuota) throws Exception {
        Recorder r = new Recorder();
        ZooKeeper zk = Clients.zooKeeper(connect, 10_000, null);
        try {
            // 1. the subtrees, with data of known sizes
            r.step = "[1] ";
            r.record("getChildren " + QUOTA, () -> sorted(zk.getChildren(QUOTA, false)));
            create(r, zk, A, utf8("aaaa"));
            create(r, zk, A + "/x1", utf8("0123456789"));
            create(r, zk, A + "/sub", utf8("s"));
            create(r, zk, A + "/sub/c1", utf8("cc"));
            create(r, zk, B, utf8("bb"));
            create(r, zk, B + "/b1", utf8("12345"));

            // 2. the quotas, as an operator sets them (zkCli 3.9 takes one limit per setquota)
            r.step = "";
            zkCli(r, connect,
                    "setquota -n 5 -b 100 " + A,
                    "setquota -n 5 " + A,
                    "setquota -b 100 " + A,
                    "setquota -N 3 " + B,
                    "setquota -B 40 " + B,
                    "setquota -n 2 " + A + "/sub",
                    "setquota -n 2 " + QUOTA + A,
                    "setquota -n 2 /nope",
                    "listquota " + A,
                    "listquota " + B,
                    "listquota " + A + "/sub",
                    "listquota /nope");
            r.step = "[2] ";
            stats(r, zk, A);
            r.record("getData " + QUOTA + A + "/zookeeper_limits", () -> getData(zk, QUOTA + A + "/zookeeper_limits"));
            stats(r, zk, B);
            r.record("getData " + QUOTA + B + "/zookeeper_limits", () -> getData(zk, QUOTA + B + "/zookeeper_limits"));

            // 3. writes under A (soft limits: count 5, bytes 100), the stats after each
            r.step = "[3] ";
            create(r, zk, A + "/x2", utf8("hello"));
            stats(r, zk, A);
            setData(r, zk, A + "/x1", utf8("0123456789abcdef"));
            stats(r, zk, A);
            setData(r, zk, A + "/x1", utf8("01"));
            stats(r, zk, A);
            setData(r, zk, A, NONE); // the quota root's own data counts
            stats(r, zk, A);
            delete(r, zk, A + "/x2");
            stats(r, zk, A);
            create(r, zk, A + "/sub/c2", utf8("c2c2"));
            stats(r, zk, A);
            multi(r, zk, "create " + A + "/m1, create " + A + "/m2, setData " + A + "/sub", List.of(
                    Op.create(A + "/m1", utf8("mmm"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.create(A + "/m2", NONE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.setData(A + "/sub", utf8("ssss"), -1)));
            stats(r, zk, A);
            multi(r, zk, "create " + A + "/f1, setData " + A + "/x1, delete " + A + "/nope", List.of(
                    Op.create(A + "/f1", utf8("ffff"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.setData(A + "/x1", utf8("zzzzzzzz"), -1),
                    Op.delete(A + "/nope", -1)));
            r.step = "[3] failed multi: ";
            stats(r, zk, A);
            r.record("exists " + A + "/f1", () -> zk.exists(A + "/f1", false) != null);
            r.record("multiRead " + statsPath(A) + ", " + A + "/x1", () -> {
                List<String> out = new ArrayList<>();
                for (OpResult res : zk.multi(List.of(Op.getData(statsPath(A)), Op.getData(A + "/x1")))) {
                    out.add(res instanceof OpResult.GetDataResult g ? new String(g.getData(), StandardCharsets.UTF_8)
                            + " dataLength=" + g.getStat().getDataLength() : res.getClass().getSimpleName());
                }
                return out;
            });
            r.record("getData " + A + "/x1", () -> getData(zk, A + "/x1"));

            // 4. B's hard limits: 3 nodes (B itself included), 40 bytes
            r.step = "[4] ";
            create(r, zk, B + "/b2", utf8("xyz"));
            stats(r, zk, B);
            create(r, zk, B + "/b3", NONE);
            r.record("exists " + B + "/b3", () -> zk.exists(B + "/b3", false) != null);
            stats(r, zk, B);
            setData(r, zk, B + "/b1", bytes(36, 'b')); // 2 + 36 + 3 = 41 > 40
            stats(r, zk, B);
            setData(r, zk, B + "/b1", bytes(35, 'b')); // exactly 40
            stats(r, zk, B);
            setData(r, zk, B + "/b2", utf8("xyzw"));
            setData(r, zk, B + "/b1", utf8("1")); // shrinking is always allowed
            stats(r, zk, B);
            multi(r, zk, "setData " + B + "/b1, create " + B + "/b3", List.of(
                    Op.setData(B + "/b1", utf8("22"), -1),
                    Op.create(B + "/b3", utf8("q"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
            stats(r, zk, B);
            r.record("getData " + B + "/b1", () -> getData(zk, B + "/b1"));
            delete(r, zk, B + "/b2");
            stats(r, zk, B);
            create(r, zk, B + "/b3", utf8("q"));
            stats(r, zk, B);
            delete(r, zk, B + "/b3");
            create(r, zk, B + "/big", bytes(50, 'g')); // room for a node, not for its bytes
            r.record("exists " + B + "/big", () -> zk.exists(B + "/big", false) != null);
            r.record("getChildren " + B, () -> sorted(zk.getChildren(B, false)));
            stats(r, zk, B);
            // ZooKeeper checks each op of a multi against the tree as it was before the multi: two creates
            // that each fit (2 + 1 <= 3) both pass, and so do two setData that each fit (3 + 29, 3 + 30 <= 40)
            r.step = "[4] one multi: ";
            multi(r, zk, "create " + B + "/m1, create " + B + "/m2", List.of(
                    Op.create(B + "/m1", NONE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.create(B + "/m2", NONE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
            stats(r, zk, B);
            multi(r, zk, "setData " + B + "/b1, setData " + B + "/m1", List.of(
                    Op.setData(B + "/b1", bytes(30, 'b'), -1),
                    Op.setData(B + "/m1", bytes(30, 'm'), -1)));
            stats(r, zk, B);
            // over both limits now: a create is refused; a setData that shrinks but stays over the limit too,
            // one that keeps the size is not (no byte change, no check); a delete always passes
            r.step = "[4] over the limits: ";
            create(r, zk, B + "/m3", NONE);
            setData(r, zk, B + "/m1", bytes(20, 'm'));
            setData(r, zk, B + "/m1", bytes(30, 'n'));
            stats(r, zk, B);
            delete(r, zk, B + "/m1");
            delete(r, zk, B + "/m2");
            stats(r, zk, B);
            setData(r, zk, B + "/b1", utf8("1"));
            stats(r, zk, B);
            nodeStat(r, zk, statsPath(B));
            // soft limits never refuse: A has 7 nodes of 5 allowed, and goes past 100 bytes
            r.step = "[4] soft: ";
            create(r, zk, A + "/s1", NONE);
            setData(r, zk, A + "/x1", bytes(120, 'x'));
            stats(r, zk, A);
            r.record("mntr quota lines", mntrQuota::get);

            // 5. the quota nodes as a client lists them
            r.step = "[5] ";
            r.record("getChildren " + QUOTA, () -> sorted(zk.getChildren(QUOTA, false)));
            r.record("getChildren " + QUOTA + A, () -> sorted(zk.getChildren(QUOTA + A, false)));
            r.record("getChildren " + QUOTA + B, () -> sorted(zk.getChildren(QUOTA + B, false)));
            // the quota tree spans partitions in Volery (each quota lives with its subtree): counts over it, a
            // multi creating a node under /zookeeper/quota with one in A, and a child watch on /zookeeper/quota
            for (String p : List.of("/", "/zookeeper", QUOTA, QUOTA + A)) {
                r.record("getAllChildrenNumber " + p, () -> zk.getAllChildrenNumber(p));
            }
            multi(r, zk, "quota node and A", List.of(
                    Op.create(QUOTA + "/qm", NONE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.create(QUOTA + "/qm/inner", NONE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.create(A + "/mm", NONE, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
            r.record("getChildren " + QUOTA, () -> sorted(zk.getChildren(QUOTA, false)));
            r.record("getAllChildrenNumber " + QUOTA, () -> zk.getAllChildrenNumber(QUOTA));
            BlockingQueue<WatchedEvent> childEvents = new LinkedBlockingQueue<>();
            r.record("getChildren+watch " + QUOTA, () -> sorted(zk.getChildren(QUOTA, childEvents::add)));
            multi(r, zk, "quota node and A, deleted", List.of(Op.delete(QUOTA + "/qm/inner", -1),
                    Op.delete(QUOTA + "/qm", -1), Op.delete(A + "/mm", -1)));
            r.record("child event", () -> {
                WatchedEvent e = childEvents.poll(10, TimeUnit.SECONDS);
                return e == null ? "none" : e.getType() + " " + e.getPath();
            });
            r.record("getAllChildrenNumber " + QUOTA, () -> zk.getAllChildrenNumber(QUOTA));
            stats(r, zk, A);

            // 7. a watch on A's limits, set by another client, fires when zkCli changes them
            BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
            ZooKeeper watcher = Clients.zooKeeper(connect, 10_000, events);
            try {
                r.step = "[7] ";
                String limitsA = QUOTA + A + "/zookeeper_limits";
                r.record("exists+watch " + limitsA, () -> watcher.exists(limitsA, true) != null);
                // ZooKeeper updates the stats node in place: no version change, no watch fires for it
                r.record("getData+watch " + statsPath(A), () -> new String(watcher.getData(statsPath(A), true, null),
                        StandardCharsets.UTF_8));
                create(r, zk, A + "/w1", utf8("w"));
                stats(r, zk, A);
                delete(r, zk, A + "/w1");
                r.step = "";
                zkCli(r, connect, "setquota -n 7 " + A, "listquota " + A);
                r.step = "[7] ";
                r.note(nextEvent(events));
                r.note("more events: " + moreEvents(events));
                nodeStat(r, zk, limitsA);
                r.record("getData " + limitsA, () -> getData(zk, limitsA));
            } finally {
                watcher.close();
            }

            // 6. deleting quotas: A's count limit, then B's whole quota
            r.step = "";
            zkCli(r, connect, "delquota -n " + A, "listquota " + A, "delquota " + B, "listquota " + B,
                    "delquota " + B);
            r.step = "[6] ";
            r.record("getChildren " + QUOTA, () -> sorted(zk.getChildren(QUOTA, false)));
            r.record("exists " + QUOTA + B, () -> zk.exists(QUOTA + B, false) != null);
            nodeStat(r, zk, QUOTA);
            nodeStat(r, zk, QUOTA + A + "/zookeeper_limits");
            nodeStat(r, zk, statsPath(A));
            r.record("getData " + QUOTA + A + "/zookeeper_limits", () -> getData(zk, QUOTA + A + "/zookeeper_limits"));
            stats(r, zk, A);
            // B's limits are gone: nothing is refused there any more
            create(r, zk, B + "/b4", bytes(50, 'g'));
            create(r, zk, B + "/b5", NONE);

            // 8. an ephemeral under A from another session: it counts, and stops counting once the session ends
            r.step = "[8] ";
            ZooKeeper other = Clients.zooKeeper(connect, 10_000, null);
            try {
                r.record("create " + A + "/eph (ephemeral, 3 bytes)", () ->
                        other.create(A + "/eph", utf8("eph"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));
                stats(r, zk, A);
            } finally {
                other.close();
            }
            String with = getData(zk, statsPath(A));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (getData(zk, statsPath(A)).equals(with) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            r.record("after the session closed: getData " + statsPath(A), () -> getData(zk, statsPath(A)));
            r.record("exists " + A + "/eph", () -> zk.exists(A + "/eph", false) != null);
            r.record("mntr quota lines", mntrQuota::get);
        } finally {
            zk.close();
        }
        return r.outcomes;
    }

    /** What a client sees of a node's Stat that does not depend on zxids or times. */
    private static void nodeStat(Recorder r, ZooKeeper zk, String path) {
        r.record("stat " + path, () -> {
            org.apache.zookeeper.data.Stat s = zk.exists(path, false);
            return s == null ? "none" : "version=" + s.getVersion() + " cversion=" + s.getCversion()
                    + " dataLength=" + s.getDataLength() + " numChildren=" + s.getNumChildren()
                    + " ephemeralOwner=" + s.getEphemeralOwner();
        });
    }

    /** The events heard in the next half second, connection states aside. */
    private static List<String> moreEvents(BlockingQueue<WatchedEvent> events) throws InterruptedException {
        List<String> more = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (true) {
            long left = deadline - System.nanoTime();
            WatchedEvent e = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                return more;
            }
            if (e.getType() != Watcher.Event.EventType.None) {
                more.add(e.getType() + " " + e.getPath());
            }
        }
    }

    private static List<String> sorted(List<String> names) {
        List<String> s = new ArrayList<>(names);
        s.sort(null);
        return s;
    }

    /** The first event that is not a connection state's, or "no event". */
    private static String nextEvent(BlockingQueue<WatchedEvent> events) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long left = deadline - System.nanoTime();
            WatchedEvent e = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                return "no event";
            }
            if (e.getType() != Watcher.Event.EventType.None) {
                return "event " + e.getType() + " " + e.getPath();
            }
        }
    }

    // --- zkCli

    /** A marker between commands: a stat of a node that does not exist, whose answer splits the transcript. */
    private static final String MARK = "/zkcli-mark-";
    private static final Pattern LOG_LINE = Pattern.compile("^\\[[^\\]]+\\] (TRACE|DEBUG|INFO|WARN|ERROR) .*");
    private static final Pattern PROMPT = Pattern.compile("^\\[zk: [^\\]]*\\] ?");
    private static final Pattern PORT = Pattern.compile("127\\.0\\.0\\.1:\\d+");

    /**
     * Runs {@code commands} in one zkCli session and records, per command, the lines of its output that
     * tell a quota command's outcome (connection messages, WATCHER lines, log lines, prompts and ports
     * left out): "zkCli COMMAND -> line | line", or "-> (nothing)".
     */
    private static void zkCli(Recorder r, String connect, String... commands) throws Exception {
        StringBuilder script = new StringBuilder();
        for (int i = 0; i < commands.length; i++) {
            script.append(commands[i]).append('\n').append("stat ").append(MARK).append(i).append('\n');
        }
        script.append("quit\n");
        ZkCliSessionTest.Result result = ZkCliSessionTest.zkCli(connect, script.toString(), 60);
        List<List<String>> outputs = new ArrayList<>();
        List<String> current = new ArrayList<>();
        int kept = 0;
        for (String raw : result.stdout().lines().toList()) {
            String line = PORT.matcher(PROMPT.matcher(raw.strip()).replaceFirst("")).replaceAll("127.0.0.1:PORT");
            if (line.startsWith("Node does not exist: " + MARK)) {
                outputs.add(current);
                current = new ArrayList<>();
            } else if (quotaOutput(line)) {
                current.add(line);
                kept++;
            }
        }
        assertEquals(commands.length, outputs.size(), "zkCli's transcript lacks markers\n" + result.describe());
        assertTrue(kept > 0, "nothing kept of zkCli's transcript\n" + result.describe());
        for (int i = 0; i < commands.length; i++) {
            List<String> out = outputs.get(i);
            r.note("zkCli " + commands[i] + " -> " + (out.isEmpty() ? "(nothing)" : String.join(" | ", out)));
        }
    }

    /** Whether a zkCli line is a quota command's output (its answer or its error), not noise. */
    static boolean quotaOutput(String line) {
        if (line.isEmpty() || LOG_LINE.matcher(line).matches() || line.startsWith("at ")) {
            return false;
        }
        return line.startsWith("absolute path is ")
                || line.startsWith("Output quota for ")
                || line.startsWith("Output stat for ")
                || line.startsWith("[Warning]")
                || line.startsWith("Node does not exist")
                || line.startsWith("Node already exists")
                || line.startsWith("cannot set a quota")
                || line.startsWith("org.apache.commons.cli.")
                || line.startsWith("the num quota")
                || line.startsWith("the bytes quota")
                || line.contains("KeeperErrorCode")
                || line.contains(" does not exist")
                || line.contains(" which has a quota")
                || line.toLowerCase(java.util.Locale.ROOT).contains("quota");
    }
}
