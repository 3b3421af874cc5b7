package io.volery.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** A tree plus an ordered clock: each command gets the next zxid and the current time. */
final class TreeFixture {
    final ZnodeTree tree;
    long zxid = 100;
    long time = 1_000_000;
    private long nextSession = 0x1000;

    TreeFixture() {
        this(TreeConfig.defaults());
    }

    TreeFixture(TreeConfig config) {
        tree = new ZnodeTree(config);
    }

    Result run(Command c) {
        return tree.apply(c, ++zxid, time);
    }

    long session() {
        return session(30_000);
    }

    long session(int timeoutMs) {
        long id = nextSession++;
        Result r = run(new Command.CreateSession(id, timeoutMs, List.of(new Id("ip", "127.0.0.1"))));
        expect(ErrorCode.OK, r, "a new session id opens a session");
        return id;
    }

    Result create(long s, String path, CreateMode mode) {
        return run(new Command.Create(s, path, bytes(""), Acl.OPEN, mode));
    }

    String created(long s, String path, CreateMode mode) {
        Result r = create(s, path, mode);
        expect(ErrorCode.OK, r, "create " + path + " " + mode);
        return r.reply(Reply.Created.class).path();
    }

    Result createWithData(long s, String path, String data) {
        return run(new Command.Create(s, path, bytes(data), Acl.OPEN, CreateMode.PERSISTENT));
    }

    Stat stat(String path) {
        return tree.stat(path);
    }

    /** The tree as text: every node with its stat and data, and every session's ephemerals. */
    String dump() {
        StringBuilder b = new StringBuilder();
        for (String p : tree.paths()) {
            b.append(p).append(' ').append(tree.stat(p)).append(' ')
                    .append(java.util.Arrays.toString(tree.data(p))).append('\n');
        }
        for (SessionTable.Session s : tree.sessions().all()) {
            b.append(Long.toHexString(s.id())).append(' ').append(s.ephemerals()).append('\n');
        }
        return b.toString();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static void expect(ErrorCode expected, Result actual, String rule) {
        assertEquals(expected, actual.code(), () -> rule + ": expected " + expected + " but got " + actual.code()
                + " (" + actual.reply() + ")");
    }
}
