package io.volery.bench;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one run: what was asked ({@link #config}), what was measured after the warm-up,
 * and a second-by-second timeline of the whole run including the warm-up.
 *
 * @param measuredSeconds wall time of the measured window
 * @param operations requests completed successfully in the measured window
 * @param latency all successful requests of the measured window
 * @param byOperation the same, per request type (types the workload does not issue have count 0)
 * @param errors failed requests of the measured window, by {@code KeeperException.Code} name
 * @param warmupErrors failed requests of the warm-up, by code name
 * @param cpuSeconds the load generator's own CPU time in the measured window
 * @param availableProcessors cores the load generator's JVM sees
 * @param latencyCdf (percentile, microseconds) points of the measured latency distribution
 * @param drained whether every request in flight at the end completed before the clients closed
 */
public record BenchReport(
        BenchConfig config,
        Instant startedAt,
        double measuredSeconds,
        long operations,
        LatencySummary latency,
        Map<Operation, LatencySummary> byOperation,
        Map<String, Long> errors,
        Map<String, Long> warmupErrors,
        double cpuSeconds,
        int availableProcessors,
        List<double[]> latencyCdf,
        List<TimelinePoint> timeline,
        boolean drained) {

    /** Successful requests per second of the measured window. */
    public double throughput() {
        return measuredSeconds > 0 ? operations / measuredSeconds : 0;
    }

    public long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The load generator's average CPU use in cores; near {@link #availableProcessors} means it was the bottleneck. */
    public double averageCpuCores() {
        return measuredSeconds > 0 ? cpuSeconds / measuredSeconds : 0;
    }

    public String toJson() {
        JsonWriter w = new JsonWriter().beginObject();
        w.field("tool", "volery-bench").field("formatVersion", 1).field("startedAt", startedAt.toString());
        w.name("config").beginObject()
                .field("client", config.client().cliName())
                .field("connect", config.connect())
                .field("workload", config.workload().cliName())
                .field("clients", config.clients())
                .field("outstanding", config.outstanding())
                .field("rate", config.rate())
                .field("warmupSeconds", config.warmup().toSeconds())
                .field("durationSeconds", config.duration().toSeconds())
                .field("globalPercent", config.globalPercent())
                .field("bytes", config.bytes())
                .field("znodes", config.znodes())
                .field("subtrees", config.subtrees())
                .field("clientPerSubtree", config.clientPerSubtree())
                .field("ownerAffinity", config.ownerAffinity())
                .field("seed", config.seed())
                .endObject();
        w.field("measuredSeconds", measuredSeconds)
                .field("operations", operations)
                .field("throughputOpsPerSec", throughput());
        w.name("latencyMicros");
        summary(w, latency);
        w.name("byOperation").beginObject();
        byOperation.forEach((op, s) -> {
            w.name(op.jsonName());
            summary(w, s);
        });
        w.endObject();
        w.field("errorCount", errorCount());
        counts(w.name("errors"), errors);
        counts(w.name("warmupErrors"), warmupErrors);
        w.name("cpu").beginObject()
                .field("processCpuSeconds", cpuSeconds)
                .field("averageCores", averageCpuCores())
                .field("availableProcessors", availableProcessors)
                .field("cpuMicrosPerOperation", operations > 0 ? cpuSeconds * 1e6 / operations : Double.NaN)
                .endObject();
        w.field("drained", drained);
        w.name("latencyCdf").beginArray();
        for (double[] point : latencyCdf) {
            w.beginObject().field("percentile", point[0]).field("micros", point[1]).endObject();
        }
        w.endArray();
        w.name("timeline").beginArray();
        for (TimelinePoint p : timeline) {
            w.beginObject()
                    .field("second", p.second())
                    .field("measured", p.measured())
                    .field("ops", p.operations())
                    .field("p50Micros", p.p50Micros())
                    .field("p99Micros", p.p99Micros())
                    .field("errors", p.errors())
                    .field("cpuCores", p.cpuCores())
                    .endObject();
        }
        w.endArray();
        return w.endObject().toJson();
    }

    private static void summary(JsonWriter w, LatencySummary s) {
        w.beginObject()
                .field("count", s.count())
                .field("min", s.minMicros())
                .field("mean", s.meanMicros())
                .field("p50", s.p50Micros())
                .field("p90", s.p90Micros())
                .field("p99", s.p99Micros())
                .field("p999", s.p999Micros())
                .field("max", s.maxMicros())
                .endObject();
    }

    private static void counts(JsonWriter w, Map<String, Long> counts) {
        w.beginObject();
        counts.forEach((code, n) -> w.field(code, n.longValue()));
        w.endObject();
    }
}
