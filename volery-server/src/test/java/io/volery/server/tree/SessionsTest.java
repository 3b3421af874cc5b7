package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sessions: negotiated timeouts, deterministic expiry from ordered time, ephemerals and SessionExpired. */
class SessionsTest {

    private TreeFixture f;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
    }

    @Test
    void timeoutIsNegotiatedWithinTwoAndTwentyTicks() {
        Reply.Session low = f.run(new Command.CreateSession(1, 10, List.of())).reply(Reply.Session.class);
        Reply.Session high = f.run(new Command.CreateSession(2, 1_000_000, List.of())).reply(Reply.Session.class);
        Reply.Session mid = f.run(new Command.CreateSession(3, 10_000, List.of())).reply(Reply.Session.class);
        assertEquals(4_000, low.timeoutMs(), "2 x tickTime 2000");
        assertEquals(40_000, high.timeoutMs(), "20 x tickTime 2000");
        assertEquals(10_000, mid.timeoutMs());
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.CreateSession(3, 10_000, List.of())), "id in use");
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.CreateSession(0, 10_000, List.of())), "id 0 is reserved");
    }

    @Test
    void operationsOfUnknownOrClosedSessionsAreSessionExpired() {
        expect(ErrorCode.SESSIONEXPIRED, f.create(99, "/x", CreateMode.PERSISTENT), "never opened");
        expect(ErrorCode.SESSIONEXPIRED, f.create(0, "/x", CreateMode.PERSISTENT), "0 is no session");
        long s = f.session();
        f.run(new Command.CloseSession(s));
        expect(ErrorCode.SESSIONEXPIRED, f.run(new Command.GetData(s, "/", false)), "closed");
    }

    @Test
    void expiryHappensOnTheFirstTickPastTheDeadlineAndDeletesEphemeralsFiringWatches() {
        long s = f.session(10_000);
        long watcher = f.session(40_000);
        f.created(s, "/e", CreateMode.EPHEMERAL);
        f.run(new Command.Exists(watcher, "/e", true));
        f.run(new Command.GetChildren(watcher, "/", true, false));
        long deadline = f.tree.sessions().get(s).deadline();
        f.time = deadline;
        assertEquals(List.of(), f.run(new Command.Tick()).events(), "at the deadline the session still lives");
        f.time = deadline + 1;
        Result r = f.run(new Command.Tick());
        assertEquals(List.of(new WatchEvent(watcher, EventType.NODE_DELETED, "/e", f.zxid),
                new WatchEvent(watcher, EventType.NODE_CHILDREN_CHANGED, "/", f.zxid)), r.events());
        assertNull(f.stat("/e"));
        expect(ErrorCode.SESSIONEXPIRED, f.run(new Command.GetData(s, "/", false)), "expired");
    }

    @Test
    void aClosingSessionHearsWhatItsOwnWatchesFireAndAnExpiringOneDoesNot() {
        long owner = f.session();
        f.created(owner, "/own", CreateMode.PERSISTENT);
        f.created(owner, "/own/e", CreateMode.EPHEMERAL);
        f.run(new Command.Exists(owner, "/own/e", true));
        f.run(new Command.GetChildren(owner, "/own", true, false));
        // ZooKeeper 3.9.5 sends a closing session the events of its own watches before the close's reply
        assertEquals(List.of(new WatchEvent(owner, EventType.NODE_DELETED, "/own/e", f.zxid + 1),
                new WatchEvent(owner, EventType.NODE_CHILDREN_CHANGED, "/own", f.zxid + 1)),
                f.run(new Command.CloseSession(owner)).events());

        long expiring = f.session(10_000);
        f.created(expiring, "/own/x", CreateMode.EPHEMERAL);
        f.run(new Command.Exists(expiring, "/own/x", true));
        f.time = f.tree.sessions().get(expiring).deadline() + 1;
        assertEquals(List.of(), f.run(new Command.Tick()).events(), "an expired session's own watches");
        assertNull(f.stat("/own/x"));
    }

    @Test
    void closingDeletesEphemeralsInTheOrderZooKeepersHashSetCopyListsThem() {
        // ZooKeeper 3.9.5 (back-to-back seed 76) deleted these, created in this order, as
        // a0000000003, b0000000006, b0000000004: a HashSet's bucket order, not creation order
        long owner = f.session();
        long watcher = f.session();
        f.created(owner, "/b2b-76", CreateMode.PERSISTENT);
        for (String name : new String[] {"/b2b-76/a0000000003", "/b2b-76/b0000000004", "/b2b-76/b0000000006"}) {
            f.created(owner, name, CreateMode.EPHEMERAL);
            f.run(new Command.Exists(watcher, name, true));
        }
        List<String> deleted = f.run(new Command.CloseSession(owner)).events().stream().map(WatchEvent::path).toList();
        assertEquals(List.of("/b2b-76/a0000000003", "/b2b-76/b0000000006", "/b2b-76/b0000000004"), deleted);
    }

    @Test
    void writesThroughAServerTheSessionLeftAreSessionMoved() {
        Result opened = f.run(new Command.Via(1, new Command.CreateSession(77, 30_000, List.of())));
        expect(ErrorCode.OK, opened, "session opened through server 1");
        expect(ErrorCode.OK, f.run(new Command.Via(1, new Command.Create(77, "/a", new byte[0], Acl.OPEN,
                CreateMode.PERSISTENT))), "write through its server");
        expect(ErrorCode.OK, f.run(new Command.AttachSession(77, 2)), "the client reconnects through server 2");
        expect(ErrorCode.SESSIONMOVED, f.run(new Command.Via(1, new Command.SetData(77, "/a", new byte[0], -1))),
                "a write still arriving through server 1");
        expect(ErrorCode.SESSIONMOVED, f.run(new Command.Via(1, new Command.Multi(77, List.of(
                new Command.Check(77, "/a", -1))))), "a multi too");
        expect(ErrorCode.OK, f.run(new Command.Via(1, new Command.GetData(77, "/a", false))),
                "ZooKeeper checks the owner only for writes");
        expect(ErrorCode.OK, f.run(new Command.Via(2, new Command.SetData(77, "/a", new byte[0], -1))),
                "writes through the new server");
        expect(ErrorCode.OK, f.run(new Command.Via(1, new Command.CloseSession(77))), "closeSession is exempt");
    }

    @Test
    void anyRequestAndTouchesMoveTheDeadline() {
        long s = f.session(10_000);
        f.time += 8_000;
        f.run(new Command.Exists(s, "/", false));
        assertEquals(f.time + 10_000, f.tree.sessions().get(s).deadline(), "a request touches its session");
        f.time += 8_000;
        f.run(new Command.TouchSessions(List.of(s, 12345L)));
        assertEquals(f.time + 10_000, f.tree.sessions().get(s).deadline(), "a batched touch too; unknown ids ignored");
        f.time += 9_000;
        f.run(new Command.Tick());
        expect(ErrorCode.OK, f.run(new Command.Exists(s, "/", false)), "still alive");
    }

    @Test
    void closeDeletesEphemeralsAndGetEphemeralsFiltersByPrefix() {
        long s = f.session();
        f.created(s, "/a", CreateMode.PERSISTENT);
        f.created(s, "/a/e1", CreateMode.EPHEMERAL);
        f.created(s, "/b", CreateMode.EPHEMERAL);
        assertEquals(java.util.Set.of("/a/e1", "/b"),
                java.util.Set.copyOf(f.run(new Command.GetEphemerals(s, "/")).reply(Reply.Paths.class).paths()));
        assertEquals(List.of("/a/e1"), f.run(new Command.GetEphemerals(s, "/a")).reply(Reply.Paths.class).paths());
        f.run(new Command.CloseSession(s));
        assertEquals(List.of("a", "zookeeper"), f.tree.children("/"));
        assertEquals(List.of(), f.tree.children("/a"));
    }
}
