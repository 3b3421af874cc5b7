package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.volery.server.backtoback.EmbeddedZooKeeper;
import io.volery.server.backtoback.ZnodeTreeDriver;
import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.jute.Record;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.admin.ZooKeeperAdmin;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the real ZooKeeper 3.9.5 Java client sees, operation by operation and error by error (the
 * "must" rows of COMPATIBILITY.md). Every test runs against a real ZooKeeper 3.9.5 as well as against
 * two Volery clusters of 2 partitions x 3 replicas, one partitioned by subtree and one by hash: the expectations are checked on the oracle too, so a
 * test that misstates ZooKeeper fails there. Paths that must land on different Volery partitions are
 * picked with Volery's subtree {@link PathPartitioner} (under hash, a node's children scatter anyway).
 */
class ZooKeeperClientCompatibilityTest {

    private static final String SUPER = EmbeddedZooKeeper.SUPER_CREDENTIALS;
    private static final AtomicInteger NAMES = new AtomicInteger();

    @TempDir
    static Path dir;
    private static EmbeddedZooKeeper zookeeper;
    private static VoleryCluster volery;
    private static VoleryCluster voleryHash;
    private static PathPartitioner partitioner;

    /** A server under test: its name and connect string. */
    record Server(String name, String connectString) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new EmbeddedZooKeeper(dir);
        volery = new VoleryCluster(2, 3, 0, 2000, o -> o.withSuperDigest(ZnodeTreeDriver.digest(SUPER)));
        partitioner = new PathPartitioner(volery.partitions());
        voleryHash = new VoleryCluster(2, 3, 0, 2000, o -> o.withSuperDigest(ZnodeTreeDriver.digest(SUPER))
                .withPartitioning(VoleryConfig.Partitioning.HASH));
    }

    @AfterAll
    static void stop() throws Exception {
        if (volery != null) {
            volery.close();
        }
        if (voleryHash != null) {
            voleryHash.close();
        }
        if (zookeeper != null) {
            zookeeper.stop();
        }
    }

    static Stream<Server> servers() {
        return Stream.of(new Server("ZooKeeper 3.9.5", zookeeper.connectString()),
                new Server("Volery 2x3", volery.connectString()),
                new Server("Volery 2x3 hash", voleryHash.connectString()));
    }

    /** A fresh top-level name owned by Volery partition {@code partitionIndex} (0 or 1). */
    private static String topLevel(String stem, int partitionIndex) {
        int wanted = partitioner.partitions()[partitionIndex];
        while (true) {
            String name = "/" + stem + "-" + NAMES.incrementAndGet();
            if (partitioner.ownerOf(name) == wanted) {
                return name;
            }
        }
    }

    private static final java.util.Set<EventType> SERVER_EVENTS = java.util.EnumSet.of(EventType.NodeCreated,
            EventType.NodeDeleted, EventType.NodeDataChanged, EventType.NodeChildrenChanged);

    /** A session whose watcher queues every node event and, after connecting, every state change. */
    static final class Session implements AutoCloseable {
        final ZooKeeper zk;
        final LinkedBlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<KeeperState> states = new LinkedBlockingQueue<>();
        /** What the server answered the connect with: SyncConnected, or Expired for an unknown session. */
        volatile KeeperState firstState;

        Session(Server server) throws Exception {
            this(server, 0, null);
        }

        Session(Server server, long sessionId, byte[] password) throws Exception {
            CountDownLatch connected = new CountDownLatch(1);
            Watcher watcher = e -> {
                if (e.getType() == EventType.None) {
                    states.add(e.getState());
                    if (e.getState() == KeeperState.SyncConnected || e.getState() == KeeperState.Expired) {
                        if (firstState == null) {
                            firstState = e.getState();
                        }
                        connected.countDown();
                    }
                } else if (SERVER_EVENTS.contains(e.getType())) {
                    // the *WatchRemoved events are the client's own, not the server's
                    events.add(e);
                }
            };
            zk = password == null ? new ZooKeeper(server.connectString(), 10_000, watcher)
                    : new ZooKeeper(server.connectString(), 10_000, watcher, sessionId, password);
            assertTrue(connected.await(20, TimeUnit.SECONDS), server + ": no connection within 20 s");
            states.clear();
        }

        /** The next node event, or a failure naming what was expected. */
        String nextEvent(String expected) throws InterruptedException {
            WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
            assertNotNull(e, "expected the event " + expected + " within 10 s, got none");
            return e.getType() + " " + e.getPath();
        }

        /** No further event arrives once a later round trip is answered. */
        void assertNoMoreEvents() throws Exception {
            zk.exists("/", false);
            WatchedEvent e = events.poll();
            assertNull(e, "expected no further event, got " + (e == null ? "" : e.getType() + " " + e.getPath()));
        }

        @Override
        public void close() throws InterruptedException {
            zk.close();
        }
    }

    private static int code(KeeperException.Code expected, ThrowingRunnable r) throws Exception {
        try {
            r.run();
        } catch (KeeperException e) {
            assertEquals(expected, e.code(), "error code");
            return e.code().intValue();
        }
        fail("expected the error " + expected + ", but the operation succeeded");
        return 0;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- create ---------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void createInEveryModeReturnsZooKeepersNamesAndStats(Server server) throws Exception {
        try (Session s = new Session(server)) {
            String base = topLevel("modes", 0);
            Stat baseStat = new Stat();
            assertEquals(base, s.zk.create(base, bytes("abc"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, baseStat));
            assertEquals(baseStat.getCzxid(), baseStat.getMzxid(), "a new node's czxid and mzxid");
            assertEquals(baseStat.getCzxid(), baseStat.getPzxid(), "a new node's pzxid");
            assertEquals(List.of(0, 0, 0, 3, 0, 0L), List.of(baseStat.getVersion(), baseStat.getCversion(),
                    baseStat.getAversion(), baseStat.getDataLength(), baseStat.getNumChildren(),
                    baseStat.getEphemeralOwner()), "version, cversion, aversion, dataLength, numChildren, owner");

            Stat eph = new Stat();
            s.zk.create(base + "/e", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL, eph);
            assertEquals(s.zk.getSessionId(), eph.getEphemeralOwner(), "an ephemeral's owner is its session");
            assertEquals(0, eph.getDataLength(), "null data has length 0");

            assertEquals(base + "/s-0000000001",
                    s.zk.create(base + "/s-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
            assertEquals(base + "/es-0000000002",
                    s.zk.create(base + "/es-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL));
            Stat container = new Stat();
            s.zk.create(base + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER, container);
            assertEquals(0L, container.getEphemeralOwner(), "a container's ephemeralOwner");
            Stat ttl = new Stat();
            assertEquals(base + "/ttl-0000000004", s.zk.create(base + "/ttl-", null, Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, ttl, 60_000));
            assertEquals(0L, ttl.getEphemeralOwner(), "a TTL node's ephemeralOwner");
            s.zk.create(base + "/t", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_WITH_TTL, ttl, 60_000);

            Stat parent = s.zk.exists(base, false);
            assertEquals(6, parent.getNumChildren(), "children of " + base);
            assertEquals(6, parent.getCversion(), "cversion counts child changes");
            assertEquals(ttl.getCzxid(), parent.getPzxid(), "pzxid is the zxid of the last child change");
            assertEquals(baseStat.getMzxid(), parent.getMzxid(), "creating children leaves mzxid alone");

            code(Code.NODEEXISTS, () -> s.zk.create(base + "/e", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            code(Code.NONODE, () -> s.zk.create(base + "/missing/x", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            code(Code.NOCHILDRENFOREPHEMERALS,
                    () -> s.zk.create(base + "/e/x", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            code(Code.INVALIDACL, () -> s.zk.create(base + "/x", null, new ArrayList<>(), CreateMode.PERSISTENT));
            code(Code.INVALIDACL, () -> s.zk.create(base + "/x", null, Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void sequentialSuffixesCountChildCreationsNotCversion(Server server) throws Exception {
        try (Session s = new Session(server)) {
            String base = topLevel("seq", 1);
            s.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            s.zk.create(base + "/a", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            s.zk.delete(base + "/a", -1);
            s.zk.create(base + "/b", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals(3, s.zk.exists(base, false).getCversion(), "cversion after create, delete, create");
            assertEquals(base + "/n-0000000002",
                    s.zk.create(base + "/n-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));
        }
    }

    /** Paths the Java client would refuse, sent as raw create requests, get ZooKeeper's answers. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void invalidPathsGetZooKeepersErrors(Server server) throws Exception {
        try (Session s = new Session(server); RawClient raw = new RawClient(server)) {
            String base = topLevel("paths", 0);
            s.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals(Code.BADARGUMENTS.intValue(), raw.create(base + "/"), "create " + base + "/");
            assertEquals(Code.BADARGUMENTS.intValue(), raw.create(base + "/."), "create " + base + "/.");
            assertEquals(Code.BADARGUMENTS.intValue(), raw.create(base + "/.."), "create " + base + "/..");
            assertEquals(Code.NONODE.intValue(), raw.create(base + "//x"), "create " + base + "//x");
            assertEquals(Code.NONODE.intValue(), raw.create(base + "/./x"), "create " + base + "/./x");
            assertEquals(Code.BADARGUMENTS.intValue(), raw.create("relative"), "create relative");
            assertEquals(Code.BADARGUMENTS.intValue(), raw.create(base + "/\ud83d\ude00"), "a character outside the BMP");
            assertEquals(0, raw.create(base + "/ok"), "a valid raw create");
        }
    }

    /** A ZooKeeper client that sends requests as built, without the client's own path checks. */
    static final class RawClient extends ZooKeeper {
        RawClient(Server server) throws Exception {
            super(server.connectString(), 10_000, e -> {
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!getState().isConnected()) {
                assertTrue(System.nanoTime() < deadline, server + ": raw client not connected within 20 s");
                Thread.sleep(10);
            }
        }

        int create(String path) throws InterruptedException {
            CreateRequest request = new CreateRequest(path, new byte[0], Ids.OPEN_ACL_UNSAFE, 0);
            return submit(ZooDefs.OpCode.create2, request, new Create2Response());
        }

        int submit(int type, Record request, Record response) throws InterruptedException {
            RequestHeader h = new RequestHeader();
            h.setType(type);
            ReplyHeader r = cnxn.submitRequest(h, request, response, null);
            return r.getErr();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void unknownOperationsAnswerUnimplemented(Server server) throws Exception {
        try (RawClient raw = new RawClient(server)) {
            assertEquals(Code.UNIMPLEMENTED.intValue(), raw.submit(999, null, null), "operation type 999");
        }
    }

    // ---- delete, data, watches ------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void deleteChecksVersionBeforeChildren(Server server) throws Exception {
        try (Session s = new Session(server)) {
            String base = topLevel("del", 1);
            s.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            s.zk.create(base + "/child", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            code(Code.BADVERSION, () -> s.zk.delete(base, 5));
            code(Code.NOTEMPTY, () -> s.zk.delete(base, 0));
            code(Code.NOTEMPTY, () -> s.zk.delete(base, -1));
            code(Code.NONODE, () -> s.zk.delete(base + "/nothing", -1));
            code(Code.BADVERSION, () -> s.zk.delete(base + "/child", 1));
            s.zk.delete(base + "/child", 0);
            s.zk.delete(base, 0);
            assertNull(s.zk.exists(base, false), base + " after its delete");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void dataAndChildWatchesFireOnceWithZooKeepersEventTypes(Server server) throws Exception {
        try (Session watcher = new Session(server); Session writer = new Session(server)) {
            String base = topLevel("watch", 0);
            assertNull(watcher.zk.exists(base, true), "exists of a missing node");
            writer.zk.create(base, bytes("v0"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals("NodeCreated " + base, watcher.nextEvent("NodeCreated"));

            Stat stat = new Stat();
            assertArrayEquals(bytes("v0"), watcher.zk.getData(base, true, stat));
            assertEquals(0, stat.getVersion());
            assertEquals(List.of(), watcher.zk.getChildren(base, true));
            Stat set = writer.zk.setData(base, bytes("v1!"), 0);
            assertEquals(1, set.getVersion(), "version after one setData");
            assertEquals(3, set.getDataLength());
            assertNotEquals(set.getCzxid(), set.getMzxid(), "mzxid moves on setData");
            assertEquals("NodeDataChanged " + base, watcher.nextEvent("NodeDataChanged"));
            code(Code.BADVERSION, () -> writer.zk.setData(base, bytes("x"), 0));
            code(Code.NONODE, () -> writer.zk.setData(base + "/none", bytes("x"), -1));
            writer.zk.setData(base, bytes("v2"), -1);
            writer.zk.create(base + "/k", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals("NodeChildrenChanged " + base, watcher.nextEvent("NodeChildrenChanged"));
            watcher.assertNoMoreEvents();

            Stat children = new Stat();
            assertEquals(List.of("k"), watcher.zk.getChildren(base, true, children));
            assertEquals(1, children.getNumChildren());
            assertEquals(1, children.getCversion());
            watcher.zk.getData(base + "/k", true, null);
            writer.zk.delete(base + "/k", -1);
            List<String> got = List.of(watcher.nextEvent("NodeDeleted"), watcher.nextEvent("NodeChildrenChanged"));
            assertEquals(List.of("NodeDeleted " + base + "/k", "NodeChildrenChanged " + base), got);
            watcher.assertNoMoreEvents();
            writer.zk.sync(base);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void persistentAndRecursiveWatchesStay(Server server) throws Exception {
        try (Session watcher = new Session(server); Session writer = new Session(server)) {
            String base = topLevel("pw", 1);
            String tree = topLevel("rw", 0);
            watcher.zk.addWatch(base, AddWatchMode.PERSISTENT);
            watcher.zk.addWatch(tree, AddWatchMode.PERSISTENT_RECURSIVE);
            writer.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            writer.zk.setData(base, bytes("1"), -1);
            writer.zk.setData(base, bytes("2"), -1);
            writer.zk.create(base + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals("NodeCreated " + base, watcher.nextEvent("NodeCreated"));
            assertEquals("NodeDataChanged " + base, watcher.nextEvent("NodeDataChanged"));
            assertEquals("NodeDataChanged " + base, watcher.nextEvent("NodeDataChanged"));
            assertEquals("NodeChildrenChanged " + base, watcher.nextEvent("NodeChildrenChanged"));
            writer.zk.create(tree, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            writer.zk.create(tree + "/a", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            writer.zk.create(tree + "/a/b", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            writer.zk.setData(tree + "/a/b", bytes("x"), -1);
            writer.zk.delete(tree + "/a/b", -1);
            assertEquals(List.of("NodeCreated " + tree, "NodeCreated " + tree + "/a", "NodeCreated " + tree + "/a/b",
                    "NodeDataChanged " + tree + "/a/b", "NodeDeleted " + tree + "/a/b"),
                    List.of(watcher.nextEvent("1"), watcher.nextEvent("2"), watcher.nextEvent("3"),
                            watcher.nextEvent("4"), watcher.nextEvent("5")), "recursive watch events");
            watcher.zk.removeAllWatches(tree, Watcher.WatcherType.Any, false);
            writer.zk.delete(tree + "/a", -1);
            watcher.assertNoMoreEvents();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void checkAndRemoveWatchesAnswerNoWatcherWhenThereIsNone(Server server) throws Exception {
        try (Session s = new Session(server); Session writer = new Session(server)) {
            String base = topLevel("rmw", 1);
            s.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            code(Code.NOWATCHER, () -> s.zk.removeAllWatches(base, Watcher.WatcherType.Data, false));
            Watcher mine = e -> { };
            s.zk.getData(base, mine, null);
            s.zk.getChildren(base, true);
            // one of two watchers on the node goes: the client asks with checkWatches
            s.zk.exists(base, true);
            s.zk.removeWatches(base, mine, Watcher.WatcherType.Data, false);
            code(Code.NOWATCHER, () -> s.zk.removeWatches(base, mine, Watcher.WatcherType.Data, false));
            s.zk.removeAllWatches(base, Watcher.WatcherType.Children, false);
            code(Code.NOWATCHER, () -> s.zk.removeAllWatches(base, Watcher.WatcherType.Children, false));
            writer.zk.create(base + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            writer.zk.setData(base, bytes("x"), -1);
            assertEquals("NodeDataChanged " + base, s.nextEvent("the remaining default data watch"));
            s.assertNoMoreEvents();
        }
    }

    // ---- ACLs and auth --------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aclsAversionDigestAndSuperAuth(Server server) throws Exception {
        try (Session owner = new Session(server); Session stranger = new Session(server);
             Session operator = new Session(server)) {
            String base = topLevel("acl", 0);
            owner.zk.addAuthInfo("digest", bytes("alice:secret"));
            owner.zk.create(base, bytes("d"), Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT);
            Stat stat = new Stat();
            List<ACL> acl = owner.zk.getACL(base, stat);
            assertEquals(1, acl.size());
            assertEquals("digest", acl.get(0).getId().getScheme());
            assertTrue(acl.get(0).getId().getId().startsWith("alice:"), "the creator's digest id, got " + acl);
            assertEquals(Perms.ALL, acl.get(0).getPerms());
            assertEquals(0, stat.getAversion());

            code(Code.NOAUTH, () -> stranger.zk.getData(base, false, null));
            code(Code.NOAUTH, () -> stranger.zk.exists(base, false));
            code(Code.NOAUTH, () -> stranger.zk.setData(base, bytes("x"), -1));
            code(Code.NOAUTH, () -> stranger.zk.getACL(base, new Stat()));
            code(Code.NOAUTH, () -> stranger.zk.create(base + "/x", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));

            List<ACL> readable = new ArrayList<>(List.of(new ACL(Perms.READ, Ids.ANYONE_ID_UNSAFE),
                    new ACL(Perms.ALL, new Id("digest", acl.get(0).getId().getId()))));
            code(Code.BADVERSION, () -> owner.zk.setACL(base, readable, 3));
            Stat after = owner.zk.setACL(base, readable, 0);
            assertEquals(1, after.getAversion(), "aversion after one setACL");
            assertArrayEquals(bytes("d"), stranger.zk.getData(base, false, null));
            // READ without ADMIN: digest ids come back with the password hash hidden
            List<ACL> seen = stranger.zk.getACL(base, new Stat());
            assertEquals("alice:x", seen.get(1).getId().getId(), "a digest id seen without ADMIN");
            code(Code.INVALIDACL, () -> owner.zk.setACL(base, new ArrayList<>(), -1));
            code(Code.INVALIDACL, () -> owner.zk.setACL(base,
                    new ArrayList<>(List.of(new ACL(Perms.ALL, new Id("nosuch", "x")))), -1));

            stranger.zk.addAuthInfo("digest", bytes("alice:secret"));
            stranger.zk.setData(base, bytes("e"), 0);
            operator.zk.addAuthInfo("digest", bytes(SUPER));
            operator.zk.setACL(base, Ids.READ_ACL_UNSAFE, -1);
            code(Code.NOAUTH, () -> owner.zk.setData(base, bytes("x"), -1));
            operator.zk.delete(base, -1);

            List<ClientInfo> who = owner.zk.whoAmI();
            List<String> ids = new ArrayList<>();
            for (ClientInfo c : who) {
                ids.add(c.getAuthScheme() + ":" + c.getUser());
            }
            assertEquals(List.of("digest:alice", "ip:127.0.0.1"), ids, "whoAmI after a digest login");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void failedAuthEndsTheSession(Server server) throws Exception {
        try (Session s = new Session(server)) {
            s.zk.addAuthInfo("nosuchscheme", bytes("x"));
            KeeperState state = s.states.poll(10, TimeUnit.SECONDS);
            assertEquals(KeeperState.AuthFailed, state, "the state after auth with an unknown scheme");
        }
    }

    // ---- multi ----------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void multiAcrossPartitionsIsAllOrNothingWithPerOpResults(Server server) throws Exception {
        try (Session s = new Session(server)) {
            String a = topLevel("ma", 0);
            String b = topLevel("mb", 1);
            s.zk.create(a, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            s.zk.create(b, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            try {
                s.zk.multi(List.of(
                        Op.create(a + "/x", bytes("1"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                        Op.setData(b, bytes("2"), -1),
                        Op.check(b, 7),
                        Op.create(a + "/y", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
                fail("a multi with a failing check succeeded");
            } catch (KeeperException e) {
                assertEquals(Code.BADVERSION, e.code(), "the multi's error");
                List<Integer> codes = e.getResults().stream().map(r -> ((OpResult.ErrorResult) r).getErr()).toList();
                assertEquals(List.of(0, 0, Code.BADVERSION.intValue(), Code.RUNTIMEINCONSISTENCY.intValue()), codes,
                        "per-op results: OK before the failure, its error, RuntimeInconsistency after");
            }
            assertNull(s.zk.exists(a + "/x", false), "the failed multi's create was rolled back");
            assertEquals(0, s.zk.exists(b, false).getVersion(), "the failed multi's setData was rolled back");

            List<OpResult> results = s.zk.multi(List.of(
                    Op.create(a + "/x", bytes("1"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.create(b + "/s-", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL),
                    Op.create(a + "/t", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_WITH_TTL, 60_000),
                    Op.create(b + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER),
                    Op.setData(b, bytes("2"), 0),
                    Op.check(a, 0),
                    Op.delete(a + "/x", 0)));
            assertEquals(a + "/x", ((OpResult.CreateResult) results.get(0)).getPath());
            assertEquals(b + "/s-0000000000", ((OpResult.CreateResult) results.get(1)).getPath());
            assertEquals(a + "/t", ((OpResult.CreateResult) results.get(2)).getPath());
            assertNotNull(((OpResult.CreateResult) results.get(2)).getStat(), "a TTL create in a multi has a Stat");
            assertEquals(b + "/c", ((OpResult.CreateResult) results.get(3)).getPath());
            assertEquals(1, ((OpResult.SetDataResult) results.get(4)).getStat().getVersion());
            assertTrue(results.get(5) instanceof OpResult.CheckResult, "check result, got " + results.get(5));
            assertTrue(results.get(6) instanceof OpResult.DeleteResult, "delete result, got " + results.get(6));

            List<OpResult> reads = s.zk.multi(List.of(Op.getChildren(a), Op.getData(b), Op.getData(a + "/none")));
            assertEquals(List.of("t"), ((OpResult.GetChildrenResult) reads.get(0)).getChildren());
            assertArrayEquals(bytes("2"), ((OpResult.GetDataResult) reads.get(1)).getData());
            assertEquals(Code.NONODE.intValue(), ((OpResult.ErrorResult) reads.get(2)).getErr());
        }
    }

    /**
     * A multi's events, and a top-level create's, come in operation order, a node's own before its
     * parent's, even when the operations ran in different partitions; two changes of one node in one
     * multi are two events for a persistent watch.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void eventsOfWritesSpanningPartitionsComeInZooKeepersOrder(Server server) throws Exception {
        try (Session watcher = new Session(server); Session writer = new Session(server)) {
            String a = topLevel("oa", 0);
            String b = topLevel("ob", 1);
            writer.zk.create(a, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            writer.zk.create(b, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            watcher.zk.addWatch(a, AddWatchMode.PERSISTENT);
            watcher.zk.addWatch(b, AddWatchMode.PERSISTENT);
            writer.zk.multi(List.of(Op.setData(b, bytes("1"), -1), Op.setData(a, bytes("1"), -1),
                    Op.setData(b, bytes("2"), -1), Op.create(a + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.create(b + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
            List<String> got = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                got.add(watcher.nextEvent("event " + i + " of the multi after " + got));
            }
            assertEquals(List.of("NodeDataChanged " + b, "NodeDataChanged " + a, "NodeDataChanged " + b,
                    "NodeChildrenChanged " + a, "NodeChildrenChanged " + b), got, "events of the multi");
            watcher.assertNoMoreEvents();

            String top = topLevel("otop", 1);
            watcher.zk.getChildren("/", true);
            watcher.zk.exists(top, true);
            writer.zk.create(top, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals(List.of("NodeCreated " + top, "NodeChildrenChanged /"),
                    List.of(watcher.nextEvent("NodeCreated"), watcher.nextEvent("NodeChildrenChanged")),
                    "events of a top-level create");
            watcher.zk.getChildren("/", true);
            watcher.zk.exists(top, true);
            writer.zk.delete(top, -1);
            assertEquals(List.of("NodeDeleted " + top, "NodeChildrenChanged /"),
                    List.of(watcher.nextEvent("NodeDeleted"), watcher.nextEvent("NodeChildrenChanged")),
                    "events of a top-level delete");
        }
    }

    // ---- sessions -------------------------------------------------------------------------------

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void ephemeralsCountsAndSessionClose(Server server) throws Exception {
        try (Session watcher = new Session(server)) {
            String a = topLevel("ea", 0);
            String b = topLevel("eb", 1);
            watcher.zk.create(a, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            watcher.zk.create(b, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            int before = watcher.zk.getAllChildrenNumber("/");
            Session owner = new Session(server);
            owner.zk.create(a + "/e1", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            owner.zk.create(b + "/e2", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            String top = owner.zk.create(topLevel("etop", 1), null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            owner.zk.create(a + "/p", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            owner.zk.create(a + "/p/q", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            // the order is ZooKeeper's hash order, which the back-to-back test compares
            assertEquals(List.of(a + "/e1", b + "/e2", top).stream().sorted().toList(),
                    owner.zk.getEphemerals("/").stream().sorted().toList(),
                    "getEphemerals(\"/\") lists the session's ephemerals on every partition");
            assertEquals(List.of(a + "/e1"), owner.zk.getEphemerals(a));
            assertEquals(List.of(), watcher.zk.getEphemerals("/"), "another session's ephemerals");
            assertEquals(before + 5, watcher.zk.getAllChildrenNumber("/"), "getAllChildrenNumber of /");
            assertEquals(3, watcher.zk.getAllChildrenNumber(a), "getAllChildrenNumber of " + a);
            assertEquals(0, watcher.zk.getAllChildrenNumber(a + "/p/q"));
            code(Code.NONODE, () -> watcher.zk.getAllChildrenNumber(a + "/none"));

            watcher.zk.exists(a + "/e1", true);
            watcher.zk.exists(b + "/e2", true);
            long id = owner.zk.getSessionId();
            byte[] password = owner.zk.getSessionPasswd();
            owner.close();
            List<String> got = new ArrayList<>(List.of(watcher.nextEvent("NodeDeleted"), watcher.nextEvent("NodeDeleted")));
            got.sort(null);
            assertEquals(List.of("NodeDeleted " + a + "/e1", "NodeDeleted " + b + "/e2"), got, "events of the close");
            assertNull(watcher.zk.exists(top, false), "a top-level ephemeral after its session closed");
            assertEquals(before + 2, watcher.zk.getAllChildrenNumber("/"));

            try (Session revived = new Session(server, id, password)) {
                assertEquals(KeeperState.Expired, revived.firstState, "reconnecting with a closed session's id");
                code(Code.SESSIONEXPIRED, () -> revived.zk.exists("/", false));
            }
        }
    }

    /**
     * A session that closes hears, before the close is answered, the events its own watches fire as its
     * ephemerals (on both partitions) go: ZooKeeper fires them before it drops the session's watches.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aClosingSessionHearsItsOwnEphemeralsGo(Server server) throws Exception {
        String a = topLevel("oa", 0);
        String b = topLevel("ob", 1);
        Session owner = new Session(server);
        owner.zk.create(a, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        owner.zk.create(b, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        owner.zk.create(a + "/e1", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        owner.zk.create(b + "/e2", null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        owner.zk.exists(a + "/e1", true);
        owner.zk.exists(b + "/e2", true);
        owner.zk.getChildren(a, true);
        owner.close();
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(owner.nextEvent("an event of the session's own close (so far " + got + ")"));
        }
        got.sort(null);
        assertEquals(List.of("NodeChildrenChanged " + a, "NodeDeleted " + a + "/e1", "NodeDeleted " + b + "/e2"), got,
                "events the closing session's own watches fired");
        assertNull(owner.events.poll(300, TimeUnit.MILLISECONDS), "an event beyond the three");
    }

    /**
     * A session that falls silent expires; its ephemerals, spread over both partitions, are deleted in
     * the order getEphemerals listed them, and a watcher hears of them in that order.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anExpiredSessionsEphemeralsGoInZooKeepersOrder(Server server) throws Exception {
        String first = server.connectString().split(",")[0];
        InetSocketAddress target = new InetSocketAddress("127.0.0.1", Integer.parseInt(first.substring(first.indexOf(':') + 1)));
        try (Session watcher = new Session(server); CuttableProxy proxy = new CuttableProxy(target)) {
            String a = topLevel("xa", 0);
            String b = topLevel("xb", 1);
            watcher.zk.create(a, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            watcher.zk.create(b, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper owner = new ZooKeeper(proxy.connectString(), 4_000, e -> {
                if (e.getState() == KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            try {
                assertTrue(connected.await(20, TimeUnit.SECONDS), "owner connected through the proxy");
                for (int i = 0; i < 4; i++) {
                    owner.create(a + "/e" + i, null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                    owner.create(b + "/e" + i, null, Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                }
                List<String> listed = owner.getEphemerals("/");
                assertEquals(8, listed.size(), "ephemerals listed: " + listed);
                for (String p : listed) {
                    assertNotNull(watcher.zk.exists(p, true), p);
                }
                proxy.cut();
                List<String> got = new ArrayList<>();
                for (int i = 0; i < listed.size(); i++) {
                    WatchedEvent e = watcher.events.poll(20, TimeUnit.SECONDS);
                    assertNotNull(e, "deletion events after the session expired, so far " + got);
                    assertEquals(EventType.NodeDeleted, e.getType(), "event type after " + got);
                    got.add(e.getPath());
                }
                assertEquals(listed, got, "ephemerals deleted on expiry in getEphemerals' order");
            } finally {
                owner.close();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void watchesAreSetAgainOnReconnect(Server server) throws Exception {
        try (Session watcher = new Session(server); Session writer = new Session(server)) {
            String base = topLevel("rec", 0);
            String other = topLevel("rec", 1);
            writer.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            watcher.zk.getData(base, true, null);
            watcher.zk.exists(other, true);
            watcher.zk.getChildren(base, true);
            watcher.zk.addWatch(other, AddWatchMode.PERSISTENT_RECURSIVE);
            watcher.zk.getTestable().closeSocket();
            // most likely while the client is away (it waits up to a second before it reconnects): the
            // watches it sets again must then fire for changes after the last zxid it saw
            writer.zk.setData(base, bytes("x"), -1);
            writer.zk.create(other, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            KeeperState first = watcher.states.poll(10, TimeUnit.SECONDS);
            assertEquals(KeeperState.Disconnected, first, "state after the socket closed");
            assertEquals(KeeperState.SyncConnected, watcher.states.poll(20, TimeUnit.SECONDS), "state after reconnect");
            assertEquals("NodeDataChanged " + base, watcher.nextEvent("NodeDataChanged"));
            // the exist watch (and, if the create came after the reconnect, the recursive watch) fires;
            // the client tells its default watcher once
            assertEquals("NodeCreated " + other, watcher.nextEvent("NodeCreated"));
            writer.zk.create(other + "/r", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals("NodeCreated " + other + "/r", watcher.nextEvent("the recursive watch, set again"));
            writer.zk.create(base + "/c", null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            assertEquals("NodeChildrenChanged " + base, watcher.nextEvent("NodeChildrenChanged"));
            watcher.assertNoMoreEvents();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void everyReconnectReportsTheChangesItMissed(Server server) throws Exception {
        try (Session watcher = new Session(server); Session writer = new Session(server)) {
            String base = topLevel("again", 1);
            writer.zk.create(base, null, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            for (int round = 1; round <= 3; round++) {
                watcher.zk.getData(base, true, null);
                watcher.zk.getTestable().closeSocket();
                writer.zk.setData(base, bytes("round " + round), -1);
                assertEquals(KeeperState.Disconnected, watcher.states.poll(10, TimeUnit.SECONDS), "round " + round);
                assertEquals(KeeperState.SyncConnected, watcher.states.poll(20, TimeUnit.SECONDS), "round " + round);
                assertEquals("NodeDataChanged " + base, watcher.nextEvent("NodeDataChanged in round " + round));
            }
            watcher.assertNoMoreEvents();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void reconfigAnswersAsWhenDisabled(Server server) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeperAdmin admin = new ZooKeeperAdmin(server.connectString(), 10_000, e -> {
            if (e.getState() == KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            assertTrue(connected.await(20, TimeUnit.SECONDS), "admin client connected");
            code(Code.RECONFIGDISABLED, () -> admin.reconfigure(List.of(), List.of("server.9"), null, -1, new Stat()));
        } finally {
            admin.close();
        }
    }
}
