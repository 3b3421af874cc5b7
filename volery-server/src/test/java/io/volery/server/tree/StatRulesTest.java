package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How each write moves the Stat fields (ZooKeeper's DataTree update rules). */
class StatRulesTest {

    private TreeFixture f;
    private long s;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        s = f.session();
    }

    @Test
    void createSetsAllZxidsAndTimesToTheCommandsOwn() {
        f.time = 5_000;
        f.createWithData(s, "/n", "xy");
        Stat st = f.stat("/n");
        assertEquals(new Stat(f.zxid, f.zxid, 5_000, 5_000, 0, 0, 0, 0, 2, 0, f.zxid), st);
    }

    @Test
    void setDataMovesMzxidMtimeAndVersionOnly() {
        f.createWithData(s, "/n", "a");
        long czxid = f.zxid;
        f.time += 10;
        Result r = f.run(new Command.SetData(s, "/n", TreeFixture.bytes("bcd"), 0));
        Stat st = r.reply(Reply.StatReply.class).stat();
        assertEquals(czxid, st.czxid());
        assertEquals(f.zxid, st.mzxid());
        assertEquals(czxid, st.pzxid(), "pzxid follows children only");
        assertEquals(f.time, st.mtime());
        assertEquals(1, st.version());
        assertEquals(3, st.dataLength());
    }

    @Test
    void childCreateAndDeleteEachCountInCversionAndMovePzxid() {
        f.created(s, "/p", CreateMode.PERSISTENT);
        f.created(s, "/p/a", CreateMode.PERSISTENT);
        assertEquals(1, f.stat("/p").cversion());
        assertEquals(f.zxid, f.stat("/p").pzxid());
        assertEquals(f.stat("/p").czxid(), f.stat("/p").mzxid(), "a child change is not a data change");
        f.run(new Command.Delete(s, "/p/a", -1));
        assertEquals(2, f.stat("/p").cversion());
        assertEquals(f.zxid, f.stat("/p").pzxid());
        assertEquals(0, f.stat("/p").numChildren());
    }

    @Test
    void nullDataStaysNullAndCountsAsLengthZero() {
        expect(ErrorCode.OK, f.run(new Command.Create(s, "/n", null, Acl.OPEN, CreateMode.PERSISTENT)), "null data");
        Reply.Data d = f.run(new Command.GetData(s, "/n", false)).reply(Reply.Data.class);
        assertEquals(null, d.data(), "ZooKeeper hands back null, not an empty array");
        assertEquals(0, d.stat().dataLength());
    }

    @Test
    void setAclMovesAversionOnly() {
        f.created(s, "/n", CreateMode.PERSISTENT);
        Stat before = f.stat("/n");
        Result r = f.run(new Command.SetAcl(s, "/n", Acl.OPEN, 0));
        Stat after = r.reply(Reply.StatReply.class).stat();
        assertEquals(1, after.aversion());
        assertEquals(before.mzxid(), after.mzxid());
        assertEquals(before.version(), after.version());
        expect(ErrorCode.BADVERSION, f.run(new Command.SetAcl(s, "/n", Acl.OPEN, 0)), "aversion is now 1");
    }

    @Test
    void builtInNodesLookAsInZooKeeper() {
        assertEquals(-1, f.stat("/").cversion(), "root: one built-in child, no creations");
        assertEquals(1, f.stat("/").numChildren());
        assertEquals(-2, f.stat("/zookeeper").cversion());
        assertEquals(2, f.tree.children("/zookeeper").size());
        assertEquals(-1, f.stat("/zookeeper/config").aversion());
    }

    @Test
    void getChildren2ReturnsSortedNamesAndStat() {
        f.created(s, "/p", CreateMode.PERSISTENT);
        f.created(s, "/p/b", CreateMode.PERSISTENT);
        f.created(s, "/p/a", CreateMode.PERSISTENT);
        Reply.Children c = f.run(new Command.GetChildren(s, "/p", false, true)).reply(Reply.Children.class);
        assertEquals(java.util.List.of("a", "b"), c.children());
        assertEquals(2, c.stat().numChildren());
        assertEquals(null, f.run(new Command.GetChildren(s, "/p", false, false)).reply(Reply.Children.class).stat());
    }

    @Test
    void getAllChildrenNumberCountsAllDescendants() {
        f.created(s, "/p", CreateMode.PERSISTENT);
        f.created(s, "/p/a", CreateMode.PERSISTENT);
        f.created(s, "/p/a/b", CreateMode.PERSISTENT);
        assertEquals(2, f.run(new Command.GetAllChildrenNumber(s, "/p")).reply(Reply.Count.class).count());
        assertEquals(6, f.run(new Command.GetAllChildrenNumber(s, "/")).reply(Reply.Count.class).count(),
                "/p, /p/a, /p/a/b and the three built-in /zookeeper nodes");
    }
}
