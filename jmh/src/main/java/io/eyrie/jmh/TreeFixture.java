package io.eyrie.jmh;

import io.volery.server.tree.Acl;
import io.volery.server.tree.Command;
import io.volery.server.tree.CreateMode;
import io.volery.server.tree.Result;
import io.volery.server.tree.TreeConfig;
import io.volery.server.tree.TreeImage;
import io.volery.server.tree.ZnodeTree;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A znode tree laid out like volery-bench's: {@code znodes} leaves under {@code /bench-0}, each
 * holding {@code bytes} of data, and one open session. It hands out increasing zxids, as the
 * delivery order would.
 */
public final class TreeFixture {
    /** The one session every benchmark command comes from. */
    public static final long SESSION = 0x1_0000_0001L;
    public static final String SUBTREE = "/bench-0";
    /** Constant ordered time: sessions never expire because no time passes. */
    private static final long NOW = 1_000_000L;

    private final ZnodeTree tree;
    private final String[] paths;
    private long zxid;

    public TreeFixture(int znodes, int bytes) {
        this(znodes, bytes, false);
    }

    /**
     * @param quota whether {@link #SUBTREE} has a quota (hard limits far above what the benchmarks reach) that the
     *              tree keeps and enforces (ADR 072), as with {@code setquota -N -B} and {@code enforceQuota = true}
     */
    public TreeFixture(int znodes, int bytes, boolean quota) {
        tree = new ZnodeTree(TreeConfig.defaults().withQuotaEnforcement(quota));
        requireOk(apply(new Command.CreateSession(SESSION, 30_000, List.of())), "createSession");
        requireOk(apply(new Command.Create(SESSION, SUBTREE, new byte[0], Acl.OPEN, CreateMode.PERSISTENT)), "create " + SUBTREE);
        byte[] data = JuteFrames.payload(bytes);
        paths = new String[znodes];
        for (int i = 0; i < znodes; i++) {
            paths[i] = SUBTREE + "/n-" + i;
            requireOk(apply(new Command.Create(SESSION, paths[i], data, Acl.OPEN, CreateMode.PERSISTENT)), "create " + paths[i]);
        }
        if (quota) {
            String q = "/zookeeper/quota" + SUBTREE;
            requireOk(apply(new Command.Create(SESSION, q, new byte[0], Acl.OPEN, CreateMode.PERSISTENT)), "create " + q);
            byte[] limits = "count=-1,bytes=-1=;byteHardLimit=1000000000000;countHardLimit=1000000000"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            requireOk(apply(new Command.Create(SESSION, q + "/zookeeper_limits", limits, Acl.OPEN, CreateMode.PERSISTENT)), "limits");
            byte[] stats = "count=0,bytes=0".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            requireOk(apply(new Command.Create(SESSION, q + "/zookeeper_stats", stats, Acl.OPEN, CreateMode.PERSISTENT)), "stats");
        }
    }

    /** Makes the tree keep its changes for {@link #capture()}, as a replica with checkpoints does. */
    public void enableCaptures() {
        tree.enableCaptures();
    }

    /** What a checkpoint does on the executor now: {@link ZnodeTree#capture()}. */
    public TreeImage capture() {
        return tree.capture();
    }

    /** What a checkpoint did on the executor before images: the canonical form into memory. */
    public byte[] canonicalForm() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            tree.snapshot(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public Result apply(Command c) {
        return tree.apply(c, ++zxid, NOW);
    }

    public String path(int i) {
        return paths[i % paths.length];
    }

    public int znodes() {
        return paths.length;
    }

    public long lastZxid() {
        return zxid;
    }

    /** Set-up and benchmark commands must succeed, or the benchmark would time an error path. */
    public static Result requireOk(Result r, String what) {
        if (!r.isOk()) {
            throw new IllegalStateException(what + " answered " + r.code() + ", expected OK");
        }
        return r;
    }
}
