package io.volery.bench;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.zookeeper.KeeperException;

/**
 * Collects completions from every client's callback thread without locks (HdrHistogram
 * {@link Recorder}s are wait-free for writers) and hands the reporting thread one interval at a
 * time, so per-second figures and run totals come from the same samples.
 */
final class OperationRecorder {

    /** Latencies of one interval, per operation, and the errors in it by code name. */
    record Interval(EnumMap<Operation, Histogram> latencies, Map<String, Long> errors) {
        long errorCount() {
            return errors.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final EnumMap<Operation, Recorder> recorders = new EnumMap<>(Operation.class);
    private final ConcurrentHashMap<String, LongAdder> intervalErrors = new ConcurrentHashMap<>();

    OperationRecorder() {
        for (Operation op : Operation.values()) {
            recorders.put(op, new Recorder(3));
        }
    }

    void success(Operation op, long startNanos) {
        long micros = Math.max(0, (System.nanoTime() - startNanos) / 1_000);
        recorders.get(op).recordValue(micros);
    }

    void failure(int rc) {
        intervalErrors.computeIfAbsent(codeName(rc), k -> new LongAdder()).increment();
    }

    /** The {@link KeeperException.Code} name of a result code; a server may send codes this client does not know. */
    static String codeName(int rc) {
        KeeperException.Code code = KeeperException.Code.get(rc);
        return code == null ? "UNKNOWN_" + rc : code.name();
    }

    /** Everything recorded since the previous call. Only one thread may call this. */
    Interval takeInterval() {
        EnumMap<Operation, Histogram> latencies = new EnumMap<>(Operation.class);
        for (Map.Entry<Operation, Recorder> e : recorders.entrySet()) {
            latencies.put(e.getKey(), e.getValue().getIntervalHistogram());
        }
        Map<String, Long> errors = new TreeMap<>();
        for (Map.Entry<String, LongAdder> e : intervalErrors.entrySet()) {
            long n = e.getValue().sumThenReset();
            if (n > 0) {
                errors.put(e.getKey(), n);
            }
        }
        return new Interval(latencies, errors);
    }
}
