package io.eyrie.jmh;

import io.volery.server.frontend.JuteTranslator;
import io.volery.server.frontend.ZkCodec;
import io.volery.server.frontend.ZkRequest;
import io.volery.server.tree.Acl;
import io.volery.server.tree.Command;
import io.volery.server.tree.CreateMode;
import io.volery.server.tree.Result;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * A partition replica's state machine: {@code ZnodeTree.apply} for the benchmark's operations on a
 * tree of 1000 znodes, and the whole replica-side path of one setData (decode the delivered frame,
 * translate, apply, build and encode the reply). With {@code captures} the tree also keeps its
 * changes for checkpoint captures (what that costs a write), with a capture per iteration. With {@code quota}
 * the znodes are under a quota that the tree keeps and enforces (what ZooKeeper's quota bookkeeping costs a write).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ZnodeTreeBench {

    @Param({"100", "1000", "10000"})
    public int bytes;

    /** Whether the tree keeps its changes for checkpoint captures (a replica with durable storage does). */
    @Param({"false", "true"})
    public boolean captures;

    /** Whether the znodes are under a quota the tree keeps and enforces (ADR 072). */
    @Param({"false", "true"})
    public boolean quota;

    private TreeFixture tree;
    private Command.SetData[] setData;
    private Command.GetData[] getData;
    private byte[][] setDataFrames;
    private byte[] data;
    private int next;
    private long pairs;

    @Setup
    public void setUp() {
        tree = new TreeFixture(1000, bytes, quota);
        if (captures) {
            tree.enableCaptures();
        }
        data = JuteFrames.payload(bytes);
        int n = tree.znodes();
        setData = new Command.SetData[n];
        getData = new Command.GetData[n];
        setDataFrames = new byte[n][];
        for (int i = 0; i < n; i++) {
            setData[i] = new Command.SetData(TreeFixture.SESSION, tree.path(i), data, -1);
            getData[i] = new Command.GetData(TreeFixture.SESSION, tree.path(i), false);
            setDataFrames[i] = JuteFrames.setData(i + 1, tree.path(i), data);
        }
    }

    /**
     * A checkpoint per iteration, written at once: it hands the iteration's changes to the mirror,
     * as the checkpoint writer would, so they do not pile up from one iteration to the next.
     */
    @TearDown(Level.Iteration)
    public void checkpoint() throws java.io.IOException {
        if (captures) {
            tree.capture().writeTo(java.io.OutputStream.nullOutputStream());
        }
    }

    private int nextIndex() {
        int i = next;
        next = i + 1 == setData.length ? 0 : i + 1;
        return i;
    }

    @Benchmark
    public Result setData() {
        return tree.apply(setData[nextIndex()]);
    }

    @Benchmark
    public Result getData() {
        return tree.apply(getData[nextIndex()]);
    }

    /** A create and the delete of the same fresh znode, as volery-bench's create/delete pairs. */
    @Benchmark
    public Result createDeletePair() {
        String path = TreeFixture.SUBTREE + "/pair-" + pairs++;
        TreeFixture.requireOk(tree.apply(new Command.Create(TreeFixture.SESSION, path, data, Acl.OPEN, CreateMode.PERSISTENT)), "create");
        return tree.apply(new Command.Delete(TreeFixture.SESSION, path, -1));
    }

    /** Everything a replica does for one delivered setData frame, up to the reply bytes. */
    @Benchmark
    public byte[] replicaSetData() throws Exception {
        ZkRequest r = ZkCodec.decodeRequest(setDataFrames[nextIndex()]);
        Result result = tree.apply(JuteTranslator.toCommand(TreeFixture.SESSION, r));
        return ZkCodec.encodeReply(JuteTranslator.toReply(r, result, tree.lastZxid()));
    }
}
