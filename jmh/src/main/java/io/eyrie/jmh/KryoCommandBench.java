package io.eyrie.jmh;

import io.eyrie.core.Command;
import io.eyrie.core.internal.KryoCodec;
import io.eyrie.core.internal.Wire;
import io.volery.server.internal.VoleryRequest;
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
 * Eyrie's command codec as Volery uses it: the front end wraps a client's setData frame in a
 * {@link VoleryRequest}, Kryo encodes the Eyrie {@link Command} holding it, and {@link Wire} frames
 * it as a client request; every replica that delivers it decodes both layers. {@code registered=false}
 * measures the class travelling by name, as before ADR 088.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KryoCommandBench {

    @Param({"100", "1000", "10000"})
    public int bytes;

    /** Whether Volery's classes are registered with the codec (ADR 088; each fork is a JVM of its own). */
    @Param({"true", "false"})
    public boolean registered;

    private Command command;
    private byte[] kryoBytes;
    private byte[] wireBytes;
    private long seq;

    @Setup
    public void setUp() {
        if (registered) {
            io.volery.server.internal.VoleryCodec.registered();
        }
        byte[] frame = JuteFrames.setData(7, "/bench-0/n-7", JuteFrames.payload(bytes));
        command = new Command(VoleryRequest.zk(TreeFixture.SESSION, frame, 1_000_000L, 1));
        kryoBytes = KryoCodec.encode(command);
        wireBytes = Wire.encode(new Wire.Request(42L, 1L, 0L, kryoBytes));
    }

    @Benchmark
    public byte[] encodeCommand() {
        return KryoCodec.encode(command);
    }

    @Benchmark
    public Object decodeCommand() {
        return KryoCodec.decode(kryoBytes);
    }

    /** The front end's side: Kryo, then the Wire request frame around it. */
    @Benchmark
    public byte[] encodeRequest() {
        return Wire.encode(new Wire.Request(42L, ++seq, seq, KryoCodec.encode(command)));
    }

    /** A replica's side: the Wire frame, then Kryo. */
    @Benchmark
    public Object decodeRequest() {
        return KryoCodec.decode(Wire.decodeRequest(wireBytes).command());
    }
}
