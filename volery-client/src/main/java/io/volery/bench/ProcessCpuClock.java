package io.volery.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * CPU time used by this JVM (all threads, GC and JIT included), so a report shows whether the load
 * generator itself was the bottleneck.
 */
final class ProcessCpuClock {

    private final com.sun.management.OperatingSystemMXBean os;

    ProcessCpuClock() {
        OperatingSystemMXBean bean = ManagementFactory.getOperatingSystemMXBean();
        // The HotSpot extension is the only portable source of process CPU time; without it we report -1.
        os = bean instanceof com.sun.management.OperatingSystemMXBean ext ? ext : null;
    }

    /** Process CPU time in nanoseconds, or -1 when the JVM does not expose it. */
    long cpuNanos() {
        return os == null ? -1 : os.getProcessCpuTime();
    }
}
