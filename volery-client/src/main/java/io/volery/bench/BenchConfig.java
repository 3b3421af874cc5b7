package io.volery.bench;

import java.time.Duration;
import java.util.Objects;

/**
 * What one benchmark run does. {@link #validate()} names the option that is wrong, so the command
 * line and programmatic callers get the same messages.
 *
 * @param connect ZooKeeper connect string, e.g. {@code 127.0.0.1:2181,127.0.0.1:2182}, or several
 *                independent ensembles separated by {@code |} (see {@link ShardedTarget}); for the native
 *                client, the path of the Volery cluster file
 * @param clients number of ZooKeeper sessions, each with its own window of outstanding requests
 * @param outstanding most requests in flight per client (the paper uses 25)
 * @param duration measured time, after the warm-up
 * @param warmup time before measuring; its requests are not counted
 * @param workload the request mix
 * @param globalPercent share of requests that are {@code create} or {@code delete} (createdelete only)
 * @param bytes payload of every {@code setData} and {@code create}
 * @param znodes number of pre-created znodes the local commands pick from
 * @param subtrees number of top-level subtrees {@code /bench-0 .. /bench-(N-1)} the znodes are spread over
 * @param seed seed of the clients' random choices (client i uses {@code seed + i})
 * @param sessionTimeout ZooKeeper session timeout asked for by every client
 * @param progress whether to print a progress line per second on stderr
 * @param client which client library drives the service
 * @param clientPerSubtree whether client i keeps to subtree {@code i mod subtrees} for its setData and getData
 *                         (the paper's local commands: each client works in one partition) instead of
 *                         picking znodes of every subtree
 * @param ownerAffinity with {@code clientPerSubtree}: client i's session starts at a server of the Volery
 *                      partition owning its subtree (see {@link OwnerAffinity}); otherwise sessions take the
 *                      servers in turn
 * @param rate 0 for a closed loop (each client keeps its window full); otherwise the requests started per
 *             second by all clients together, each client on its own fixed schedule, its window still
 *             bounding what it has in flight, and every latency counted from the request's scheduled start
 *             (so a server that falls behind shows in the latencies, not in a slower schedule)
 */
public record BenchConfig(
        String connect,
        int clients,
        int outstanding,
        Duration duration,
        Duration warmup,
        Workload workload,
        int globalPercent,
        int bytes,
        int znodes,
        int subtrees,
        long seed,
        Duration sessionTimeout,
        boolean progress,
        ClientKind client,
        boolean clientPerSubtree,
        boolean ownerAffinity,
        double rate) {

    /** Upper bound of a payload; ZooKeeper's default jute.maxbuffer is about 1 MiB. */
    public static final int MAX_BYTES = 1_000_000;

    public BenchConfig {
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(client, "client");
    }

    /** A run of the ZooKeeper client. */
    public BenchConfig(String connect, int clients, int outstanding, Duration duration, Duration warmup,
                       Workload workload, int globalPercent, int bytes, int znodes, int subtrees, long seed,
                       Duration sessionTimeout, boolean progress) {
        this(connect, clients, outstanding, duration, warmup, workload, globalPercent, bytes, znodes, subtrees, seed,
                sessionTimeout, progress, ClientKind.ZOOKEEPER, false, false, 0);
    }

    /** The same run driven by {@code kind}; {@code target} is its connect string or cluster file. */
    public BenchConfig withClient(ClientKind kind, String target) {
        return new BenchConfig(target, clients, outstanding, duration, warmup, workload, globalPercent, bytes,
                znodes, subtrees, seed, sessionTimeout, progress, kind, clientPerSubtree, ownerAffinity, rate);
    }

    /** A configuration with the paper's defaults: 25 outstanding, 100-byte payloads, 1000 znodes in 1 subtree. */
    public static BenchConfig defaults(String connect, Workload workload) {
        return new BenchConfig(connect, 4, 25, Duration.ofSeconds(30), Duration.ofSeconds(10), workload,
                workload == Workload.CREATEDELETE ? 10 : 0, 100, 1000, 1, 1L, Duration.ofSeconds(30), true);
    }

    public BenchConfig withClients(int n) {
        return new BenchConfig(connect, n, outstanding, duration, warmup, workload, globalPercent, bytes,
                znodes, subtrees, seed, sessionTimeout, progress, client, clientPerSubtree, ownerAffinity, rate);
    }

    public BenchConfig withTimes(Duration newWarmup, Duration newDuration) {
        return new BenchConfig(connect, clients, outstanding, newDuration, newWarmup, workload, globalPercent,
                bytes, znodes, subtrees, seed, sessionTimeout, progress, client, clientPerSubtree, ownerAffinity, rate);
    }

    public BenchConfig withShape(int newBytes, int newZnodes, int newSubtrees, int newGlobalPercent) {
        return new BenchConfig(connect, clients, outstanding, duration, warmup, workload, newGlobalPercent,
                newBytes, newZnodes, newSubtrees, seed, sessionTimeout, progress, client, clientPerSubtree, ownerAffinity, rate);
    }

    /** Client i keeps to subtree {@code i mod subtrees} (see the record's documentation). */
    public BenchConfig withClientPerSubtree(boolean on) {
        return new BenchConfig(connect, clients, outstanding, duration, warmup, workload, globalPercent, bytes,
                znodes, subtrees, seed, sessionTimeout, progress, client, on, ownerAffinity, rate);
    }

    /** Client i's session starts at a server of the partition owning its subtree (see the record's documentation). */
    public BenchConfig withOwnerAffinity(boolean on) {
        return new BenchConfig(connect, clients, outstanding, duration, warmup, workload, globalPercent, bytes,
                znodes, subtrees, seed, sessionTimeout, progress, client, clientPerSubtree, on, rate);
    }

    /** Requests started per second by all clients together; 0 keeps the closed loop (see the record's documentation). */
    public BenchConfig withRate(double opsPerSecond) {
        return new BenchConfig(connect, clients, outstanding, duration, warmup, workload, globalPercent, bytes,
                znodes, subtrees, seed, sessionTimeout, progress, client, clientPerSubtree, ownerAffinity, opsPerSecond);
    }

    /** Nanoseconds between the scheduled starts of one client's requests, or 0 for a closed loop. */
    public long clientIntervalNanos() {
        return rate > 0 ? Math.max(1, Math.round(clients * 1e9 / rate)) : 0;
    }

    public BenchConfig withProgress(boolean show) {
        return new BenchConfig(connect, clients, outstanding, duration, warmup, workload, globalPercent, bytes,
                znodes, subtrees, seed, sessionTimeout, show, client, clientPerSubtree, ownerAffinity, rate);
    }

    /** Throws {@link IllegalArgumentException} naming the option that is out of range. */
    public BenchConfig validate() {
        require(!connect.isBlank(), client == ClientKind.NATIVE ? "--cluster-file must name the Volery cluster file"
                : "--connect must name at least one host:port");
        require(clients >= 1, "--clients must be at least 1, was " + clients);
        require(outstanding >= 1, "--outstanding must be at least 1, was " + outstanding);
        require(duration.toMillis() >= 1000 && duration.toMillis() % 1000 == 0,
                "--duration must be a whole number of seconds, at least 1, was " + duration);
        require(!warmup.isNegative() && warmup.toMillis() % 1000 == 0,
                "--warmup must be a whole number of seconds, 0 or more, was " + warmup);
        require(globalPercent >= 0 && globalPercent <= 100,
                "--global-percent must be between 0 and 100, was " + globalPercent);
        require(globalPercent == 0 || workload == Workload.CREATEDELETE,
                "--global-percent applies to --workload createdelete only (was " + workload.cliName() + ")");
        require(bytes >= 0 && bytes <= MAX_BYTES, "--bytes must be between 0 and " + MAX_BYTES + ", was " + bytes);
        require(znodes >= 1, "--znodes must be at least 1, was " + znodes);
        require(rate >= 0 && Double.isFinite(rate), "--rate must be 0 (closed loop) or a positive number of requests a second, was " + rate);
        require(!ownerAffinity || clientPerSubtree, "--owner-affinity needs --client-per-subtree");
        require(!ownerAffinity || client == ClientKind.ZOOKEEPER,
                "--owner-affinity applies to --client zookeeper (the native client reaches the rings itself)");
        require(!ShardedTarget.isSharded(connect) || client == ClientKind.ZOOKEEPER,
                "several ensembles in --connect (separated by '|') apply to --client zookeeper only");
        require(!ShardedTarget.isSharded(connect)
                        || ShardedTarget.ensembles(connect).stream().noneMatch(String::isEmpty),
                "--connect has an empty ensemble between '|' separators: " + connect);
        require(subtrees >= 1 && subtrees <= znodes,
                "--subtrees must be between 1 and --znodes (" + znodes + "), was " + subtrees);
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
