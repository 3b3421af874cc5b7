package io.eyrie.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build's proof that every benchmark still runs: each one for a single short iteration in this
 * JVM, with the allocation profiler that bench/jmh.sh uses. It asserts that they ran and produced
 * numbers, never how fast: timings on a shared build machine mean nothing.
 */
class EveryBenchmarkRunsTest {

    /** Every benchmark method of the module; a new one must be added here to be smoke-tested. */
    private static final Set<String> EXPECTED = new TreeSet<>(Set.of(
            "io.eyrie.jmh.JuteCodecBench.decodeSetData",
            "io.eyrie.jmh.JuteCodecBench.decodeGetData",
            "io.eyrie.jmh.JuteCodecBench.decodeCreate",
            "io.eyrie.jmh.JuteCodecBench.decodeAndTranslateSetData",
            "io.eyrie.jmh.JuteCodecBench.encodeSetDataReply",
            "io.eyrie.jmh.JuteCodecBench.encodeGetDataReply",
            "io.eyrie.jmh.ZnodeTreeBench.setData",
            "io.eyrie.jmh.ZnodeTreeBench.getData",
            "io.eyrie.jmh.ZnodeTreeBench.createDeletePair",
            "io.eyrie.jmh.ZnodeTreeBench.replicaSetData",
            "io.eyrie.jmh.TreeCaptureBench.canonicalFormInMemory",
            "io.eyrie.jmh.TreeCaptureBench.setDataThenCapture",
            "io.eyrie.jmh.TreeCaptureBench.setDataOnly",
            "io.eyrie.jmh.TreeCaptureBench.captureAndWrite",
            "io.eyrie.jmh.KryoCommandBench.encodeCommand",
            "io.eyrie.jmh.KryoCommandBench.decodeCommand",
            "io.eyrie.jmh.KryoCommandBench.encodeRequest",
            "io.eyrie.jmh.KryoCommandBench.decodeRequest",
            "io.eyrie.multicast.internal.protocol.MergerBench.offerAndDrainRound",
            "io.eyrie.multicast.internal.protocol.MergerBench.encodeRound"));

    @Test
    void everyBenchmarkRunsOnceAndReportsTimeAndAllocation() throws Exception {
        Options options = new OptionsBuilder()
                .include("io\\.eyrie\\.(jmh|multicast)\\..*Bench\\..*")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(150))
                // one value of each parameter: the smoke run proves the code paths, not the curves
                .param("bytes", "1000")
                .param("rings", "2")
                .param("batch", "16")
                .param("znodes", "1000")
                .param("changes", "100")
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();

        Collection<RunResult> results = new Runner(options).run();

        Map<String, RunResult> byName = new TreeMap<>();
        for (RunResult r : results) {
            byName.put(r.getParams().getBenchmark(), r);
        }
        assertEquals(EXPECTED, byName.keySet(), "benchmarks that ran (left: expected, right: found by JMH)");
        for (Map.Entry<String, RunResult> e : byName.entrySet()) {
            Result<?> primary = e.getValue().getPrimaryResult();
            double score = primary.getScore();
            assertTrue(Double.isFinite(score) && score > 0,
                    e.getKey() + ": expected a positive time per operation, got " + score + " " + primary.getScoreUnit());
            Map<String, Result> secondary = e.getValue().getSecondaryResults();
            assertTrue(secondary.containsKey("gc.alloc.rate.norm"),
                    e.getKey() + ": expected the gc profiler's gc.alloc.rate.norm, got only " + secondary.keySet());
        }
    }
}
