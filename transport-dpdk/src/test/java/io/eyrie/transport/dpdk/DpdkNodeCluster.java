package io.eyrie.transport.dpdk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Three multicast nodes as JVM processes (the multicast module's NodeMain) on the DPDK transport,
 * each acceptor of rings 1, 2 and ALL; node 1 learns group 1, node 2 group 2, node 3 both. The
 * caller gives each node's DPDK settings and the command prefix that places it (e.g. ip netns exec).
 */
final class DpdkNodeCluster implements AutoCloseable {
    static final int NODES = 3;

    final Path dir;
    final Path configFile;
    final Path logDir;
    final Map<Integer, ChildJvm> processes = new LinkedHashMap<>();
    private final IntFunction<List<String>> prefix;
    private final List<String> loadArgs;

    DpdkNodeCluster(Path dir, IntFunction<String> dpdkSettings, IntFunction<List<String>> prefix, List<String> loadArgs)
            throws IOException {
        this(dir, dpdkSettings, prefix, loadArgs, "memory");
    }

    DpdkNodeCluster(Path dir, IntFunction<String> dpdkSettings, IntFunction<List<String>> prefix, List<String> loadArgs,
                    String storage) throws IOException {
        this.dir = dir;
        this.prefix = prefix;
        this.loadArgs = loadArgs;
        this.logDir = dir.resolve("logs");
        Files.createDirectories(logDir);
        StringBuilder cfg = new StringBuilder();
        for (int id = 1; id <= NODES; id++) {
            cfg.append("node.").append(id).append(" = ").append(ip(id)).append(':').append(9000 + id).append('\n');
            Files.writeString(dir.resolve("dpdk-" + id + ".properties"), dpdkSettings.apply(id));
        }
        cfg.append("""
                node.1.groups = 1
                node.2.groups = 2
                node.3.groups = 1,2
                ring.1.acceptors = 1,2,3
                ring.2.acceptors = 1,2,3
                ring.0.acceptors = 1,2,3
                group.1.ring = 1
                group.2.ring = 2
                ring.all = 0
                timeout.heartbeatMillis = 50
                timeout.suspectMillis = 400
                # A lost fragment loses its whole message (no per-fragment repair): batches of at
                # most 12 packets keep catch-up working on a lossy link.
                batch.maxBytes = 16384
                """);
        cfg.append("storage = ").append(storage).append("\ndataDir = ").append(dir.resolve("data")).append('\n');
        configFile = dir.resolve("cluster.cfg");
        Files.writeString(configFile, cfg.toString());
    }

    static String ip(int node) {
        return "10.77.0." + node;
    }

    /** memif links between every pair: node i serves the link to every j above it. */
    static String memifMesh(Path dir, int node, String extra) {
        StringBuilder eal = new StringBuilder();
        List<String> ports = new ArrayList<>();
        StringBuilder peers = new StringBuilder();
        int k = 0;
        for (int other = 1; other <= NODES; other++) {
            if (other == node) {
                continue;
            }
            int lo = Math.min(node, other);
            int hi = Math.max(node, other);
            String dev = "net_memif" + k++;
            eal.append(" --vdev=").append(dev).append(",role=").append(node == lo ? "server" : "client")
                    .append(",id=0,socket-abstract=no,socket=").append(dir.resolve("memif-" + lo + "-" + hi + ".sock"));
            ports.add(dev);
            peers.append("port.").append(dev).append(".peers = ").append(other).append('\n');
        }
        return "eal.args =" + eal + "\nports = " + String.join(",", ports) + "\n" + peers + extra;
    }

    void start(int node) throws IOException {
        List<String> jvm = List.of("-Deyrie.transport.factory=" + DpdkTransportFactory.class.getName(),
                "-D" + DpdkTransportFactory.CONFIG_PROPERTY + "=" + dir.resolve("dpdk-" + node + ".properties"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        List<String> args = new ArrayList<>(List.of("--config", configFile.toString(), "--node", String.valueOf(node),
                "--log-dir", logDir.toString()));
        args.addAll(loadArgs);
        processes.put(node, new ChildJvm(prefix.apply(node), jvm, "io.eyrie.multicast.internal.tools.NodeMain",
                args.toArray(new String[0])));
    }

    /**
     * Starts the nodes in id order, each once the previous one runs: a memif client must find its
     * server's socket (node i serves the links to nodes above it).
     */
    void startAll() throws IOException, InterruptedException {
        for (int n = 1; n <= NODES; n++) {
            start(n);
            ChildJvm p = processes.get(n);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (p.lines.stream().noneMatch(l -> l.startsWith("node ") && l.endsWith(" started"))) {
                if (!p.process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("node " + n + " did not start:\n" + p.output());
                }
                Thread.sleep(20);
            }
        }
    }

    void kill(int node) throws InterruptedException {
        ChildJvm p = processes.remove(node);
        p.process.destroyForcibly();
        p.awaitExit(10);
    }

    void stopLoad() throws IOException {
        Files.writeString(logDir.resolve("stop"), "");
    }

    /** Node → payload id → position, from every delivered log of that node (all its incarnations). */
    Map<Integer, Map<String, String>> deliveries() throws IOException {
        Map<Integer, Map<String, String>> out = new HashMap<>();
        for (int id = 1; id <= NODES; id++) {
            Map<String, String> m = new HashMap<>();
            for (String line : linesOf("delivered-" + id + "-")) {
                String[] f = line.split(" ");
                if (f.length == 2) {
                    m.put(f[1], f[0]);
                }
            }
            out.put(id, m);
        }
        return out;
    }

    /** Lines of the delivered log of {@code node} that name a payload delivered twice (should be none). */
    List<String> duplicateDeliveries(int node) throws IOException {
        List<String> dups = new ArrayList<>();
        // Per log file: a restarted learner replays from the start, in a new file.
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().startsWith("delivered-" + node + "-")).toList()) {
                Set<String> seen = new HashSet<>();
                for (String line : Files.readAllLines(p, StandardCharsets.US_ASCII)) {
                    String[] f = line.split(" ");
                    if (f.length == 2 && !seen.add(f[1])) {
                        dups.add(p.getFileName() + ": " + line);
                    }
                }
            }
        }
        return dups;
    }

    /** Payloads delivered at different positions by different logs (should be none). */
    List<String> positionConflicts() throws IOException {
        Map<String, String> first = new HashMap<>();
        List<String> conflicts = new ArrayList<>();
        for (String line : linesOf("delivered-")) {
            String[] f = line.split(" ");
            if (f.length == 2) {
                String before = first.putIfAbsent(f[1], f[0]);
                if (before != null && !before.equals(f[0])) {
                    conflicts.add(f[1] + " at " + before + " and " + f[0]);
                }
            }
        }
        return conflicts;
    }

    /** Deliveries node {@code node} logged in all its incarnations. */
    int deliveredBy(int node) throws IOException {
        return linesOf("delivered-" + node + "-").size();
    }

    /** Acknowledged multicasts: payload id → groups. */
    Map<String, int[]> acked() throws IOException {
        Map<String, int[]> out = new HashMap<>();
        for (String line : linesOf("acked-")) {
            String[] f = line.split(" ");
            if (f.length == 2) {
                out.put(f[0], Stream.of(f[1].split(",")).mapToInt(Integer::parseInt).toArray());
            }
        }
        return out;
    }

    /** Acked multicasts a node that learns {@code groups} has not delivered. */
    List<String> missing(Map<String, int[]> acked, Map<String, String> delivered, int[] groups) {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, int[]> e : acked.entrySet()) {
            boolean mine = false;
            for (int g : e.getValue()) {
                for (int h : groups) {
                    mine |= g == h;
                }
            }
            if (mine && !delivered.containsKey(e.getKey())) {
                missing.add(e.getKey());
            }
        }
        return missing;
    }

    static int[] groupsOf(int node) {
        return switch (node) {
            case 1 -> new int[] {1};
            case 2 -> new int[] {2};
            default -> new int[] {1, 2};
        };
    }

    private List<String> linesOf(String prefix) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList()) {
                for (String l : Files.readAllLines(p, StandardCharsets.US_ASCII)) {
                    lines.add(l);
                }
            }
        }
        return lines;
    }

    String output() {
        StringBuilder b = new StringBuilder();
        processes.forEach((id, p) -> {
            List<String> lines = List.copyOf(p.lines);
            b.append("--- node ").append(id).append(" (last lines)\n");
            lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> b.append(l).append('\n'));
        });
        return b.toString();
    }

    @Override
    public void close() throws InterruptedException {
        for (ChildJvm p : processes.values()) {
            p.close();
        }
    }
}
