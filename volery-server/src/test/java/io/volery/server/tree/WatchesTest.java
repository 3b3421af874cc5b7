package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which watches a write fires (ZooKeeper's DataTree/WatchManager choices) and how they are (re)armed. */
class WatchesTest {

    private TreeFixture f;
    private long writer;
    private long w;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        writer = f.session();
        w = f.session();
        f.created(writer, "/p", CreateMode.PERSISTENT);
    }

    private WatchEvent ev(EventType type, String path) {
        return new WatchEvent(w, type, path, f.zxid);
    }

    /** Asserts the events of {@code r}, all for session w at the zxid of the command just run. */
    private void expectEvents(Result r, String why, Object... typeThenPath) {
        List<WatchEvent> expected = new java.util.ArrayList<>();
        for (int i = 0; i < typeThenPath.length; i += 2) {
            expected.add(ev((EventType) typeThenPath[i], (String) typeThenPath[i + 1]));
        }
        assertEquals(expected, r.events(), why);
    }

    @Test
    void existWatchOnMissingNodeFiresNodeCreatedOnce() {
        expect(ErrorCode.NONODE, f.run(new Command.Exists(w, "/p/a", true)), "exists on a missing node");
        expectEvents(f.create(writer, "/p/a", CreateMode.PERSISTENT), "exist watch", EventType.NODE_CREATED, "/p/a");
        f.run(new Command.Delete(writer, "/p/a", -1));
        assertEquals(List.of(), f.create(writer, "/p/a", CreateMode.PERSISTENT).events(), "one-shot: consumed");
    }

    @Test
    void deleteFiresNodesDataAndChildWatchersOnceAndParentsChildWatchers() {
        f.created(writer, "/p/a", CreateMode.PERSISTENT);
        f.run(new Command.GetData(w, "/p/a", true));
        f.run(new Command.GetChildren(w, "/p/a", true, false));
        f.run(new Command.GetChildren(w, "/p", true, false));
        expectEvents(f.run(new Command.Delete(writer, "/p/a", -1)),
                "NodeDeleted once for the node's data+child watches, NodeChildrenChanged for the parent",
                EventType.NODE_DELETED, "/p/a", EventType.NODE_CHILDREN_CHANGED, "/p");
    }

    @Test
    void setDataFiresDataWatchesNotChildWatches() {
        f.run(new Command.GetData(w, "/p", true));
        f.run(new Command.GetChildren(w, "/p", true, false));
        expectEvents(f.run(new Command.SetData(writer, "/p", new byte[1], -1)), "data watch only",
                EventType.NODE_DATA_CHANGED, "/p");
        expectEvents(f.create(writer, "/p/x", CreateMode.PERSISTENT), "child watch", EventType.NODE_CHILDREN_CHANGED, "/p");
        assertEquals(List.of(), f.run(new Command.SetAcl(writer, "/p", Acl.OPEN, -1)).events(), "setACL fires nothing");
    }

    @Test
    void eventsListSessionsInIdOrder() {
        long w2 = f.session();
        f.run(new Command.GetData(w2, "/p", true));
        f.run(new Command.GetData(w, "/p", true));
        Result r = f.run(new Command.SetData(writer, "/p", new byte[1], -1));
        assertEquals(List.of(w, w2), r.events().stream().map(WatchEvent::sessionId).toList());
    }

    @Test
    void persistentWatchStaysAndSeesItsNodeAndChildrenButNotGrandchildren() {
        f.run(new Command.AddWatch(w, "/p", AddWatchMode.PERSISTENT));
        expectEvents(f.create(writer, "/p/a", CreateMode.PERSISTENT), "child created",
                EventType.NODE_CHILDREN_CHANGED, "/p");
        expectEvents(f.create(writer, "/p/a/b", CreateMode.PERSISTENT), "grandchild: nothing");
        expectEvents(f.run(new Command.SetData(writer, "/p", new byte[1], -1)), "data", EventType.NODE_DATA_CHANGED, "/p");
        expectEvents(f.run(new Command.SetData(writer, "/p", new byte[2], -1)), "still there",
                EventType.NODE_DATA_CHANGED, "/p");
    }

    @Test
    void recursiveWatchSeesTheSubtreeButNoChildrenChanged() {
        f.run(new Command.AddWatch(w, "/p", AddWatchMode.PERSISTENT_RECURSIVE));
        expectEvents(f.create(writer, "/p/a", CreateMode.PERSISTENT), "child: NodeCreated, no NodeChildrenChanged",
                EventType.NODE_CREATED, "/p/a");
        expectEvents(f.create(writer, "/p/a/b", CreateMode.PERSISTENT), "grandchild", EventType.NODE_CREATED, "/p/a/b");
        expectEvents(f.run(new Command.SetData(writer, "/p/a/b", new byte[1], -1)), "data",
                EventType.NODE_DATA_CHANGED, "/p/a/b");
        expectEvents(f.run(new Command.Delete(writer, "/p/a/b", -1)), "delete", EventType.NODE_DELETED, "/p/a/b");
    }

    @Test
    void recursiveWatchDoesNotRevealNodesTheWatcherCannotRead() {
        f.run(new Command.AddWatch(w, "/p", AddWatchMode.PERSISTENT_RECURSIVE));
        f.run(new Command.AddAuth(writer, "digest", TreeFixture.bytes("writer:pw")));
        Result r = f.run(new Command.Create(writer, "/p/secret", new byte[0], Acl.CREATOR_ALL, CreateMode.PERSISTENT));
        assertEquals(List.of(), r.events());
    }

    @Test
    void removeAndCheckWatchesByType() {
        f.run(new Command.GetData(w, "/p", true));
        expect(ErrorCode.OK, f.run(new Command.CheckWatches(w, "/p", WatcherType.DATA)), "data watch present");
        expect(ErrorCode.NOWATCHER, f.run(new Command.CheckWatches(w, "/p", WatcherType.CHILDREN)), "no child watch");
        expect(ErrorCode.OK, f.run(new Command.RemoveWatches(w, "/p", WatcherType.ANY)), "removes the data watch");
        expect(ErrorCode.NOWATCHER, f.run(new Command.RemoveWatches(w, "/p", WatcherType.ANY)), "nothing left");
        assertEquals(List.of(), f.run(new Command.SetData(writer, "/p", new byte[1], -1)).events());
        f.run(new Command.AddWatch(w, "/p", AddWatchMode.PERSISTENT_RECURSIVE));
        expect(ErrorCode.NOWATCHER, f.run(new Command.RemoveWatches(w, "/p", WatcherType.PERSISTENT)), "not persistent");
        expect(ErrorCode.OK, f.run(new Command.RemoveWatches(w, "/p", WatcherType.PERSISTENT_RECURSIVE)), "recursive");
    }

    @Test
    void setWatchesFiresTheWatchesThatFiredSinceTheClientSetThemWhateverItsZxid() {
        // the session's watches stay registered while it is away; some fire and their events are lost
        f.created(writer, "/p/changed", CreateMode.PERSISTENT);
        f.created(writer, "/p/stale", CreateMode.PERSISTENT);
        f.created(writer, "/p/gone", CreateMode.PERSISTENT);
        for (String path : List.of("/p/changed", "/p/stale", "/p/gone")) {
            f.run(new Command.GetData(w, path, true));
        }
        f.run(new Command.Exists(w, "/p/new", true));
        f.run(new Command.GetChildren(w, "/p", true, false));
        f.run(new Command.GetChildren(w, "/", true, false));
        f.run(new Command.SetData(writer, "/p/changed", new byte[1], -1));
        f.run(new Command.Delete(writer, "/p/gone", -1)); // also fires the child watch on /p
        // The client's last zxid is above every change (a reply of another partition, whose zxids say nothing
        // of this one's changes): ZooKeeper's zxid rule would fire nothing.
        long above = f.zxid + 1_000_000;
        Result r = f.run(new Command.SetWatches(w, above, List.of("/p/changed", "/p/stale", "/p/gone"),
                List.of("/p/new"), List.of("/p", "/"), List.of(), List.of()));
        long n = WatchEvent.NO_ZXID;
        assertEquals(List.of(
                new WatchEvent(w, EventType.NODE_DATA_CHANGED, "/p/changed", n),
                new WatchEvent(w, EventType.NODE_DELETED, "/p/gone", n),
                new WatchEvent(w, EventType.NODE_CHILDREN_CHANGED, "/p", n)), r.events(),
                "the fired ones fire again; the ones still set (/p/stale, the exist watch on /p/new) owe nothing");
        expectEvents(f.create(writer, "/p/new", CreateMode.PERSISTENT),
                "the exist watch is still set; the child watch on /p fired above and is not set again",
                EventType.NODE_CREATED, "/p/new");
        expectEvents(f.run(new Command.SetData(writer, "/p/stale", new byte[1], -1)), "still set",
                EventType.NODE_DATA_CHANGED, "/p/stale");
    }

    @Test
    void theRootsWatchesFollowTheRegistryToo() {
        // the root is read in its owner under both partitionings, which re-arms its watches (ADR 080)
        f.run(new Command.GetChildren(w, "/", true, false));
        f.run(new Command.GetData(w, "/", true));
        long seen = f.zxid;
        f.created(writer, "/q", CreateMode.PERSISTENT);
        long later = f.zxid;
        assertEquals(List.of(new WatchEvent(w, EventType.NODE_CHILDREN_CHANGED, "/", WatchEvent.NO_ZXID)),
                f.run(new Command.SetWatches(w, later, List.of("/"), List.of(), List.of("/"), List.of(), List.of())).events(),
                "the child watch fired at the create: whatever the client's zxid, its event may be lost");
        expectEvents(f.run(new Command.SetData(writer, "/", new byte[1], -1)), "the data watch was still set: set once",
                EventType.NODE_DATA_CHANGED, "/");
        f.run(new Command.GetChildren(w, "/", true, false));
        assertEquals(List.of(), f.run(new Command.SetWatches(w, seen, List.of(), List.of(), List.of("/"), List.of(),
                List.of())).events(), "still registered: nothing owed, though pzxid moved after the client's older zxid");
        expectEvents(f.run(new Command.Delete(writer, "/q", -1)), "set once", EventType.NODE_CHILDREN_CHANGED, "/");
    }

    @Test
    void manySessionsFiringAndClosingKeepTheWatchBookkeepingConsistent() {
        List<Long> watchers = new java.util.ArrayList<>();
        for (int i = 0; i < 7; i++) {
            long s = f.session();
            watchers.add(s);
            f.run(new Command.GetData(s, "/p", true));
            if (i % 2 == 0) {
                f.run(new Command.AddWatch(s, "/p", AddWatchMode.PERSISTENT));
            }
        }
        assertEquals(7, f.run(new Command.SetData(writer, "/p", new byte[1], -1)).events().size(), "all seven hear it");
        for (long s : watchers) {
            f.run(new Command.CloseSession(s));
            assertEquals(null, f.tree.inconsistency(), "after closing session " + s);
        }
        assertEquals(List.of(), f.run(new Command.SetData(writer, "/p", new byte[2], -1)).events());
    }

    @Test
    void closingASessionDropsItsWatches() {
        f.run(new Command.GetData(w, "/p", true));
        f.run(new Command.AddWatch(w, "/", AddWatchMode.PERSISTENT_RECURSIVE));
        f.run(new Command.CloseSession(w));
        assertEquals(List.of(), f.run(new Command.SetData(writer, "/p", new byte[1], -1)).events());
    }
}
