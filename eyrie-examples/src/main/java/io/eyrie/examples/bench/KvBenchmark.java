package io.eyrie.examples.bench;

import io.eyrie.core.Command;
import io.eyrie.core.EyrieClient;
import io.eyrie.core.Partition;
import io.eyrie.examples.cli.Args;
import io.eyrie.examples.kv.KvCommands;
import io.eyrie.examples.kv.KvOracle;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load driver for the key-value example: the client nodes of a cluster file (nodes without groups)
 * each run an {@link EyrieClient} kept full ({@code --window} commands outstanding). Commands are
 * gets and puts on single keys, plus the given percentages of {@code copy} between keys of two
 * different partitions. For each percentage: a warm-up, then a measured interval that yields
 * throughput, latency percentiles, and, from the replicas' stats files ({@code pid framesSent}) and
 * /proc, the replicas' CPU time and the messages sent by every node per command. One CSV line per
 * percentage is appended to {@code --out}.
 */
public final class KvBenchmark {

    static final String USAGE = "usage: KvBenchmark --config FILE --stats DIR --out CSV [--multi 0,1,5,10] "
            + "[--warmup-seconds 5] [--first-warmup-seconds 2*warmup] [--seconds 10] [--window 32] [--keys 10000] [--label TEXT] [--tick-millis 2]";

    private KvBenchmark() {
    }

    /** Latencies of completed commands in microseconds, bounded; reset between intervals. */
    private static final class Latencies {
        private final long[] micros = new long[2_000_000];
        private int n;

        synchronized void add(long us) {
            if (n < micros.length) {
                micros[n++] = us;
            }
        }

        synchronized long[] drain() {
            long[] out = Arrays.copyOf(micros, n);
            n = 0;
            return out;
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of("config", "stats", "out", "multi", "warmup-seconds", "seconds", "window",
                "keys", "label", "tick-millis", "first-warmup-seconds"), USAGE);
        ClusterConfig config = ClusterConfig.load(Path.of(args.required("config")));
        Path statsDir = Path.of(args.required("stats"));
        Path out = Path.of(args.required("out"));
        int warmup = args.getInt("warmup-seconds", 5);
        int firstWarmup = args.getInt("first-warmup-seconds", 2 * warmup);
        int seconds = args.getInt("seconds", 10);
        int window = args.getInt("window", 32);
        int keys = args.getInt("keys", 10_000);
        String label = args.get("label", "");
        int[] percents = Arrays.stream(args.get("multi", "0,1,5,10").split(",")).mapToInt(Integer::parseInt).toArray();

        List<MulticastNode> nodes = new ArrayList<>();
        List<EyrieClient> clients = new ArrayList<>();
        for (ClusterConfig.Node n : config.nodes().values()) {
            if (n.groups().length == 0) {
                MulticastNode node = MulticastNode.builder(config, n.id()).tickMillis(args.getInt("tick-millis", 2)).build();
                node.start(d -> { }, null);
                nodes.add(node);
                // one more than the driver's own window, so executeAsync never blocks inside a measurement
                clients.add(new EyrieClient(node, new KvOracle(), window + 1, 10_000));
            }
        }
        if (clients.isEmpty()) {
            throw new IllegalArgumentException("the cluster file has no client nodes (nodes without groups)");
        }
        KvOracle oracle = new KvOracle();
        int partitions = Partition.getPartitionList().size();
        // keys bucketed by partition, so a multi-partition copy can pick two different partitions
        List<List<String>> keysOf = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            keysOf.add(new ArrayList<>());
        }
        for (int k = 0; k < keys; k++) {
            String key = "k" + k;
            keysOf.get(Partition.getPartitionList().indexOf(oracle.getPartition(key))).add(key);
        }

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        Latencies latencies = new Latencies();
        int[] percent = new int[1];
        List<Thread> drivers = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            EyrieClient client = clients.get(c);
            long seed = 1000L + c;
            java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(window);
            Thread t = new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                while (!stop.get()) {
                    Command cmd;
                    if (partitions > 1 && r.nextInt(100) < percent[0]) {
                        int a = r.nextInt(partitions);
                        int b = (a + 1 + r.nextInt(partitions - 1)) % partitions;
                        cmd = KvCommands.copy(pick(keysOf.get(a), r), pick(keysOf.get(b), r));
                    } else {
                        String key = pick(keysOf.get(r.nextInt(partitions)), r);
                        cmd = r.nextBoolean() ? KvCommands.get(key) : KvCommands.put(key, "v" + r.nextInt(1000));
                    }
                    slots.acquireUninterruptibly();
                    long start = System.nanoTime();
                    client.executeAsync(cmd).whenComplete((v, e) -> {
                        slots.release();
                        if (e == null) {
                            completed.incrementAndGet();
                            latencies.add((System.nanoTime() - start) / 1000);
                        } else {
                            failed.incrementAndGet();
                        }
                    });
                }
            }, "kv-driver-" + c);
            drivers.add(t);
        }
        boolean started = false;
        for (int p : percents) {
            percent[0] = p;
            if (!started) {
                drivers.forEach(Thread::start);
                started = true;
            }
            // the first interval also warms up the JIT of capped replicas, so it gets a longer warm-up
            Thread.sleep((p == percents[0] ? firstWarmup : warmup) * 1000L);
            latencies.drain();
            long c0 = completed.get();
            long[] perReplica0 = replicaCpuMicrosEach(statsDir);
            long cpu0 = Arrays.stream(perReplica0).sum();
            long driver0 = driverCpuMicros();
            java.util.Map<Long, long[]> replicaFrames0 = replicaFrames(statsDir);
            long clientFrames0 = clientFrames(nodes);
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long t1 = System.nanoTime();
            long c1 = completed.get();
            long[] perReplica1 = replicaCpuMicrosEach(statsDir);
            long cpu1 = Arrays.stream(perReplica1).sum();
            long driver1 = driverCpuMicros();
            java.util.Map<Long, long[]> replicaFrames1 = replicaFrames(statsDir);
            long clientFrames1 = clientFrames(nodes);
            long[] lat = latencies.drain();
            Arrays.sort(lat);
            long done = c1 - c0;
            double tput = done / ((t1 - t0) / 1e9);
            double wallMicros = (t1 - t0) / 1e3;
            long busiest = 0;
            for (int i = 0; i < Math.min(perReplica0.length, perReplica1.length); i++) {
                busiest = Math.max(busiest, perReplica1[i] - perReplica0[i]);
            }
            String line = String.format(java.util.Locale.ROOT, "%s,%d,%d,%.0f,%.2f,%.2f,%.0f,%.1f,%d,%.0f,%.0f,%.0f%n", label, partitions, p,
                    tput, pct(lat, 0.50) / 1000.0, pct(lat, 0.99) / 1000.0,
                    done == 0 ? 0.0 : (double) (cpu1 - cpu0) / done,
                    done == 0 ? 0.0 : (replicaFrameRate(replicaFrames0, replicaFrames1) + (clientFrames1 - clientFrames0) / ((t1 - t0) / 1e9)) / tput,
                    failed.get(), done == 0 ? 0.0 : (double) (driver1 - driver0) / done,
                    100.0 * busiest / wallMicros, 100.0 * (driver1 - driver0) / wallMicros);
            System.out.print("partitions,multiPct,cmdPerSec,p50ms,p99ms,replicaCpuUsPerCmd,msgsPerCmd,failed,"
                    + "driverCpuUsPerCmd,busiestReplicaCpuPct,driverCpuPct: " + line);
            Files.writeString(out, line, StandardCharsets.US_ASCII, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        stop.set(true);
        for (Thread t : drivers) {
            t.join(15_000); // each finishes its current submission once a reply frees a slot
        }
        clients.forEach(EyrieClient::close);
        nodes.forEach(MulticastNode::close);
        System.exit(0);
    }

    private static String pick(List<String> keys, SplittableRandom r) {
        return keys.get(r.nextInt(keys.size()));
    }

    private static long pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
    }

    private static long clientFrames(List<MulticastNode> nodes) {
        return nodes.stream().mapToLong(n -> n.transportStats().framesSent()).sum();
    }

    private static List<long[]> readStats(Path dir) throws IOException {
        List<long[]> out = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches("stats-\\d+")).sorted().toList()) {
                String[] parts = Files.readString(f, StandardCharsets.US_ASCII).trim().split(" ");
                if (parts.length == 3) {
                    out.add(new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])});
                }
            }
        }
        return out;
    }

    /** {framesSent, epochMillis} of each replica, by stats file. */
    private static java.util.Map<Long, long[]> replicaFrames(Path dir) throws IOException {
        java.util.Map<Long, long[]> out = new java.util.HashMap<>();
        for (long[] s : readStats(dir)) {
            out.put(s[0], new long[] {s[1], s[2]});
        }
        return out;
    }

    /**
     * Frames per second the replicas sent between two readings of their stats files, each replica's
     * rate taken over the interval between its own two reports (they report once a second).
     */
    private static double replicaFrameRate(java.util.Map<Long, long[]> before, java.util.Map<Long, long[]> after) {
        double rate = 0;
        for (java.util.Map.Entry<Long, long[]> e : after.entrySet()) {
            long[] b = before.get(e.getKey());
            long[] a = e.getValue();
            if (b != null && a[1] > b[1]) {
                rate += (a[0] - b[0]) * 1000.0 / (a[1] - b[1]);
            }
        }
        return rate;
    }

    /**
     * utime + stime of each replica process, from /proc (clock ticks of 10 ms on Linux), in the
     * order of the stats files' names (0 for a process that is gone).
     */
    private static long[] replicaCpuMicrosEach(Path dir) throws IOException {
        List<long[]> stats = readStats(dir);
        long[] each = new long[stats.size()];
        for (int i = 0; i < each.length; i++) {
            Path stat = Path.of("/proc", String.valueOf(stats.get(i)[0]), "stat");
            if (!Files.exists(stat)) {
                continue;
            }
            String text = Files.readString(stat, StandardCharsets.US_ASCII);
            String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            // fields after "(comm) ": state is index 0, so utime (14th of the line) is index 11
            each[i] = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000L;
        }
        return each;
    }

    /** This driver JVM's own CPU time (every thread), so that a client bottleneck shows. */
    private static long driverCpuMicros() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime() / 1000;
    }
}
