package io.eyrie.jmh;

import io.volery.server.tree.Command;
import io.volery.server.tree.TreeImage;
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

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;

/**
 * What a checkpoint costs the replica's executor, on a tree of {@code znodes} znodes of 100 B under
 * {@code /bench-0}, after {@code changes} setData commands since the previous checkpoint:
 * <ul>
 *   <li>{@code canonicalFormInMemory}: before images, the executor wrote the whole canonical form into
 *   a byte array (Kryo then copied it too), linear in the tree;</li>
 *   <li>{@code setDataThenCapture}: now, {@code changes} setData commands and then
 *   {@code ZnodeTree.capture()}; subtract {@code setDataOnly} (the same commands without the
 *   capture) for the capture alone;</li>
 *   <li>{@code captureAndWrite}: the checkpoint writer thread's side, for comparison: capture and
 *   write the canonical form of the image (off the executor now).</li>
 * </ul>
 * Captured images are written once per iteration, as the checkpoint writer would, so that their
 * changes do not pile up.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class TreeCaptureBench {

    @Param({"10000", "200000"})
    public int znodes;

    @Param({"1", "100"})
    public int changes;

    private TreeFixture tree;
    private Command.SetData[] setData;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        tree = new TreeFixture(znodes, 100);
        tree.enableCaptures();
        byte[] data = JuteFrames.payload(100);
        setData = new Command.SetData[znodes];
        for (int i = 0; i < znodes; i++) {
            setData[i] = new Command.SetData(TreeFixture.SESSION, tree.path(i), data, -1);
        }
    }

    @TearDown(Level.Iteration)
    public void drain() throws IOException {
        tree.capture().writeTo(OutputStream.nullOutputStream());
    }

    private void applyChanges() {
        for (int i = 0; i < changes; i++) {
            tree.apply(setData[next]);
            next = next + 1 == setData.length ? 0 : next + 1;
        }
    }

    @Benchmark
    public byte[] canonicalFormInMemory() {
        applyChanges();
        return tree.canonicalForm();
    }

    @Benchmark
    public TreeImage setDataThenCapture() {
        applyChanges();
        return tree.capture();
    }

    @Benchmark
    public void setDataOnly() {
        applyChanges();
    }

    @Benchmark
    public TreeImage captureAndWrite() throws IOException {
        applyChanges();
        TreeImage image = tree.capture();
        image.writeTo(OutputStream.nullOutputStream());
        return image;
    }
}
