package io.eyrie.multicast;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The multicast benchmark: three nodes in one JVM over real Netty TCP on loopback, every node an
 * acceptor of every ring; node 1 learns every group and is where throughput and latency are
 * measured. Not a test: run it by hand (see docs/benchmarks/multicast.md).
 *
 * <pre>
 * MulticastBench [--seconds S] [--warmup S] [--window W] [--sizes 100,1000,10000]
 *                [--layouts alone,idle,2,4] [--storage memory,durable] [--latency-window W]
 *                [--repeat N]
 * </pre>
 *
 * Layouts: {@code alone} = one group ordered by one ring (no merge); {@code idle} = one busy group
 * ring merged with the idle ALL ring; {@code 2} and {@code 4} = that many busy group rings merged
 * at node 1 (plus the idle ALL ring). Load: every node multicasts to the groups round-robin with
 * a window of W outstanding messages (closed loop). Latency: from multicast() on node 1 to the
 * delivery of the same message on node 1. {@code --repeat N} runs every point N times in a row (one
 * row each): the later rows run with the JIT compilers done, which matters on a loaded machine where
 * compilation goes on for many seconds and is counted in CPU us/msg.
 */
public final class MulticastBench {

    public static void main(String[] args) throws Exception {
        int seconds = 5;
        int warmup = 2;
        int window = 256;
        int latencyWindow = 1;
        int repeat = 1;
        int[] sizes = {100, 1000, 10000};
        String[] layouts = {"alone", "idle", "2", "4"};
        String[] storages = {"memory", "durable"};
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--window" -> window = Integer.parseInt(args[i + 1]);
                case "--latency-window" -> latencyWindow = Integer.parseInt(args[i + 1]);
                case "--sizes" -> sizes = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--layouts" -> layouts = args[i + 1].split(",");
                case "--storage" -> storages = args[i + 1].split(",");
                case "--repeat" -> repeat = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.println("| layout | storage | bytes | window | msgs/s | MB/s | p50 ms | p99 ms | CPU us/msg | app CPU us/msg | alloc KB/msg |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        for (String storage : storages) {
            for (String layout : layouts) {
                for (int size : sizes) {
                    for (int r = 0; r < repeat; r++) {
                        run(layout, storage, size, window, warmup, seconds);
                    }
                }
                if (latencyWindow > 0) {
                    for (int r = 0; r < repeat; r++) {
                        run(layout, storage, 100, latencyWindow, warmup, seconds);
                    }
                }
            }
        }
    }

    static void run(String layout, String storage, int size, int window, int warmupS, int seconds) throws Exception {
        int groups = switch (layout) {
            case "alone", "idle" -> 1;
            default -> Integer.parseInt(layout);
        };
        Path dir = Files.createTempDirectory("mrp-bench");
        StringBuilder cfg = new StringBuilder();
        for (int n = 1; n <= 3; n++) {
            cfg.append("node.").append(n).append(" = 127.0.0.1:").append(ProcessCluster.freePort()).append('\n');
        }
        StringBuilder all = new StringBuilder();
        for (int g = 1; g <= groups; g++) {
            all.append(g == 1 ? "" : ",").append(g);
        }
        cfg.append("node.1.groups = ").append(all).append('\n');
        cfg.append("node.2.groups = 1\nnode.3.groups = ").append(groups > 1 ? 2 : 1).append('\n');
        cfg.append("ring.0.acceptors = 1,2,3\nring.all = 0\n");
        if (layout.equals("alone")) {
            cfg.append("group.1.ring = 0\n");
        } else {
            for (int g = 1; g <= groups; g++) {
                cfg.append("ring.").append(g).append(".acceptors = 1,2,3\n");
                cfg.append("group.").append(g).append(".ring = ").append(g).append('\n');
            }
        }
        cfg.append("storage = ").append(storage).append("\ndataDir = ").append(dir).append('\n');
        // Three nodes share this JVM and no application checkpoints (so nothing is trimmed): keep
        // each in-memory log small enough that 3 nodes x 5 rings fit in the heap.
        cfg.append("storage.memoryMaxBytes = ").append(32L * 1024 * 1024).append('\n');
        ClusterConfig config = ClusterConfig.parse(cfg.toString(), "bench");

        AtomicLong delivered = new AtomicLong();
        AtomicLong deliveredBytes = new AtomicLong();
        ConcurrentHashMap<Long, Long> sentAt = new ConcurrentHashMap<>();
        long[] latencies = new long[4_000_000];
        AtomicLong latencyCount = new AtomicLong();
        AtomicBoolean measuring = new AtomicBoolean();
        List<MulticastNode> nodes = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {
            MulticastNode.Builder builder = MulticastNode.builder(config, n);
            // -Deyrie.transport.factory=CLASS runs the same benchmark over another transport (DPDK).
            String factory = System.getProperty("eyrie.transport.factory");
            if (factory != null) {
                @SuppressWarnings("unchecked")
                java.util.function.Function<MulticastNode, Transport> f = (java.util.function.Function<MulticastNode, Transport>)
                        Class.forName(factory).getConstructor().newInstance();
                builder.transport(f);
            }
            MulticastNode node = builder.build();
            nodes.add(node);
        }
        nodes.get(0).start(d -> {
            if (!measuring.get()) {
                return;
            }
            delivered.incrementAndGet();
            deliveredBytes.addAndGet(d.payload().length);
            long id = ByteBuffer.wrap(d.payload()).getLong();
            Long t0 = sentAt.remove(id);
            if (t0 != null) {
                long i = latencyCount.getAndIncrement();
                if (i < latencies.length) {
                    latencies[(int) i] = System.nanoTime() - t0;
                }
            }
        });
        nodes.get(1).start(d -> { });
        nodes.get(2).start(d -> { });

        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> loaders = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            MulticastNode node = nodes.get(n);
            int nodeIndex = n;
            Thread t = new Thread(() -> {
                Semaphore outstanding = new Semaphore(window);
                long seq = 0;
                while (running.get()) {
                    try {
                        if (!outstanding.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    long id = ((long) nodeIndex << 56) | seq;
                    int group = (int) (seq % groups) + 1;
                    seq++;
                    byte[] payload = new byte[size];
                    ByteBuffer.wrap(payload).putLong(id);
                    if (nodeIndex == 0) {
                        sentAt.put(id, System.nanoTime());
                    }
                    node.multicast(new int[] {group}, payload).whenComplete((ok, err) -> outstanding.release());
                }
            }, "load-" + (n + 1));
            t.setDaemon(true);
            loaders.add(t);
            t.start();
        }
        Thread.sleep(warmupS * 1000L);
        measuring.set(true);
        long t0 = System.nanoTime();
        // Robust under load, unlike msgs/s: the whole JVM's CPU time and allocation per delivery.
        long cpu0 = processCpuNanos();
        long app0 = javaThreadsCpuNanos();
        long alloc0 = allocatedBytes();
        for (int s = 0; s < seconds; s++) {
            Thread.sleep(1000L);
            if (Boolean.getBoolean("bench.trace")) {
                System.err.println("t=" + s + " delivered=" + delivered.get() + " status1=" + nodes.get(0).status());
            }
        }
        measuring.set(false);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long cpu = processCpuNanos() - cpu0;
        long app = javaThreadsCpuNanos() - app0;
        long alloc = allocatedBytes() - alloc0;
        running.set(false);
        for (Thread t : loaders) {
            t.join(2000);
        }
        for (MulticastNode node : nodes) {
            node.close();
        }
        deleteRecursively(dir);
        int n = (int) Math.min(latencyCount.get(), latencies.length);
        long[] lat = Arrays.copyOf(latencies, n);
        Arrays.sort(lat);
        double p50 = n == 0 ? Double.NaN : lat[n / 2] / 1e6;
        double p99 = n == 0 ? Double.NaN : lat[Math.min(n - 1, (int) (n * 0.99))] / 1e6;
        long count = Math.max(1, delivered.get());
        System.out.println(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.0f | %.1f | %.2f | %.2f | %.1f | %.1f | %.1f |",
                layout, storage, size, window, delivered.get() / elapsed, deliveredBytes.get() / elapsed / 1e6, p50, p99,
                cpu / 1e3 / count, app / 1e3 / count, alloc / 1024.0 / count));
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * CPU time of the live Java threads (nodes, transport, load generators): the process's CPU
     * time without the JIT compilers and the garbage collector, which on a loaded machine go on
     * compiling for many seconds and make the process figure noisy.
     */
    private static long javaThreadsCpuNanos() {
        java.lang.management.ThreadMXBean t = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long id : t.getAllThreadIds()) {
            sum += Math.max(0, t.getThreadCpuTime(id));
        }
        return sum;
    }

    /** Bytes allocated so far by the live threads (the benchmark's threads live through a run). */
    private static long allocatedBytes() {
        com.sun.management.ThreadMXBean t = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long sum = 0;
        for (long b : t.getThreadAllocatedBytes(t.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private MulticastBench() {
    }
}
