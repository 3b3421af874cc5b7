package io.eyrie.jmh;

import io.volery.server.frontend.JuteTranslator;
import io.volery.server.frontend.ZkCodec;
import io.volery.server.frontend.ZkReply;
import io.volery.server.frontend.ZkRequest;
import io.volery.server.tree.Command;
import io.volery.server.tree.Result;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The front end's and the replica's jute work per request: decoding a client frame into a
 * {@link ZkRequest}, translating it into a tree {@link Command}, and encoding the reply.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class JuteCodecBench {

    @Param({"100", "1000", "10000"})
    public int bytes;

    private byte[] setDataFrame;
    private byte[] getDataFrame;
    private byte[] createFrame;
    private ZkRequest setDataRequest;
    private ZkRequest getDataRequest;
    private Result setDataResult;
    private Result getDataResult;

    @Setup
    public void setUp() throws Exception {
        byte[] data = JuteFrames.payload(bytes);
        setDataFrame = JuteFrames.setData(7, "/bench-0/n-7", data);
        getDataFrame = JuteFrames.getData(8, "/bench-0/n-7");
        createFrame = JuteFrames.create(9, "/bench-0/pair-run-3-17", data);
        setDataRequest = ZkCodec.decodeRequest(setDataFrame);
        getDataRequest = ZkCodec.decodeRequest(getDataFrame);
        // real results from a real tree, so the replies carry a real Stat and data
        TreeFixture tree = new TreeFixture(16, bytes);
        setDataResult = tree.apply(JuteTranslator.toCommand(TreeFixture.SESSION, setDataRequest));
        getDataResult = tree.apply(JuteTranslator.toCommand(TreeFixture.SESSION, getDataRequest));
        TreeFixture.requireOk(setDataResult, "setData");
        TreeFixture.requireOk(getDataResult, "getData");
    }

    @Benchmark
    public ZkRequest decodeSetData() throws Exception {
        return ZkCodec.decodeRequest(setDataFrame);
    }

    @Benchmark
    public ZkRequest decodeGetData() throws Exception {
        return ZkCodec.decodeRequest(getDataFrame);
    }

    @Benchmark
    public ZkRequest decodeCreate() throws Exception {
        return ZkCodec.decodeRequest(createFrame);
    }

    /** What a replica does with the bytes it is delivered before it touches the tree. */
    @Benchmark
    public Command decodeAndTranslateSetData() throws Exception {
        return JuteTranslator.toCommand(TreeFixture.SESSION, ZkCodec.decodeRequest(setDataFrame));
    }

    /** setData's reply: header and Stat. */
    @Benchmark
    public byte[] encodeSetDataReply() {
        ZkReply reply = JuteTranslator.toReply(setDataRequest, setDataResult, 1234L);
        return ZkCodec.encodeReply(reply);
    }

    /** getData's reply: header, data of {@code bytes} and Stat. */
    @Benchmark
    public byte[] encodeGetDataReply() {
        ZkReply reply = JuteTranslator.toReply(getDataRequest, getDataResult, 1234L);
        return ZkCodec.encodeReply(reply);
    }
}
