package io.volery.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import static java.nio.charset.StandardCharsets.UTF_8;
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

    /**
     * /zookeeper/config shows what the node publishes (ADR 097), not replicated state: the digest and the snapshot
     * leave it out, and a tree restored from a snapshot shows its own node's configuration again.
     */
    @Test
    void theEnsembleConfigIsTheNodesOwnNotReplicatedState() throws IOException {
        EnsembleConfig mine = new EnsembleConfig();
        mine.publish(List.of(new EnsembleConfig.Member(1, "10.0.0.1", 7001, "0.0.0.0", 2181),
                new EnsembleConfig.Member(2, "10.0.0.2", 7001, "10.0.0.2", 2181)));
        TreeFixture published = new TreeFixture();
        published.tree.setEnsembleConfig(mine);
        TreeFixture plain = new TreeFixture();
        long s = published.session();
        assertEquals(s, plain.session());
        published.created(s, "/a", CreateMode.PERSISTENT);
        plain.created(s, "/a", CreateMode.PERSISTENT);
        Reply.Data shown = config(published, s);
        assertEquals("server.1=10.0.0.1:7001:2181:participant;0.0.0.0:2181\n"
                + "server.2=10.0.0.2:7001:2181:participant;10.0.0.2:2181\nversion=0", new String(shown.data(), UTF_8));
        assertEquals(-1, shown.stat().version(), "as ZooKeeper writes its configuration");
        assertEquals(0, shown.stat().mzxid());
        assertEquals(0, config(plain, s).data().length);
        assertEquals(plain.tree.digest(), published.tree.digest(), "the configuration is not replicated state");

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        published.tree.snapshot(out);
        EnsembleConfig theirs = new EnsembleConfig();
        theirs.publish(List.of(new EnsembleConfig.Member(3, "10.0.0.3", 7003, "10.0.0.3", 2183)));
        TreeFixture restored = new TreeFixture();
        restored.tree.setEnsembleConfig(theirs);
        restored.run(new Command.Tick()); // shows it before the restore too
        restored.tree.restore(new ByteArrayInputStream(out.toByteArray()));
        assertEquals("server.3=10.0.0.3:7003:2183:participant;10.0.0.3:2183\nversion=0",
                new String(config(restored, s).data(), UTF_8), "its own node's configuration, not the snapshot's");
        TreeFixture none = new TreeFixture();
        none.tree.restore(new ByteArrayInputStream(out.toByteArray()));
        assertEquals(0, config(none, s).data().length, "a snapshot carries no configuration");
        assertEquals(published.tree.digest(), restored.tree.digest());
    }

    /** /zookeeper/config as session {@code s} reads it. */
    private static Reply.Data config(TreeFixture f, long s) {
        return f.run(new Command.GetData(s, "/zookeeper/config", false)).reply(Reply.Data.class);
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
