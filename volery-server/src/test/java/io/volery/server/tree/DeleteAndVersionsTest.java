package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Delete and the version checks of delete, setData, check and setACL. */
class DeleteAndVersionsTest {

    private TreeFixture f;
    private long s;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        s = f.session();
        f.created(s, "/n", CreateMode.PERSISTENT);
        f.created(s, "/n/c", CreateMode.PERSISTENT);
    }

    @Test
    void badVersionWinsOverNotEmpty() {
        expect(ErrorCode.BADVERSION, f.run(new Command.Delete(s, "/n", 5)), "ZooKeeper checks the version first");
        expect(ErrorCode.NOTEMPTY, f.run(new Command.Delete(s, "/n", 0)), "right version, but a child");
        expect(ErrorCode.NOTEMPTY, f.run(new Command.Delete(s, "/n", -1)), "any version, but a child");
    }

    @Test
    void deleteRemovesTheNodeWhenVersionMatchesOrIsMinusOne() {
        f.run(new Command.SetData(s, "/n/c", new byte[1], -1));
        expect(ErrorCode.BADVERSION, f.run(new Command.Delete(s, "/n/c", 0)), "version moved to 1");
        expect(ErrorCode.OK, f.run(new Command.Delete(s, "/n/c", 1)), "matching version");
        assertNull(f.stat("/n/c"));
        expect(ErrorCode.NONODE, f.run(new Command.Delete(s, "/n/c", -1)), "gone");
    }

    @Test
    void setDataAndCheckCompareTheDataVersion() {
        expect(ErrorCode.BADVERSION, f.run(new Command.SetData(s, "/n", new byte[0], 3)), "version is 0");
        expect(ErrorCode.OK, f.run(new Command.SetData(s, "/n", new byte[0], 0)), "version 0 matches");
        expect(ErrorCode.OK, f.run(new Command.Check(s, "/n", 1)), "version is now 1");
        expect(ErrorCode.BADVERSION, f.run(new Command.Check(s, "/n", 0)), "check against old version");
        expect(ErrorCode.NONODE, f.run(new Command.Check(s, "/m", -1)), "check of a missing node");
        assertEquals(1, f.stat("/n").version());
    }
}
