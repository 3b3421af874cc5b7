package io.volery.client;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Every operation of the native client, synchronous and asynchronous, with its errors, on a 2 × 3 cluster. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VoleryClientOperationsTest {
    private static final List<ACL> OPEN = Ids.OPEN_ACL_UNSAFE;

    private ClusterWithClientNodes cluster;
    private Subtrees subtrees;
    private VoleryClient client;

    @BeforeAll
    void start() throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 3, 2000);
        subtrees = new Subtrees(new int[] {1, 2});
        client = VoleryClient.connect(cluster.config(), 30_000, e -> { });
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyCreateModeMakesTheNodeZooKeeperWould() throws Exception {
        String top = subtrees.in(1, "modes");
        Stat stat = new Stat();
        assertEquals(top, client.create(top, bytes("root"), OPEN, CreateMode.PERSISTENT, stat));
        assertEquals(0, stat.getVersion(), "a new node's version");
        assertEquals(4, stat.getDataLength(), "dataLength of 'root'");
        assertEquals(0, stat.getEphemeralOwner(), "a persistent node has no owner");

        assertEquals(top + "/e", client.create(top + "/e", null, OPEN, CreateMode.EPHEMERAL));
        assertEquals(client.getSessionId(), client.exists(top + "/e", false).getEphemeralOwner(),
                "an ephemeral node's owner is the session that created it");

        String seq = client.create(top + "/s-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL);
        assertEquals(top + "/s-0000000001", seq, "sequence number = the parent's cversion (one child before it)");
        String eseq = client.create(top + "/es-", null, OPEN, CreateMode.EPHEMERAL_SEQUENTIAL);
        assertEquals(top + "/es-0000000002", eseq);

        client.create(top + "/c", null, OPEN, CreateMode.CONTAINER);
        assertTrue(client.exists(top + "/c", false) != null, "the container exists");

        Stat ttlStat = new Stat();
        client.create(top + "/ttl", null, OPEN, CreateMode.PERSISTENT_WITH_TTL, ttlStat, 60_000);
        assertEquals(0, ttlStat.getVersion());
        String ttlSeq = client.create(top + "/ttls-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, null, 60_000);
        assertEquals(top + "/ttls-0000000005", ttlSeq);

        assertThrows(IllegalArgumentException.class,
                () -> client.create(top + "/bad", null, OPEN, CreateMode.PERSISTENT_WITH_TTL),
                "a TTL mode without a TTL is refused in the client, as by ZooKeeper's");
        assertEquals(List.of("c", "e", "es-0000000002", "s-0000000001", "ttl", "ttls-0000000005"),
                sorted(client.getChildren(top, false)));
        assertEquals(6, client.getAllChildrenNumber(top));
    }

    private static List<String> sorted(List<String> l) {
        return l.stream().sorted().toList();
    }

    @Test
    void synchronousReadsAndWritesReturnZooKeepersStats() throws Exception {
        String top = subtrees.in(2, "rw");
        Stat created = new Stat();
        client.create(top, bytes("v0"), OPEN, CreateMode.PERSISTENT, created);
        Stat set = client.setData(top, bytes("v1"), 0);
        assertEquals(1, set.getVersion(), "version after one setData");
        assertEquals(created.getCzxid(), set.getCzxid(), "czxid is kept");
        assertTrue(set.getMzxid() > created.getMzxid(), "mzxid moves forward: " + created.getMzxid() + " -> " + set.getMzxid());

        Stat read = new Stat();
        assertArrayEquals(bytes("v1"), client.getData(top, false, read));
        assertEquals(set, read, "getData's stat equals setData's");
        assertEquals(set, client.exists(top, false));
        assertNull(client.exists(top + "/none", false), "exists of a missing node is null");

        client.create(top + "/a", null, OPEN, CreateMode.PERSISTENT);
        client.create(top + "/a/b", null, OPEN, CreateMode.PERSISTENT);
        Stat parent = new Stat();
        assertEquals(List.of("a"), client.getChildren(top, false, parent));
        assertEquals(1, parent.getNumChildren());
        assertEquals(2, client.getAllChildrenNumber(top), "all descendants");
        assertEquals(top, client.sync(top));

        client.delete(top + "/a/b", -1);
        client.delete(top + "/a", 0);
        assertEquals(List.of(), client.getChildren(top, false));
    }

    @Test
    void everyOperationHasAnAsynchronousForm() throws Exception {
        String top = subtrees.in(1, "async");
        VoleryClient.Created c = client.createAsync(top, bytes("a"), OPEN, CreateMode.PERSISTENT).get();
        assertEquals(top, c.path());
        assertEquals(0, c.stat().getVersion());
        VoleryClient.Created ttl = client.createAsync(top + "/t", null, OPEN, CreateMode.PERSISTENT_WITH_TTL, 30_000).get();
        assertEquals(top + "/t", ttl.path());

        Stat s = client.setDataAsync(top, bytes("bb"), 0).get();
        assertEquals(1, s.getVersion());
        VoleryClient.Data d = client.getDataAsync(top, false).get();
        assertArrayEquals(bytes("bb"), d.data());
        assertEquals(s, d.stat());
        assertEquals(s, client.existsAsync(top, false).get());
        assertNull(client.existsAsync(top + "/missing", false).get(), "exists of a missing node completes with null");
        VoleryClient.Children ch = client.getChildrenAsync(top, false).get();
        assertEquals(List.of("t"), ch.children());
        assertEquals(1, ch.stat().getNumChildren());
        assertEquals(1, client.getAllChildrenNumberAsync(top).get());
        assertEquals(top, client.syncAsync(top).get());

        VoleryClient.Acls acls = client.getACLAsync(top).get();
        assertEquals(OPEN, acls.acl());
        Stat afterAcl = client.setACLAsync(top, Ids.OPEN_ACL_UNSAFE, 0).get();
        assertEquals(1, afterAcl.getAversion(), "aversion after one setACL");
        client.setACLAsync(top, OPEN, 1).get();

        List<OpResult> results = client.multiAsync(List.of(Op.check(top, 1), Op.setData(top, bytes("m"), 1))).get();
        assertEquals(2, results.size());
        assertInstanceOf(OpResult.CheckResult.class, results.get(0));
        assertEquals(2, ((OpResult.SetDataResult) results.get(1)).getStat().getVersion());

        client.deleteAsync(top + "/t", -1).get();
        client.deleteAsync(top, 2).get();
        assertNull(client.exists(top, false));
        String e = client.create(subtrees.in(2, "eph"), null, OPEN, CreateMode.EPHEMERAL);
        assertEquals(List.of(e), client.getEphemeralsAsync(e).get());
        assertEquals(client.whoAmI(), client.whoAmIAsync().get(), "whoAmI, sync and async");
        client.addAuthInfoAsync("digest", bytes("async:pw")).get();
        assertTrue(client.whoAmIAsync().get().contains(new ClientInfo("digest", "async")),
                "the identity added asynchronously: " + client.whoAmI());
    }

    @Test
    void errorsAreZooKeepersKeeperExceptionsSyncAndAsync() throws Exception {
        String top = subtrees.in(2, "err");
        client.create(top, bytes("x"), OPEN, CreateMode.PERSISTENT);
        client.create(top + "/child", null, OPEN, CreateMode.PERSISTENT);
        String eph = client.create(top + "/eph", null, OPEN, CreateMode.EPHEMERAL);

        expect(KeeperException.Code.NONODE, top + "/none", () -> client.getData(top + "/none", false, null),
                client.getDataAsync(top + "/none", false));
        expect(KeeperException.Code.NODEEXISTS, top, () -> client.create(top, null, OPEN, CreateMode.PERSISTENT),
                client.createAsync(top, null, OPEN, CreateMode.PERSISTENT));
        expect(KeeperException.Code.BADVERSION, top, () -> client.setData(top, null, 7),
                client.setDataAsync(top, null, 7));
        expect(KeeperException.Code.NOTEMPTY, top, () -> client.delete(top, -1), client.deleteAsync(top, -1));
        expect(KeeperException.Code.NOCHILDRENFOREPHEMERALS, eph + "/x",
                () -> client.create(eph + "/x", null, OPEN, CreateMode.PERSISTENT),
                client.createAsync(eph + "/x", null, OPEN, CreateMode.PERSISTENT));
        expect(KeeperException.Code.NONODE, top + "/none/x",
                () -> client.create(top + "/none/x", null, OPEN, CreateMode.PERSISTENT),
                client.createAsync(top + "/none/x", null, OPEN, CreateMode.PERSISTENT));
        expect(KeeperException.Code.INVALIDACL, null, () -> client.create(top + "/noacl", null, List.of(), CreateMode.PERSISTENT),
                client.createAsync(top + "/noacl", null, List.of(), CreateMode.PERSISTENT));
        expect(KeeperException.Code.BADARGUMENTS, top + "/e", () -> client.create(top + "/e", null, OPEN,
                        CreateMode.PERSISTENT_WITH_TTL, null, -5L),
                null);
        assertThrows(IllegalArgumentException.class, () -> client.getData("no-slash", false, null),
                "an invalid path is refused before anything is sent");
        assertThrows(IllegalArgumentException.class, () -> client.multi(List.of(Op.getData(top), Op.delete(top, -1))),
                "reads and writes cannot be mixed in one multi");
    }

    /** The code, and the path ZooKeeper names in it, from the synchronous call and from the future. */
    private static void expect(KeeperException.Code code, String path, Executable sync, CompletableFuture<?> async) {
        try {
            sync.execute();
            fail("expected " + code + " from the synchronous call");
        } catch (IllegalArgumentException e) {
            if (code != KeeperException.Code.BADARGUMENTS) {
                throw e;
            }
            return; // the client's own TTL check: ZooKeeper's client refuses it before the server could
        } catch (KeeperException e) {
            assertEquals(code, e.code(), "synchronous call: " + e);
            assertEquals(path, e.getPath(), "path named by " + e);
        } catch (Throwable t) {
            fail("expected KeeperException " + code + ", got " + t, t);
        }
        if (async == null) {
            return;
        }
        ExecutionException e = assertThrows(ExecutionException.class, async::get, "asynchronous call must fail with " + code);
        KeeperException k = assertInstanceOf(KeeperException.class, e.getCause());
        assertEquals(code, k.code(), "asynchronous call: " + k);
    }

    @Test
    void multiAcrossPartitionsIsAllOrNothingWithPerOperationResults() throws Exception {
        String a = subtrees.in(1, "multiA");
        String b = subtrees.in(2, "multiB");
        List<OpResult> ok = client.multi(List.of(
                Op.create(a, bytes("a"), OPEN, CreateMode.PERSISTENT),
                Op.create(b, bytes("b"), OPEN, CreateMode.PERSISTENT),
                Op.create(b + "/s-", null, OPEN, CreateMode.PERSISTENT_SEQUENTIAL),
                Op.setData(a, bytes("a2"), 0)));
        assertEquals(a, ((OpResult.CreateResult) ok.get(0)).getPath());
        assertEquals(b, ((OpResult.CreateResult) ok.get(1)).getPath());
        assertEquals(b + "/s-0000000000", ((OpResult.CreateResult) ok.get(2)).getPath());
        assertEquals(1, ((OpResult.SetDataResult) ok.get(3)).getStat().getVersion());

        KeeperException failed = assertThrows(KeeperException.class, () -> client.multi(List.of(
                Op.setData(a, bytes("lost"), 1),
                Op.delete(b + "/s-0000000000", -1),
                Op.check(b, 99))));
        assertEquals(KeeperException.Code.BADVERSION, failed.code(), "the failing check's code");
        List<OpResult> results = failed.getResults();
        assertNotNull(results, "a failed multi carries every op's result");
        assertEquals(List.of(0, 0, KeeperException.Code.BADVERSION.intValue()),
                results.stream().map(r -> ((OpResult.ErrorResult) r).getErr()).toList(),
                "ops before the failure report 0 (rolled back), the failing one its code");
        assertArrayEquals(bytes("a2"), client.getData(a, false, null), "partition 1 applied nothing");
        assertNotNull(client.exists(b + "/s-0000000000", false), "partition 2 applied nothing");

        List<OpResult> reads = client.multi(List.of(Op.getData(a), Op.getChildren(b), Op.getData(b + "/none")));
        assertArrayEquals(bytes("a2"), ((OpResult.GetDataResult) reads.get(0)).getData());
        assertEquals(List.of("s-0000000000"), ((OpResult.GetChildrenResult) reads.get(1)).getChildren());
        assertEquals(KeeperException.Code.NONODE.intValue(), ((OpResult.ErrorResult) reads.get(2)).getErr(),
                "a multiRead reports each failed read alone");

        ExecutionException async = assertThrows(ExecutionException.class,
                () -> client.multiAsync(List.of(Op.create(a, null, OPEN, CreateMode.PERSISTENT))).get());
        assertEquals(KeeperException.Code.NODEEXISTS, ((KeeperException) async.getCause()).code());
    }

    @Test
    void aclsAreEnforcedAndDigestAuthenticationGrantsAccess() throws Exception {
        String top = subtrees.in(1, "acl");
        try (VoleryClient owner = VoleryClient.connect(cluster.config(), 30_000, e -> { });
             VoleryClient other = VoleryClient.connect(cluster.config(), 30_000, e -> { })) {
            owner.addAuthInfo("digest", bytes("alice:secret"));
            owner.create(top, bytes("private"), Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
            List<ACL> acl = owner.getACL(top, null);
            assertEquals(1, acl.size());
            assertEquals("digest", acl.get(0).getId().getScheme());
            assertTrue(acl.get(0).getId().getId().startsWith("alice:"), "the creator's digest id: " + acl);
            assertEquals(List.of(new ClientInfo("digest", "alice")),
                    owner.whoAmI().stream().filter(i -> i.getAuthScheme().equals("digest")).toList());

            KeeperException denied = assertThrows(KeeperException.class, () -> other.getData(top, false, null));
            assertEquals(KeeperException.Code.NOAUTH, denied.code());
            ExecutionException asyncDenied = assertThrows(ExecutionException.class,
                    () -> other.setDataAsync(top, null, -1).get());
            assertEquals(KeeperException.Code.NOAUTH, ((KeeperException) asyncDenied.getCause()).code());

            other.addAuthInfo("digest", bytes("alice:secret"));
            assertArrayEquals(bytes("private"), other.getData(top, false, null), "same identity, access granted");

            owner.setACL(top, List.of(new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE)), 0);
            assertThrows(KeeperException.NoAuthException.class, () -> owner.setData(top, null, -1),
                    "a read-only ACL refuses writes even to the creator");
            KeeperException bad = assertThrows(KeeperException.class, () -> owner.setACL(top,
                    List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", "malformed"))), -1));
            assertTrue(bad.code() == KeeperException.Code.INVALIDACL || bad.code() == KeeperException.Code.NOAUTH,
                    "a malformed digest id is refused: " + bad.code());
        }
    }
}
