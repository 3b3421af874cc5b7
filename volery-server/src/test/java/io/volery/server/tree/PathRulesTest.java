package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ZooKeeper's PathUtils rules, and which error each malformed path gets from which request. */
class PathRulesTest {

    private TreeFixture f;
    private long s;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        s = f.session();
        f.created(s, "/a", CreateMode.PERSISTENT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/a", "/a/b", "/.a", "/a.", "/a/..b", "/...", "/a b", "/\u00e9", "/\uf900", "/\uffef"})
    void acceptsWellFormedPaths(String path) {
        assertNull(PathRules.problem(path), () -> "PathUtils accepts " + path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "a/b", "/a/", "//", "/a//b", "/.", "/..", "/a/.", "/a/..", "/./a", "/a/../b",
        "/a\u0000", "/a\u0001", "/a\u001f", "/a\u007f", "/a\u009f", "/a\ud800", "/a\uf8ff", "/a\ufff0", "/a\uffff",
        "/\ud83d\ude00"})
    void rejectsMalformedPaths(String path) {
        assertEquals(true, PathRules.problem(path) != null, () -> "PathUtils rejects " + path.replace("\0", "\\0"));
    }

    @Test
    void problemNamesTheOffendingPosition() {
        assertEquals("empty node name specified @3", PathRules.problem("/a//b"));
        assertEquals("relative paths not allowed @3", PathRules.problem("/a/./b"));
        assertEquals("invalid character @2", PathRules.problem("/a\ud83d\ude00"));
        assertEquals("path must not end with / character", PathRules.problem("/a/"));
    }

    @Test
    void createLooksUpTheParentBeforeValidatingSoDoubleSlashIsNoNode() {
        expect(ErrorCode.NONODE, f.create(s, "/a//b", CreateMode.PERSISTENT), "/a//b: parent /a/ does not exist");
        expect(ErrorCode.NONODE, f.create(s, "/a/./b", CreateMode.PERSISTENT), "/a/./b: parent /a/. does not exist");
    }

    @Test
    void createOfTrailingSlashOrDotUnderAnExistingParentIsBadArguments() {
        expect(ErrorCode.BADARGUMENTS, f.create(s, "/a/", CreateMode.PERSISTENT), "/a/ fails validation");
        expect(ErrorCode.BADARGUMENTS, f.create(s, "/a/.", CreateMode.PERSISTENT), "/a/. fails validation");
        expect(ErrorCode.BADARGUMENTS, f.create(s, "/a/\ud83d\ude00", CreateMode.PERSISTENT),
                "characters outside the BMP are refused");
    }

    @Test
    void createWithoutSlashOrWithNulIsBadArguments() {
        expect(ErrorCode.BADARGUMENTS, f.create(s, "a", CreateMode.PERSISTENT), "a path needs a slash");
        expect(ErrorCode.BADARGUMENTS, f.create(s, "/a\u0000b", CreateMode.PERSISTENT), "NUL is refused first");
    }

    @Test
    void sequentialPathIsValidatedWithItsSuffix() {
        Result r = f.create(s, "/a/", CreateMode.PERSISTENT_SEQUENTIAL);
        expect(ErrorCode.OK, r, "/a/ + suffix is the valid /a/0000000000");
        assertEquals("/a/0000000000", r.reply(Reply.Created.class).path());
    }

    @Test
    void setDataValidatesThePathButReadsOnlyLookItUp() {
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.SetData(s, "/a/", new byte[0], -1)), "setData validates");
        expect(ErrorCode.NONODE, f.run(new Command.GetData(s, "/a/", false)), "getData only looks up");
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.Exists(s, "/a\u0000", false)), "exists refuses NUL");
        expect(ErrorCode.NONODE, f.run(new Command.Delete(s, "/a/", -1)), "delete only looks up");
    }

    @Test
    void rootAndTheZookeeperNodesCannotBeDeleted() {
        for (String p : new String[] {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
            expect(ErrorCode.BADARGUMENTS, f.run(new Command.Delete(s, p, -1)), "delete of special node " + p);
        }
        expect(ErrorCode.NODEEXISTS, f.create(s, "/", CreateMode.PERSISTENT), "create / finds it exists");
    }
}
