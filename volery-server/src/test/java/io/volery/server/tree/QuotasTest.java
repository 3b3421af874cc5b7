package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.bytes;
import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper's quota bookkeeping in one tree (ADR 072), as DataTree and ZooKeeperServer.checkQuota do it: the
 * stats node filled in when created, kept up to date by creates, setData, deletes and a session's end, left
 * alone once the limits node goes, enforced only past hard limits, checked against the stats before a multi,
 * undone with a failed multi, and carried by a snapshot. QuotaTest compares the whole against ZooKeeper 3.9.5.
 */
class QuotasTest {

    private static String stats(TreeFixture f, String quoted) {
        return new String(f.tree.data("/zookeeper/quota" + quoted + "/zookeeper_stats"), StandardCharsets.UTF_8);
    }

    /** What zkCli's setquota creates: the quota path, the limits node, then a zeroed stats node. */
    private static void setQuota(TreeFixture f, long s, String quoted, String limits) {
        String p = "/zookeeper/quota";
        for (String part : quoted.substring(1).split("/")) {
            p = p + "/" + part;
            if (f.tree.stat(p) == null) {
                f.created(s, p, CreateMode.PERSISTENT);
            }
        }
        expect(ErrorCode.OK, f.createWithData(s, p + "/zookeeper_limits", limits), "limits");
        expect(ErrorCode.OK, f.createWithData(s, p + "/zookeeper_stats", "count=0,bytes=0"), "stats");
    }

    @Test
    void statsFollowTheSubtree() {
        TreeFixture f = new TreeFixture();
        long s = f.session();
        f.createWithData(s, "/a", "12345");
        f.createWithData(s, "/a/b", "xy");
        f.createWithData(s, "/other", "zzz");
        setQuota(f, s, "/a", "count=10,bytes=-1");
        assertEquals("count=2,bytes=7", stats(f, "/a"), "the new stats node counts what the subtree holds");
        f.createWithData(s, "/a/b/c", "abc");
        assertEquals("count=3,bytes=10", stats(f, "/a"));
        f.run(new Command.SetData(s, "/a/b", bytes("x"), -1));
        assertEquals("count=3,bytes=9", stats(f, "/a"));
        f.createWithData(s, "/other/x", "more");
        assertEquals("count=3,bytes=9", stats(f, "/a"), "outside the quota");
        f.createWithData(s, "/ab", "0");
        assertEquals("count=3,bytes=9", stats(f, "/a"), "a sibling with a longer name is not below /a");
        f.run(new Command.Delete(s, "/a/b/c", -1));
        assertEquals("count=2,bytes=6", stats(f, "/a"));
        Stat before = f.stat("/zookeeper/quota/a/zookeeper_stats");
        f.createWithData(s, "/a/d", "");
        assertEquals(before.version(), f.stat("/zookeeper/quota/a/zookeeper_stats").version(),
                "stats change in place: no new version");

        long e = f.session();
        f.run(new Command.Create(e, "/a/eph", bytes("1234"), Acl.OPEN, CreateMode.EPHEMERAL));
        assertEquals("count=4,bytes=10", stats(f, "/a"));
        f.run(new Command.CloseSession(e));
        assertEquals("count=3,bytes=6", stats(f, "/a"), "a session's end removes its ephemerals from the count");

        f.run(new Command.Delete(s, "/zookeeper/quota/a/zookeeper_limits", -1));
        f.createWithData(s, "/a/after", "1");
        assertEquals("count=3,bytes=6", stats(f, "/a"), "without its limits node a quota counts nothing");
    }

    @Test
    void onlyHardLimitsAreEnforcedAndOnlyWhenAskedTo() {
        TreeFixture loose = new TreeFixture();
        long s = loose.session();
        loose.createWithData(s, "/q", "");
        setQuota(loose, s, "/q", "count=-1,bytes=-1=;countHardLimit=2");
        expect(ErrorCode.OK, loose.createWithData(s, "/q/1", ""), "one");
        expect(ErrorCode.OK, loose.createWithData(s, "/q/2", ""), "without enforcement nothing is refused");

        TreeFixture f = new TreeFixture(TreeConfig.defaults().withQuotaEnforcement(true));
        s = f.session();
        f.createWithData(s, "/q", "");
        f.createWithData(s, "/soft", "");
        setQuota(f, s, "/q", "count=-1,bytes=-1=;byteHardLimit=5;countHardLimit=3");
        setQuota(f, s, "/soft", "count=1,bytes=1");
        expect(ErrorCode.OK, f.createWithData(s, "/q/1", "ab"), "count 2 of 3");
        expect(ErrorCode.OK, f.createWithData(s, "/q/2", "c"), "count 3 of 3");
        expect(ErrorCode.QUOTAEXCEEDED, f.createWithData(s, "/q/3", ""), "a fourth node");
        assertNull(f.stat("/q/3"));
        expect(ErrorCode.QUOTAEXCEEDED, f.run(new Command.SetData(s, "/q/2", bytes("cdef"), -1)), "6 bytes of 5");
        expect(ErrorCode.OK, f.run(new Command.SetData(s, "/q/2", bytes("cd"), -1)), "4 bytes of 5");
        expect(ErrorCode.OK, f.run(new Command.SetData(s, "/q/1", bytes(""), -1)), "shrinking always passes");
        assertEquals("count=3,bytes=2", stats(f, "/q"));
        // ZooKeeper checks a multi's operations against the stats before it: two creates that together pass the
        // limit go through when each alone fits
        f.run(new Command.Delete(s, "/q/2", -1));
        Result both = f.run(new Command.Multi(s, List.of(
                new Command.Create(s, "/q/m1", bytes(""), Acl.OPEN, CreateMode.PERSISTENT),
                new Command.Create(s, "/q/m2", bytes(""), Acl.OPEN, CreateMode.PERSISTENT))));
        expect(ErrorCode.OK, both, "each create of the multi is checked against count 2 of 3");
        assertEquals("count=4,bytes=0", stats(f, "/q"));
        // a failed multi leaves the stats as they were
        Result failed = f.run(new Command.Multi(s, List.of(
                new Command.Delete(s, "/q/m1", -1),
                new Command.SetData(s, "/q/m2", bytes("zz"), -1),
                new Command.Delete(s, "/nope", -1))));
        expect(ErrorCode.NONODE, failed, "the last op fails");
        assertEquals("count=4,bytes=0", stats(f, "/q"), "undone with the multi");
        expect(ErrorCode.OK, f.createWithData(s, "/soft/1", "abc"), "soft limits only log");
        assertEquals("count=2,bytes=3", stats(f, "/soft"));
    }

    @Test
    void aRestoredTreeKeepsCountingAndEnforcing() throws Exception {
        TreeFixture f = new TreeFixture(TreeConfig.defaults().withQuotaEnforcement(true));
        long s = f.session();
        f.createWithData(s, "/r", "");
        setQuota(f, s, "/r", "count=-1,bytes=-1=;countHardLimit=2");
        ZnodeTree copy = SnapshotTest.copyOf(f.tree);
        assertEquals(f.tree.digest(), copy.digest());
        Result one = copy.apply(new Command.Create(s, "/r/1", bytes("ab"), Acl.OPEN, CreateMode.PERSISTENT, -1), 500, 2_000_000);
        expect(ErrorCode.OK, one, "count 2 of 2");
        assertArrayEquals(bytes("count=2,bytes=2"), copy.data("/zookeeper/quota/r/zookeeper_stats"),
                "the restored tree knows the quota");
        Result two = copy.apply(new Command.Create(s, "/r/2", bytes(""), Acl.OPEN, CreateMode.PERSISTENT, -1), 501, 2_000_000);
        expect(ErrorCode.QUOTAEXCEEDED, two, "and enforces it");
    }

    @Test
    void aClientsWriteOfTheStatsIsWhatLaterChangesAddTo() {
        TreeFixture f = new TreeFixture(TreeConfig.defaults().withQuotaEnforcement(true));
        long s = f.session();
        f.createWithData(s, "/c", "");
        setQuota(f, s, "/c", "count=-1,bytes=-1=;countHardLimit=60");
        f.createWithData(s, "/c/x", "ab");
        assertEquals("count=2,bytes=2", stats(f, "/c"));
        f.run(new Command.SetData(s, "/zookeeper/quota/c/zookeeper_stats", bytes("bytes=100,count=50"), -1));
        f.createWithData(s, "/c/y", "");
        assertEquals("count=51,bytes=100", stats(f, "/c"), "counted on from what the client wrote, in ZooKeeper's spelling");
        f.run(new Command.SetData(s, "/zookeeper/quota/c/zookeeper_stats", bytes("bytes=7,count=59"), -1));
        f.run(new Command.SetData(s, "/c/x", bytes("cd"), -1));
        assertEquals("count=59,bytes=7", stats(f, "/c"), "a write that moves nothing still respells the text, as ZooKeeper's");
        expect(ErrorCode.OK, f.createWithData(s, "/c/z", ""), "count 60 of 60");
        expect(ErrorCode.QUOTAEXCEEDED, f.createWithData(s, "/c/w", ""), "the limit counts from the client's figures");
        f.run(new Command.SetData(s, "/zookeeper/quota/c/zookeeper_limits", bytes("count=-1,bytes=-1=;countHardLimit=61"), -1));
        expect(ErrorCode.OK, f.createWithData(s, "/c/w", ""), "new limits take effect at once");
    }

    @Test
    void manyQuotasEachCountTheirOwn() {
        TreeFixture f = new TreeFixture(TreeConfig.defaults().withQuotaEnforcement(true));
        long s = f.session();
        for (int i = 0; i < 20; i++) { // past the few quotas compared by prefix: ancestors are looked up
            f.createWithData(s, "/m" + i, "");
            f.createWithData(s, "/m" + i + "/deep", "");
            setQuota(f, s, "/m" + i + (i % 2 == 0 ? "" : "/deep"), "count=-1,bytes=-1=;countHardLimit=3");
        }
        f.createWithData(s, "/m1/deep/x", "abc");
        f.createWithData(s, "/m10/deep/y", "ab");
        f.createWithData(s, "/m1x", "zz");
        assertEquals("count=2,bytes=3", stats(f, "/m1/deep"));
        assertEquals("count=3,bytes=2", stats(f, "/m10"));
        assertEquals("count=1,bytes=0", stats(f, "/m11/deep"));
        expect(ErrorCode.QUOTAEXCEEDED, f.createWithData(s, "/m10/z", ""), "a fourth node under /m10");
        expect(ErrorCode.OK, f.createWithData(s, "/m11/z", ""), "/m11 itself has no quota, /m11/deep has");
    }

    @Test
    void removingALimitsNodeEndsTheQuotasBelowItAsZooKeepersTrieDoes() {
        TreeFixture f = new TreeFixture();
        long s = f.session();
        for (String p : List.of("/a", "/a/b", "/a-x")) {
            f.createWithData(s, p, "");
            setQuota(f, s, p, "count=10,bytes=-1");
        }
        f.run(new Command.Delete(s, "/zookeeper/quota/a/zookeeper_limits", -1));
        f.createWithData(s, "/a/b/c", "");
        f.createWithData(s, "/a-x/c", "");
        assertEquals("count=1,bytes=0", stats(f, "/a/b"), "the quota below /a went with it");
        assertEquals("count=2,bytes=0", stats(f, "/a-x"), "a sibling that sorts between them did not");
    }

    @Test
    void gaugesByNamespaceAsZooKeepersMetrics() {
        TreeFixture f = new TreeFixture(TreeConfig.defaults().withQuotaEnforcement(true));
        long s = f.session();
        f.createWithData(s, "/n", "abc");
        f.created(s, "/n/x", CreateMode.PERSISTENT);
        f.createWithData(s, "/n/x/y", "12");
        f.created(s, "/m", CreateMode.PERSISTENT);
        setQuota(f, s, "/n/x", "count=-1,bytes=50=;byteHardLimit=-1;countHardLimit=2");
        setQuota(f, s, "/m", "count=7,bytes=-1");
        expect(ErrorCode.QUOTAEXCEEDED, f.createWithData(s, "/n/x/z", ""), "a third node");
        java.util.Map<String, long[]> g = f.tree.quotaGauges();
        assertEquals(List.of("m", "n"), List.copyOf(g.keySet()), "namespaces: a quota's first component");
        assertArrayEquals(new long[] {2, 50, 2, 2, 1, 1, 1}, g.get("n"), "hard count limit, soft bytes, usage, one refusal");
        assertArrayEquals(new long[] {7, -1, 1, 0, 0, 1, 1}, g.get("m"));
        f.run(new Command.Delete(s, "/zookeeper/quota/m/zookeeper_limits", -1));
        assertArrayEquals(new long[] {0, 0, 1, 0, 0, 0, 1}, f.tree.quotaGauges().get("m"), "a stats node alone: usage only");
    }

    @Test
    void statsTextAsZooKeeperWritesIt() {
        assertEquals("count=1,bytes=2", new String(Quotas.Stats.of(bytes("count=0,bytes=0")).plus(2, 1).source(),
                StandardCharsets.UTF_8));
        assertEquals("count=-1,bytes=-1=;byteHardLimit=40;countHardLimit=3", new String(Quotas.Stats.of(
                bytes("countHardLimit=3,byteHardLimit=40")).plus(0, 0).source(), StandardCharsets.UTF_8));
        assertEquals(java.util.Map.of("count", 5L, "bytes", 7L, "x", 3L), Quotas.parse(bytes("count=5,bytes=7=;x=3")));
        assertNull(Quotas.Stats.of(bytes("garbage")), "unreadable stats are left alone");
        assertEquals(false, Quotas.Stats.of(bytes("bytes=3,count=1")).canonical(), "a client's spelling");
        assertEquals(true, Quotas.Stats.of(bytes("count=1,bytes=3=;x=2")).canonical(), "ZooKeeper's");
        assertEquals(new Quotas.Exceeded("Quota exceeded: /a [current count=3, softCountLimit=2]; Quota exceeded: /a"
                + " [current bytes=9, softByteLimit=8]", false), Quotas.exceeded("/a", Quotas.Limits.of(bytes("count=2,bytes=8")),
                Quotas.Stats.of(bytes("count=2,bytes=7")), 2, 1), "ZooKeeper's messages; soft limits only logged");
        assertEquals(new Quotas.Exceeded("Quota exceeded: /a [current bytes=9, hardByteLimit=8]", true),
                Quotas.exceeded("/a", Quotas.Limits.of(bytes("count=2,bytes=-1=;byteHardLimit=8")),
                        Quotas.Stats.of(bytes("count=2,bytes=7")), 2, 1), "a hard limit wins");
        assertNull(Quotas.exceeded("/a", Quotas.Limits.of(bytes("count=2,bytes=-1")), Quotas.Stats.of(bytes("count=5,bytes=7")), 2, 0),
                "count is checked only when it changes");
    }

    /**
     * Hash partitioning (ADR 089): two trees hold every node but apply setData only to the nodes their
     * predicate owns; each stats node then counts every node and its tree's share of the bytes. Counts match a
     * whole tree's, the bytes sum to its bytes, the gauges of the two sum to its gauges, and nothing is enforced
     * in a share even when the config asks for it (no share sees a write's whole subtree).
     */
    @Test
    void sharesOfAQuotaSumToTheWholeAndEnforceNothing() {
        java.util.function.Predicate<String> even = p -> (p.hashCode() & 1) == 0;
        TreeFixture whole = new TreeFixture();
        TreeConfig enforcing = TreeConfig.defaults().withQuotaEnforcement(true);
        TreeFixture first = new TreeFixture(enforcing);
        TreeFixture second = new TreeFixture(enforcing);
        first.tree.holdDataOnlyOf(even);
        second.tree.holdDataOnlyOf(even.negate());
        List<TreeFixture> all = List.of(whole, first, second);
        long s = 0;
        for (TreeFixture f : all) {
            s = f.session();
            f.createWithData(s, "/a", "12345");
            f.createWithData(s, "/a/b", "xy");
            f.createWithData(s, "/a/c", "");
            f.createWithData(s, "/a/b/e", "0");
            setQuota(f, s, "/a", "count=-1,bytes=-1=;byteHardLimit=10;countHardLimit=3");
        }
        assertSharesSum(whole, first, second, "count=4,bytes=8");
        for (TreeFixture f : all) {
            expect(ErrorCode.OK, f.createWithData(s, "/a/b/d", "abcdef"), "past the hard limits, nothing enforced");
        }
        assertSharesSum(whole, first, second, "count=5,bytes=14");
        // setData reaches the node's owner only, as under hash
        for (String path : List.of("/a/b", "/a/c", "/a", "/a/b/e")) {
            TreeFixture owner = even.test(path) ? first : second;
            for (TreeFixture f : List.of(whole, owner)) {
                f.run(new Command.SetData(s, path, bytes("0123456789"), -1));
            }
        }
        assertSharesSum(whole, first, second, "count=5,bytes=46");
        long e = 0;
        for (TreeFixture f : all) {
            e = f.session();
            f.run(new Command.Create(e, "/a/eph", bytes("1234"), Acl.OPEN, CreateMode.EPHEMERAL));
        }
        assertSharesSum(whole, first, second, "count=6,bytes=50");
        for (TreeFixture f : all) {
            f.run(new Command.CloseSession(e));
            f.run(new Command.Delete(s, "/a/b/d", -1));
        }
        assertSharesSum(whole, first, second, "count=4,bytes=40");
    }

    private static void assertSharesSum(TreeFixture whole, TreeFixture first, TreeFixture second, String expected) {
        assertEquals(expected, stats(whole, "/a"), "the whole tree's stats");
        String statPath = "/zookeeper/quota/a/zookeeper_stats";
        long[] a = first.tree.quotaStatsShare(statPath);
        long[] b = second.tree.quotaStatsShare(statPath);
        assertEquals(a[0], b[0], "every share counts every node");
        assertEquals(expected, new String(ZnodeTree.quotaStatsWithBytes(first.tree.data(statPath), a[1] + b[1]),
                StandardCharsets.UTF_8), "the shares' bytes summed");
        java.util.Map<String, long[]> w = whole.tree.quotaGauges();
        java.util.Map<String, long[]> x = first.tree.quotaGauges();
        java.util.Map<String, long[]> y = second.tree.quotaGauges();
        assertEquals(w.keySet(), x.keySet());
        assertEquals(w.keySet(), y.keySet());
        for (String ns : w.keySet()) {
            for (int i = 0; i < 5; i++) {
                assertEquals(w.get(ns)[i], x.get(ns)[i] + y.get(ns)[i], "gauge " + i + " of " + ns + " summed over the shares");
            }
        }
    }
}
