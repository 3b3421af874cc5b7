package io.volery.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** snapshot/restore keeps everything (tree, sessions, watches, counters) and the digest with it. */
class SnapshotTest {

    static ZnodeTree copyOf(ZnodeTree tree) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        tree.snapshot(out);
        ZnodeTree copy = new ZnodeTree(tree.config());
        copy.restore(new ByteArrayInputStream(out.toByteArray()));
        return copy;
    }

    @Test
    void restoredTreeHasTheSameDigestAndBehavesTheSame() throws IOException {
        TreeFixture f = new TreeFixture();
        long s = f.session();
        long w = f.session();
        f.run(new Command.AddAuth(s, "digest", TreeFixture.bytes("u:p")));
        f.created(s, "/a", CreateMode.PERSISTENT);
        f.created(s, "/a/e", CreateMode.EPHEMERAL_SEQUENTIAL);
        f.created(s, "/c", CreateMode.CONTAINER);
        f.run(new Command.Create(s, "/t", new byte[] {1, 2}, Acl.CREATOR_ALL, CreateMode.PERSISTENT_WITH_TTL, 500));
        f.run(new Command.GetData(w, "/a", true));
        f.run(new Command.AddWatch(w, "/", AddWatchMode.PERSISTENT_RECURSIVE));

        ZnodeTree copy = copyOf(f.tree);
        assertEquals(f.tree.digest(), copy.digest(), "restore reproduces the canonical state");

        Command next = new Command.SetData(s, "/a", new byte[] {9}, -1);
        Result original = f.tree.apply(next, 500, 2_000_000);
        Result restored = copy.apply(next, 500, 2_000_000);
        assertEquals(original.events(), restored.events(), "watches survived the round trip");
        assertEquals(original.code(), restored.code());
        Command close = new Command.CloseSession(s);
        assertEquals(f.tree.apply(close, 501, 2_000_001).events(), copy.apply(close, 501, 2_000_001).events(),
                "ephemerals are tied to their session after restore");
        assertEquals(f.tree.digest(), copy.digest());
        Command tick = new Command.Tick();
        f.tree.apply(tick, 502, 9_000_000);
        copy.apply(tick, 502, 9_000_000);
        assertEquals(f.tree.paths(), copy.paths(), "TTL and container bookkeeping survived");
        assertEquals(List.of("/", "/a", "/c", "/zookeeper", "/zookeeper/config", "/zookeeper/quota"), copy.paths());
    }

    @Test
    void digestChangesWithState() {
        TreeFixture f = new TreeFixture();
        String empty = f.tree.digest();
        long s = f.session();
        assertNotEquals(empty, f.tree.digest(), "a session is state");
        String before = f.tree.digest();
        f.created(s, "/x", CreateMode.PERSISTENT);
        assertNotEquals(before, f.tree.digest());
    }

    @Test
    void restoreRefusesForeignBytes() {
        ZnodeTree tree = new ZnodeTree(TreeConfig.defaults());
        IOException e = assertThrows(IOException.class, () -> tree.restore(new ByteArrayInputStream(new byte[16])));
        assertEquals("not a Volery tree snapshot (bad magic number)", e.getMessage());
    }
}
