package io.volery.bench;

import java.io.PrintStream;
import java.util.Locale;

/** The one-line-per-second status a person watches while a run goes on. */
final class ProgressLine {

    private final PrintStream out;
    private final int totalSeconds;

    ProgressLine(PrintStream out, int totalSeconds) {
        this.out = out;
        this.totalSeconds = totalSeconds;
    }

    void print(TimelinePoint p, double intervalSeconds) {
        double opsPerSec = intervalSeconds > 0 ? p.operations() / intervalSeconds : 0;
        out.println(String.format(Locale.ROOT,
                "volery-bench %4d/%ds %-7s %9.0f ops/s  p50 %8.3f ms  p99 %8.3f ms  errors %d  cpu %.2f cores",
                p.second(), totalSeconds, p.measured() ? "measure" : "warmup", opsPerSec,
                p.p50Micros() / 1000.0, p.p99Micros() / 1000.0, p.errors(), p.cpuCores()));
    }
}
