package io.volery.bench;

/**
 * One second of a run.
 *
 * @param second seconds since the clients started, the end of this interval
 * @param measured false during the warm-up
 * @param operations requests completed in the interval (successful ones)
 * @param p50Micros median latency in the interval, 0 if none completed
 * @param p99Micros 99th percentile latency in the interval, 0 if none completed
 * @param errors requests that failed in the interval
 * @param cpuCores the load generator's CPU use in the interval, in cores (1.0 = one core busy)
 */
public record TimelinePoint(int second, boolean measured, long operations, long p50Micros, long p99Micros,
        long errors, double cpuCores) {
}
