package io.volery.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code volery-bench}: drives any ZooKeeper endpoint (Volery or ZooKeeper itself) through the
 * ZooKeeper Java client, or Volery through its native client, with the S-SMR paper's workloads and
 * writes a JSON report.
 */
@Command(name = "volery-bench", version = "volery-bench 0.1.0 (ZooKeeper client 3.9.5, Volery native client)",
        mixinStandardHelpOptions = true, sortOptions = false,
        description = "Load generator for ZooKeeper-compatible services (closed loop, asynchronous clients).")
public final class VoleryBench implements Callable<Integer> {

    @Option(names = "--connect", description = "ZooKeeper connect string, e.g. 127.0.0.1:2181,127.0.0.1:2182 (--client zookeeper); "
            + "independent ensembles sharded by subtree: A|B|... (each holds every znode; client i works in ensemble "
            + "(i mod subtrees) mod k with --client-per-subtree, else i mod k).")
    String connect;

    @Option(names = "--client", defaultValue = "zookeeper",
            description = "zookeeper (the ZooKeeper Java client on --connect) | native (Volery's native client on "
                    + "--cluster-file) (default: ${DEFAULT-VALUE}).")
    String client;

    @Option(names = "--cluster-file", description = "Volery cluster file with a free client node (--client native).")
    Path clusterFile;

    @Option(names = "--clients", defaultValue = "4", description = "Client sessions (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--outstanding", defaultValue = "25", description = "Requests in flight per client (default: ${DEFAULT-VALUE}).")
    int outstanding;

    @Option(names = "--duration", defaultValue = "30", description = "Measured seconds after the warm-up (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--warmup", defaultValue = "10", description = "Warm-up seconds, not counted (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--workload", defaultValue = "setdata",
            description = "setdata | getdata | mixed-read90 | createdelete (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = "--global-percent",
            description = "createdelete only: percent of requests that are create or delete (the rest setData); default 10.")
    Integer globalPercent;

    @Option(names = "--rate", defaultValue = "0",
            description = "Requests started per second by all clients together, each client on a fixed schedule and "
                    + "latencies counted from the scheduled start (a load below saturation, e.g. 75 %% of it); "
                    + "0: closed loop, every client keeps --outstanding requests in flight (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--bytes", defaultValue = "100", description = "Payload bytes of setData and create (default: ${DEFAULT-VALUE}).")
    int bytes;

    @Option(names = "--znodes", defaultValue = "1000", description = "Pre-created znodes (default: ${DEFAULT-VALUE}).")
    int znodes;

    @Option(names = "--client-per-subtree",
            description = "Client i reads and writes only znodes of subtree i mod --subtrees (the paper's local "
                    + "commands: each client works in one partition); without it every client picks from all subtrees.")
    boolean clientPerSubtree;

    @Option(names = "--owner-affinity",
            description = "With --client-per-subtree and a Volery cluster: client i connects first to a server of the "
                    + "partition that owns its subtree (asked with the conf four-letter word), so its requests are "
                    + "answered where they are ordered; without it sessions take the servers in turn.")
    boolean ownerAffinity;

    @Option(names = "--subtrees", defaultValue = "1",
            description = "Top-level subtrees /bench-0../bench-(N-1) the znodes are spread over (default: ${DEFAULT-VALUE}).")
    int subtrees;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the clients' random choices (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--session-timeout", defaultValue = "30", description = "Session timeout in seconds (default: ${DEFAULT-VALUE}).")
    int sessionTimeoutSeconds;

    @Option(names = "--out", description = "JSON report file (default: standard output).")
    Path out;

    @Option(names = "--quiet", description = "No progress line.")
    boolean quiet;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream progressOut;

    public VoleryBench() {
        this(System.err);
    }

    /** For embedding: progress and the summary go to {@code progressOut}. */
    public VoleryBench(PrintStream progressOut) {
        this.progressOut = progressOut;
    }

    public static void main(String[] args) {
        // The ZooKeeper client logs every connection at INFO; keep the progress line readable.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(new CommandLine(new VoleryBench()).execute(args));
    }

    /** The run described by the options; a wrong option is reported as a usage error naming it. */
    BenchConfig config() {
        try {
            Workload w = Workload.fromCliName(workload);
            ClientKind kind = ClientKind.fromCliName(client);
            String target;
            if (kind == ClientKind.NATIVE) {
                if (clusterFile == null || connect != null) {
                    throw new IllegalArgumentException("--client native needs --cluster-file (and no --connect)");
                }
                target = clusterFile.toString();
            } else {
                if (connect == null || clusterFile != null) {
                    throw new IllegalArgumentException("--client zookeeper needs --connect (and no --cluster-file)");
                }
                target = connect;
            }
            int global = globalPercent != null ? globalPercent : (w == Workload.CREATEDELETE ? 10 : 0);
            return new BenchConfig(target, clients, outstanding, Duration.ofSeconds(durationSeconds),
                    Duration.ofSeconds(warmupSeconds), w, global, bytes, znodes, subtrees, seed,
                    Duration.ofSeconds(sessionTimeoutSeconds), !quiet, kind, clientPerSubtree, ownerAffinity, rate).validate();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        BenchConfig config = config();
        BenchReport report;
        try {
            report = new LoadGenerator(config, progressOut).run();
        } catch (IOException e) {
            progressOut.println("volery-bench: " + e.getMessage());
            return 1;
        }
        String json = report.toJson();
        if (out == null) {
            System.out.print(json);
        } else {
            try {
                Path parent = out.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(out, json, StandardCharsets.UTF_8);
            } catch (IOException e) {
                progressOut.println("volery-bench: cannot write the report to " + out + ": " + e.getMessage());
                return 1;
            }
        }
        progressOut.println(String.format(Locale.ROOT,
                "volery-bench: %s, %d clients%s: %.0f ops/s, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, errors %d, "
                        + "load generator cpu %.2f of %d cores%s",
                config.workload().cliName(), config.clients(),
                config.rate() > 0 ? String.format(Locale.ROOT, " paced at %.0f/s", config.rate()) : "", report.throughput(),
                report.latency().p50Micros() / 1000.0, report.latency().p99Micros() / 1000.0,
                report.latency().p999Micros() / 1000.0, report.errorCount(), report.averageCpuCores(),
                report.availableProcessors(), out == null ? "" : " -> " + out));
        return 0;
    }
}
