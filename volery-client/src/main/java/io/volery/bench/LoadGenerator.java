package io.volery.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one benchmark: creates the znodes, connects the clients, lets them run through the warm-up
 * and the measured window while this thread closes one interval per second, then stops them and
 * builds the {@link BenchReport}.
 */
public final class LoadGenerator {

    private static final Logger LOG = LoggerFactory.getLogger(LoadGenerator.class);
    private static final long SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final BenchConfig config;
    private final PrintStream progressOut;

    /** A generator printing its progress line (if the config asks for one) to {@code progressOut}. */
    public LoadGenerator(BenchConfig config, PrintStream progressOut) {
        this.config = config.validate();
        this.progressOut = progressOut;
    }

    /**
     * Runs the benchmark to the end.
     *
     * @throws IOException if the endpoint cannot be reached or the znodes cannot be created
     */
    public BenchReport run() throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(config.seed());
        ZnodeLayout layout = new ZnodeLayout(config.znodes(), config.subtrees());
        byte[] payload = new byte[config.bytes()];
        random.nextBytes(payload);
        String runTag = Long.toString(System.currentTimeMillis(), 36) + Integer.toString(random.nextInt(1296), 36);

        long setupTimeoutMillis = Math.max(60_000, config.sessionTimeout().toMillis());
        try (BenchTarget target = BenchTarget.of(config)) {
            // every ensemble holds the whole layout (one, unless --connect shards over several)
            List<BenchSession> setups = target.openEach();
            try {
                for (BenchSession setup : setups) {
                    new ZnodePopulator(setup).populate(layout, payload, setupTimeoutMillis);
                }
            } finally {
                setups.forEach(BenchSession::close);
            }

            OperationRecorder recorder = new OperationRecorder();
            List<BenchClient> clients = new ArrayList<>(config.clients());
            try {
                for (int i = 0; i < config.clients(); i++) {
                    clients.add(BenchClient.connect(i, target, config, layout, runTag, payload, recorder));
                }
                LOG.info("{} {} clients connected to {}", clients.size(), config.client().cliName(), config.connect());
                return measure(clients, recorder);
            } finally {
                for (BenchClient c : clients) {
                    c.close();
                }
            }
        }
    }

    private BenchReport measure(List<BenchClient> clients, OperationRecorder recorder) throws InterruptedException {
        int warmupSeconds = (int) config.warmup().toSeconds();
        int totalSeconds = warmupSeconds + (int) config.duration().toSeconds();
        ProgressLine progress = config.progress() ? new ProgressLine(progressOut, totalSeconds) : null;
        ProcessCpuClock cpu = new ProcessCpuClock();

        EnumMap<Operation, Histogram> totals = new EnumMap<>(Operation.class);
        for (Operation op : Operation.values()) {
            totals.put(op, new Histogram(3));
        }
        Map<String, Long> errors = new TreeMap<>();
        Map<String, Long> warmupErrors = new TreeMap<>();
        List<TimelinePoint> timeline = new ArrayList<>(totalSeconds);

        Instant startedAt = Instant.now();
        for (BenchClient c : clients) {
            c.start();
        }
        long t0 = System.nanoTime();
        long cpu0 = cpu.cpuNanos();
        long previousTick = t0;
        long previousCpu = cpu0;
        long measureStartNanos = t0;
        long measureStartCpu = cpu0;
        long measureEndNanos = t0;
        long measureEndCpu = cpu0;

        for (int second = 1; second <= totalSeconds; second++) {
            parkUntil(t0 + second * SECOND_NANOS);
            OperationRecorder.Interval interval = recorder.takeInterval();
            long now = System.nanoTime();
            long cpuNow = cpu.cpuNanos();
            boolean measured = second > warmupSeconds;

            Histogram all = new Histogram(3);
            interval.latencies().values().forEach(all::add);
            double intervalSeconds = (now - previousTick) / 1e9;
            double cores = cpuNow >= 0 && intervalSeconds > 0 ? (cpuNow - previousCpu) / 1e9 / intervalSeconds : Double.NaN;
            TimelinePoint point = new TimelinePoint(second, measured, all.getTotalCount(),
                    all.getTotalCount() > 0 ? all.getValueAtPercentile(50) : 0,
                    all.getTotalCount() > 0 ? all.getValueAtPercentile(99) : 0,
                    interval.errorCount(), cores);
            timeline.add(point);
            if (measured) {
                interval.latencies().forEach((op, h) -> totals.get(op).add(h));
                interval.errors().forEach((code, n) -> errors.merge(code, n, Long::sum));
                measureEndNanos = now;
                measureEndCpu = cpuNow;
            } else {
                interval.errors().forEach((code, n) -> warmupErrors.merge(code, n, Long::sum));
                measureStartNanos = now;
                measureStartCpu = cpuNow;
            }
            if (progress != null) {
                progress.print(point, intervalSeconds);
            }
            previousTick = now;
            previousCpu = cpuNow;
        }

        for (BenchClient c : clients) {
            c.stopIssuing();
        }
        boolean drained = true;
        long drainDeadline = System.nanoTime() + config.sessionTimeout().toNanos();
        for (BenchClient c : clients) {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(drainDeadline - System.nanoTime());
            drained &= c.awaitDrained(Math.max(1, leftMillis));
        }
        if (!drained) {
            LOG.warn("some requests were still in flight {} s after the run ended", config.sessionTimeout().toSeconds());
        }

        Histogram all = new Histogram(3);
        Map<Operation, LatencySummary> byOperation = new EnumMap<>(Operation.class);
        totals.forEach((op, h) -> {
            all.add(h);
            byOperation.put(op, LatencySummary.of(h));
        });
        double measuredSeconds = (measureEndNanos - measureStartNanos) / 1e9;
        double cpuSeconds = measureEndCpu >= 0 ? (measureEndCpu - measureStartCpu) / 1e9 : Double.NaN;
        return new BenchReport(config, startedAt, measuredSeconds, all.getTotalCount(), LatencySummary.of(all),
                byOperation, errors, warmupErrors, cpuSeconds, Runtime.getRuntime().availableProcessors(),
                cdf(all), timeline, drained);
    }

    /** Log-spaced percentile points (dense towards the tail), enough to draw a CDF. */
    private static List<double[]> cdf(Histogram h) {
        List<double[]> points = new ArrayList<>();
        if (h.getTotalCount() == 0) {
            return points;
        }
        for (HistogramIterationValue v : h.percentiles(5)) {
            points.add(new double[] {v.getPercentileLevelIteratedTo(), v.getValueIteratedTo()});
            if (v.getPercentileLevelIteratedTo() >= 100.0) {
                break;
            }
        }
        return points;
    }

    private static void parkUntil(long deadlineNanos) throws InterruptedException {
        long left;
        while ((left = deadlineNanos - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException("benchmark interrupted");
            }
        }
    }
}
