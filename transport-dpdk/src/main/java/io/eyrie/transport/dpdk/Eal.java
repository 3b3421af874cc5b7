package io.eyrie.transport.dpdk;

import java.util.List;

/**
 * The DPDK Environment Abstraction Layer of this process. DPDK allows one EAL per process and no
 * restart after cleanup, so the first start fixes the arguments; a later start with other
 * arguments is an error rather than a silent reuse of the wrong devices.
 */
final class Eal {

    private static List<String> startedWith;

    private Eal() {
    }

    static synchronized void ensureStarted(List<String> args) {
        if (startedWith != null) {
            if (!startedWith.equals(args)) {
                throw new IllegalStateException("the DPDK EAL of this process already started with " + startedWith
                        + "; one process can run it with one argument list only (asked for " + args + ")");
            }
            return;
        }
        DpdkNative.load();
        DpdkNative.ealInit(args.toArray(new String[0]));
        startedWith = List.copyOf(args);
    }
}
