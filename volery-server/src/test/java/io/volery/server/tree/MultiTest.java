package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** multi is all-or-nothing with ZooKeeper's per-op results; multiRead answers each read on its own. */
class MultiTest {

    private TreeFixture f;
    private long s;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        s = f.session();
        f.created(s, "/n", CreateMode.PERSISTENT);
    }

    private List<ErrorCode> codes(Result r) {
        return r.reply(Reply.MultiResults.class).results().stream().map(Result::code).toList();
    }

    @Test
    void failedMultiAnswersOkForUndoneOpsThenTheErrorThenRuntimeInconsistency() {
        String before = f.dump();
        Result r = f.run(new Command.Multi(s, List.of(
                new Command.Create(s, "/m1", new byte[0], Acl.OPEN, CreateMode.PERSISTENT),
                new Command.Check(s, "/n", 7),
                new Command.Create(s, "/m2", new byte[0], Acl.OPEN, CreateMode.PERSISTENT))));
        assertEquals(ErrorCode.BADVERSION, r.code(), "the multi fails with the failing op's code");
        assertEquals(List.of(ErrorCode.OK, ErrorCode.BADVERSION, ErrorCode.RUNTIMEINCONSISTENCY), codes(r),
                "ZooKeeper 3.9.5 answers Err(0), Err(-103), Err(-2)");
        assertNull(f.stat("/m1"), "the create before the failure is undone");
        assertEquals(before, f.dump(), "a failed multi leaves no trace");
    }

    @Test
    void rollbackRestoresEverythingTheOpsChanged() {
        long watcher = f.session();
        f.run(new Command.GetData(watcher, "/n", true));
        f.created(s, "/n/old", CreateMode.PERSISTENT);
        String before = f.dump();
        Result r = f.run(new Command.Multi(s, List.of(
                new Command.SetData(s, "/n", TreeFixture.bytes("x"), -1),
                new Command.Delete(s, "/n/old", -1),
                new Command.Create(s, "/n/s", new byte[0], Acl.OPEN, CreateMode.EPHEMERAL_SEQUENTIAL),
                new Command.Create(s, "/n/c", new byte[0], Acl.OPEN, CreateMode.CONTAINER),
                new Command.Delete(s, "/nothing", -1))));
        assertEquals(ErrorCode.NONODE, r.code());
        assertEquals(before, f.dump(), "data, children, counters and ephemerals all restored");
        assertTrue(r.events().isEmpty(), "a failed multi fires no watch");
        expect(ErrorCode.OK, f.run(new Command.Tick()), "the undone container left no bookkeeping behind");
        assertEquals("/n/s0000000001", f.created(s, "/n/s", CreateMode.EPHEMERAL_SEQUENTIAL),
                "the undone sequential create did not use up a number");
    }

    @Test
    void successfulMultiSeesItsOwnEarlierOpsAndSharesOneZxid() {
        Result r = f.run(new Command.Multi(s, List.of(
                new Command.Create(s, "/a", new byte[0], Acl.OPEN, CreateMode.PERSISTENT),
                new Command.Create(s, "/a/b", new byte[0], Acl.OPEN, CreateMode.PERSISTENT),
                new Command.SetData(s, "/a/b", TreeFixture.bytes("v"), 0),
                new Command.Check(s, "/a/b", 1),
                new Command.Delete(s, "/n", 0))));
        expect(ErrorCode.OK, r, "every op succeeds in order");
        assertEquals(List.of(ErrorCode.OK, ErrorCode.OK, ErrorCode.OK, ErrorCode.OK, ErrorCode.OK), codes(r));
        assertEquals(f.zxid, f.stat("/a").czxid());
        assertEquals(f.zxid, f.stat("/a/b").mzxid());
        assertNull(f.stat("/n"));
    }

    @Test
    void firstOpFailingGivesNoOkResults() {
        Result r = f.run(new Command.Multi(s, List.of(new Command.Check(s, "/n", 7),
                new Command.Create(s, "/m2", new byte[0], Acl.OPEN, CreateMode.PERSISTENT))));
        assertEquals(List.of(ErrorCode.BADVERSION, ErrorCode.RUNTIMEINCONSISTENCY), codes(r));
    }

    @Test
    void multiReadAnswersEachReadOnItsOwn() {
        Result r = f.run(new Command.MultiRead(s, List.of(new Command.GetData(s, "/n", false),
                new Command.GetChildren(s, "/missing", false, false), new Command.GetChildren(s, "/", false, false))));
        expect(ErrorCode.OK, r, "multiRead itself succeeds");
        assertEquals(List.of(ErrorCode.OK, ErrorCode.NONODE, ErrorCode.OK), codes(r));
    }
}
