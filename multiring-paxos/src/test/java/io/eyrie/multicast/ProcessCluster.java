package io.eyrie.multicast;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Multicast nodes as real JVM processes on 127.0.0.1 (NodeMain), with their logs of deliveries and
 * acknowledged multicasts, for fault tests: kill -9, restart on the same data directory.
 */
final class ProcessCluster implements AutoCloseable {
    /**
     * Nodes 1-3 (addresses added by the user): group 1 on node 1, group 2 on node 2, both on node 3;
     * three rings (one per group and the ALL ring 0) with every node an acceptor.
     */
    static final String TWO_GROUPS = """
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
            """;

    final Path dir;
    final Path configFile;
    final Path logDir;
    final Map<Integer, int[]> groupsOfNode = new HashMap<>();
    private final Map<Integer, Process> processes = new LinkedHashMap<>();
    private final List<String> extraArgs;

    /** Three nodes, all acceptors of rings 1, 2 and ALL (0); node 1 learns group 1, node 2 group 2, node 3 both. */
    ProcessCluster(Path dir, String storage, List<String> loadArgs) throws IOException {
        this(dir, storage, loadArgs, "");
    }

    /** As above, with {@code extraConfig} lines appended to the cluster file. */
    ProcessCluster(Path dir, String storage, List<String> loadArgs, String extraConfig) throws IOException {
        this.dir = dir;
        this.logDir = dir.resolve("logs");
        this.extraArgs = loadArgs;
        Files.createDirectories(logDir);
        StringBuilder cfg = new StringBuilder();
        for (int id = 1; id <= 3; id++) {
            cfg.append("node.").append(id).append(" = 127.0.0.1:").append(freePort()).append('\n');
        }
        cfg.append(TWO_GROUPS);
        cfg.append(extraConfig);
        cfg.append("storage = ").append(storage).append('\n');
        cfg.append("dataDir = ").append(dir.resolve("data")).append('\n');
        groupsOfNode.put(1, new int[] {1});
        groupsOfNode.put(2, new int[] {2});
        groupsOfNode.put(3, new int[] {1, 2});
        configFile = dir.resolve("cluster.cfg");
        Files.writeString(configFile, cfg.toString(), StandardCharsets.UTF_8);
    }

    static int freePort() {
        return LoopbackPorts.free();
    }

    void start(int node) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        // an acceptor's rejoin (ADR 074) at INFO, whatever the test classpath's level
        cmd.add("-Dorg.slf4j.simpleLogger.log.io.eyrie.multicast.internal.protocol.RingAcceptor=info");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.eyrie.multicast.internal.tools.NodeMain");
        cmd.add("--config");
        cmd.add(configFile.toString());
        cmd.add("--node");
        cmd.add(String.valueOf(node));
        cmd.add("--log-dir");
        cmd.add(logDir.toString());
        cmd.addAll(extraArgs);
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("node-" + node + ".out").toFile()))
                .start();
        processes.put(node, p);
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed. */
    void kill9(int node) throws InterruptedException {
        Process p = processes.remove(node);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
    }

    long pid(int node) {
        return processes.get(node).pid();
    }

    boolean alive(int node) {
        Process p = processes.get(node);
        return p != null && p.isAlive();
    }

    void stopLoad() throws IOException {
        Files.writeString(logDir.resolve("stop"), "stop");
    }

    /** The deliveries logged by one incarnation (whole lines only): position and payload id. */
    List<long[]> deliveriesRaw(long pid, int node, List<String> idsOut) throws IOException {
        Path f = logDir.resolve("delivered-" + node + "-" + pid + ".log");
        List<long[]> out = new ArrayList<>();
        if (!Files.exists(f)) {
            return out;
        }
        String text = Files.readString(f, StandardCharsets.US_ASCII);
        int end = text.lastIndexOf('\n');
        if (end < 0) {
            return out;
        }
        for (String line : text.substring(0, end).split("\n")) {
            int sp = line.indexOf(' ');
            out.add(new long[] {Long.parseLong(line.substring(0, sp))});
            idsOut.add(line.substring(sp + 1));
        }
        return out;
    }

    /** Every delivery log: file name -> (ids in order, positions in order). */
    Map<String, Log> deliveryLogs() throws IOException {
        Map<String, Log> logs = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("delivered-")).sorted().toList()) {
                String[] parts = f.getFileName().toString().replace(".log", "").split("-");
                int node = Integer.parseInt(parts[1]);
                long pid = Long.parseLong(parts[2]);
                List<String> ids = new ArrayList<>();
                List<long[]> pos = deliveriesRaw(pid, node, ids);
                logs.put(f.getFileName().toString(), new Log(node, pid, ids, pos.stream().mapToLong(a -> a[0]).toArray()));
            }
        }
        return logs;
    }

    /** Every acknowledged multicast (whole lines only): payload id -> groups. */
    Map<String, int[]> acked() throws IOException {
        Map<String, int[]> acked = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("acked-")).sorted().toList()) {
                String text = Files.readString(f, StandardCharsets.US_ASCII);
                int end = text.lastIndexOf('\n');
                if (end < 0) {
                    continue;
                }
                for (String line : text.substring(0, end).split("\n")) {
                    String[] parts = line.split(" ");
                    acked.put(parts[0], java.util.Arrays.stream(parts[1].split(",")).mapToInt(Integer::parseInt).toArray());
                }
            }
        }
        return acked;
    }

    record Log(int node, long pid, List<String> ids, long[] positions) {
    }

    int deliveredBy(int node) throws IOException {
        if (!alive(node)) {
            return 0;
        }
        return deliveriesRaw(pid(node), node, new ArrayList<>()).size();
    }

    /** Every line node {@code node}'s processes wrote, across restarts. */
    String wholeOutput(int node) throws IOException {
        Path f = dir.resolve("node-" + node + ".out");
        return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
    }

    String output(int node) {
        try {
            Path f = dir.resolve("node-" + node + ".out");
            if (!Files.exists(f)) {
                return "";
            }
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Override
    public void close() {
        for (Process p : processes.values()) {
            p.destroyForcibly();
        }
        for (Process p : processes.values()) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }
}
