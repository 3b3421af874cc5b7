package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Delivery;
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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The learner's deterministic merge: one operation is one merge round, in which every ring decides
 * one batch of {@code batch} proposals of 100 bytes; the benchmark offers each ring's decided value
 * (decoding it, as a learner does) and drains the round's deliveries. Divide the time by
 * rings x batch for the cost per delivered message. {@link #encodeRound} is the share of the
 * round's values that is encoding (the acceptor's side), subtracted by the reader.
 *
 * <p>It lives in Merger's package because the merge is package-private: its only users are the
 * protocol classes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MergerBench {

    private static final int PAYLOAD_BYTES = 100;

    @Param({"1", "2", "4"})
    public int rings;

    @Param({"1", "16"})
    public int batch;

    private Merger merger;
    private int[] ringIds;
    private int[][] groupsOfRing;
    private long[] nextInstance;
    private long seq;
    private byte[] payload;
    private final List<Proposal> proposals = new ArrayList<>();
    private long delivered;
    private final Consumer<Delivery> sink = d -> delivered += d.payload().length;

    @Setup
    public void setUp() {
        ringIds = new int[rings];
        groupsOfRing = new int[rings][];
        for (int r = 0; r < rings; r++) {
            ringIds[r] = r + 1;
            groupsOfRing[r] = new int[] {r + 1};
        }
        nextInstance = new long[rings];
        // a learner of every group, one slot per ring per round: the merge of the paper's figures
        merger = new Merger(ringIds, 1, ringIds, null);
        payload = new byte[PAYLOAD_BYTES];
    }

    /** Ring r's next decided value: {@code batch} fresh proposals of proposer node 100 + r. */
    private byte[] nextValue(int r) {
        proposals.clear();
        for (int i = 0; i < batch; i++) {
            long s = ++seq;
            // watermark = seq: everything earlier was decided, so the dedup table stays small
            proposals.add(new Proposal(100 + r, 1L, s, s, groupsOfRing[r], payload));
        }
        return RingValue.encodeBatch(proposals);
    }

    @Benchmark
    public long offerAndDrainRound() {
        for (int r = 0; r < rings; r++) {
            if (!merger.offer(ringIds[r], nextInstance[r]++, nextValue(r))) {
                throw new IllegalStateException("ring " + ringIds[r] + " refused instance " + (nextInstance[r] - 1));
            }
        }
        long before = delivered;
        merger.drain(sink);
        if (delivered - before != (long) rings * batch * PAYLOAD_BYTES) {
            throw new IllegalStateException("a round delivered " + (delivered - before) / PAYLOAD_BYTES
                    + " messages, expected " + rings * batch);
        }
        return delivered;
    }

    @Benchmark
    public int encodeRound() {
        int total = 0;
        for (int r = 0; r < rings; r++) {
            total += nextValue(r).length;
        }
        return total;
    }
}
