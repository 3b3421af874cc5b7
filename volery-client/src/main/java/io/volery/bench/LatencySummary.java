package io.volery.bench;

import org.HdrHistogram.Histogram;

/**
 * Count and percentiles of one latency histogram, in microseconds.
 *
 * @param count number of completed requests
 */
public record LatencySummary(long count, long minMicros, double meanMicros, long p50Micros, long p90Micros,
        long p99Micros, long p999Micros, long maxMicros) {

    static LatencySummary of(Histogram h) {
        if (h.getTotalCount() == 0) {
            return new LatencySummary(0, 0, 0, 0, 0, 0, 0, 0);
        }
        return new LatencySummary(h.getTotalCount(), h.getMinValue(), h.getMean(),
                h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), h.getMaxValue());
    }
}
