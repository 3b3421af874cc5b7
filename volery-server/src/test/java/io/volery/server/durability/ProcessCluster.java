package io.volery.server.durability;

import io.volery.server.admin.FourLetterWordClient;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A 2 partitions x 3 replicas Volery cluster as six child JVMs, each {@code volery start --config F
 * --node ID} (VoleryMain) on the build's classpath, with its data directory under a temp dir. Nodes
 * 1-3 are partition 1, nodes 4-6 partition 2. Stopping a node is {@code kill -9}
 * ({@link Process#destroyForcibly}); each incarnation's output is appended to {@code node-ID.log}.
 */
final class ProcessCluster implements AutoCloseable {
    static final int[] NODES = {1, 2, 3, 4, 5, 6};
    private static final String CLASSPATH = System.getProperty("java.class.path");
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    private final Path dir;
    private final Path config;
    private final Map<Integer, Integer> clientPorts = new TreeMap<>();
    /** Where each node's client port is, as this JVM reaches it (the address its host name resolves to). */
    private final Map<Integer, String> clientIps = new TreeMap<>();
    /** With host names: the nodes' hosts file (node ID's name {@code volery-ID}), else null. */
    private final Path hostsFile;
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final List<String> jvmOptions = new ArrayList<>();

    /**
     * @param storage   {@code durable} or {@code memory}
     * @param snapCount deliveries between replica snapshots
     */
    ProcessCluster(Path dir, String storage, int snapCount) throws IOException {
        this(dir, storage, snapCount, "");
    }

    /** @param extraConfig more lines of the cluster file (for example {@code eyrie.sentPositionsMax = 32\n}) */
    ProcessCluster(Path dir, String storage, int snapCount, String extraConfig) throws IOException {
        this(dir, storage, snapCount, extraConfig, false);
    }

    /**
     * Nodes named in the cluster file by host names ({@code volery-ID}) instead of 127.0.0.1: the nodes' JVMs
     * resolve them through a hosts file of this cluster ({@code -Djdk.net.hosts.file}, looked up again after a
     * second), node ID's name first to 127.0.0.(10 + ID); {@link #pointName} moves a name, as DNS does for a
     * replaced machine or a rescheduled pod.
     */
    static ProcessCluster named(Path dir, String storage, int snapCount) throws IOException {
        return new ProcessCluster(dir, storage, snapCount, "", true);
    }

    private ProcessCluster(Path dir, String storage, int snapCount, String extraConfig, boolean named) throws IOException {
        this.dir = dir;
        this.hostsFile = named ? dir.resolve("hosts") : null;
        for (int id : NODES) {
            clientIps.put(id, named ? "127.0.0." + (10 + id) : "127.0.0.1");
        }
        if (named) {
            writeHosts();
            jvmOptions.add("-Djdk.net.hosts.file=" + hostsFile);
            jvmOptions.add("-Dsun.net.inetaddr.ttl=1");
            jvmOptions.add("-Dsun.net.inetaddr.negative.ttl=0");
        }
        List<Integer> ports = freePorts(2 * NODES.length);
        StringBuilder cfg = new StringBuilder();
        for (int id : NODES) {
            clientPorts.put(id, ports.get(NODES.length + id - 1));
            cfg.append("node.").append(id).append(" = ").append(named ? "volery-" + id : "127.0.0.1").append(':')
                    .append(ports.get(id - 1)).append('\n');
            cfg.append("node.").append(id).append(".groups = ").append(partitionOf(id)).append('\n');
            cfg.append("node.").append(id).append(".clientPort = ").append(clientPorts.get(id)).append('\n');
        }
        cfg.append("""
                ring.1.acceptors = 1,2,3
                ring.2.acceptors = 4,5,6
                ring.0.acceptors = 1,4,2
                group.1.ring = 1
                group.2.ring = 2
                ring.all = 0
                tickTime = 2000
                minSessionTimeout = 4000
                maxSessionTimeout = 40000
                jute.maxbuffer = 131072
                batch.maxBytes = 262144
                """);
        cfg.append("storage = ").append(storage).append('\n');
        cfg.append("dataDir = ").append(dir.resolve("data")).append('\n');
        cfg.append("snapCount = ").append(snapCount).append('\n');
        cfg.append(extraConfig);
        this.config = dir.resolve("volery.cfg");
        Files.writeString(config, cfg);
    }

    /** A JVM option (a {@code -D} test setting) for every node started from now on. */
    void jvmOption(String option) {
        jvmOptions.add(option);
    }

    /**
     * Moves node {@code id} to fresh ring and client ports in the cluster file, as when its machine is replaced by
     * one at another address (ADR 102); running nodes read the file again within seconds. Returns the new client port.
     */
    int moveNode(int id) throws IOException {
        List<Integer> ports = freePorts(2);
        String text = Files.readString(config)
                .replaceAll("(?m)^node\\." + id + " = 127\\.0\\.0\\.1:\\d+$", "node." + id + " = 127.0.0.1:" + ports.get(0))
                .replaceAll("(?m)^node\\." + id + "\\.clientPort = \\d+$", "node." + id + ".clientPort = " + ports.get(1));
        rewriteConfig(text);
        clientPorts.put(id, ports.get(1));
        return ports.get(1);
    }

    /** Points node {@code id}'s host name at {@code ip} (a cluster made by {@link #named}), in one rename. */
    void pointName(int id, String ip) throws IOException {
        clientIps.put(id, ip);
        writeHosts();
    }

    private void writeHosts() throws IOException {
        StringBuilder b = new StringBuilder("127.0.0.1 localhost\n");
        for (int id : NODES) {
            b.append(clientIps.get(id)).append(" volery-").append(id).append('\n');
        }
        Path next = dir.resolve("hosts.next");
        Files.writeString(next, b);
        Files.move(next, hostsFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** Replaces the cluster file with {@code text} in one rename, as a configuration tool would. */
    void rewriteConfig(String text) throws IOException {
        Path next = dir.resolve("volery.cfg.next");
        Files.writeString(next, text);
        Files.move(next, config, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    static int partitionOf(int node) {
        return node <= 3 ? 1 : 2;
    }

    static int[] replicasOf(int partition) {
        return partition == 1 ? new int[] {1, 2, 3} : new int[] {4, 5, 6};
    }

    Path config() {
        return config;
    }

    /** Starts every node and waits until each answers {@code ruok}. */
    void startAll() throws Exception {
        for (int id : NODES) {
            spawn(id);
        }
        for (int id : NODES) {
            awaitServing(id);
        }
    }

    void start(int id) throws Exception {
        spawn(id);
        awaitServing(id);
    }

    private void spawn(int id) throws IOException {
        if (processes.containsKey(id) && processes.get(id).isAlive()) {
            throw new IllegalStateException("node " + id + " is running");
        }
        List<String> cmd = new ArrayList<>(List.of(JAVA, "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", CLASSPATH, "io.volery.server.VoleryMain", "start", "--config", config.toString(),
                "--node", String.valueOf(id)));
        Path log = log(id);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        processes.put(id, p);
    }

    private void awaitServing(int id) throws Exception {
        await("node " + id + " answers ruok (log: " + log(id) + ")", 60_000, () -> {
            if (!processes.get(id).isAlive()) {
                fail("node " + id + " exited with status " + processes.get(id).exitValue() + "; its log:\n" + tail(id));
            }
            try {
                return FourLetterWordClient.ask(clientAddress(id), "ruok", 1000).startsWith("imok");
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** kill -9. */
    void kill(int id) throws InterruptedException {
        Process p = processes.get(id);
        p.destroyForcibly();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + id + " did not die on kill -9");
        }
    }

    void killAll() throws InterruptedException {
        for (Process p : processes.values()) {
            p.destroyForcibly();
        }
        for (int id : processes.keySet()) {
            kill(id);
        }
    }

    /** The node whose client port {@code zk} is connected to. */
    int nodeServing(org.apache.zookeeper.ZooKeeper zk) {
        int port = io.volery.server.ServerOfClient.port(zk);
        for (int id : NODES) {
            if (clientAddress(id).getPort() == port) {
                return id;
            }
        }
        throw new AssertionError("port " + port + " is no node's client port: " + zk);
    }

    InetSocketAddress clientAddress(int id) {
        return new InetSocketAddress(clientIps.get(id), clientPorts.get(id));
    }

    String connectString() {
        return clientPorts.keySet().stream().map(this::connectString).collect(Collectors.joining(","));
    }

    String connectString(int id) {
        return clientIps.get(id) + ":" + clientPorts.get(id);
    }

    /** A ZooKeeper session with node {@code id} alone; on failure the node's log tail is in the error. */
    org.apache.zookeeper.ZooKeeper session(int id) throws Exception {
        try {
            return AcknowledgedWrites.connect(connectString(id));
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; node " + id + " log:\n" + tail(id), e);
        }
    }

    Map<String, String> mntr(int id) throws IOException {
        return FourLetterWordClient.parseMntr(FourLetterWordClient.ask(clientAddress(id), "mntr", 15_000));
    }

    /** A numeric mntr value of node {@code id}, or -1 when the node does not answer or lacks the key. */
    long counter(int id, String key) {
        try {
            return Long.parseLong(mntr(id).getOrDefault(key, "-1"));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The position of the last command delivered to node {@code id}'s replica ({@code volery_position}). */
    long position(int id) throws IOException {
        String[] f = mntr(id).get("volery_position").split("\\.");
        return io.eyrie.multicast.Position.of(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
                Integer.parseInt(f[3]));
    }

    /** Waits until node {@code id}'s replica has executed everything up to {@code position} (a restart replays). */
    void awaitExecuted(int id, long position) throws InterruptedException {
        await("node " + id + " executed up to position " + io.eyrie.multicast.Position.toString(position), 60_000, () -> {
            try {
                return position(id) >= position && "0".equals(mntr(id).get("volery_deliveries_waiting"));
            } catch (IOException | RuntimeException e) {
                return false;
            }
        });
    }

    /** Whether node {@code id}'s acceptor of {@code ring} has joined it (ADR 074); false if the node does not answer. */
    boolean acceptorJoined(int id, int ring) {
        try {
            return "0".equals(mntr(id).get("volery_ring_" + ring + "_acceptor_rejoining"));
        } catch (IOException e) {
            return false;
        }
    }

    Path nodeData(int id) {
        return dir.resolve("data").resolve("node-" + id);
    }

    Path log(int id) {
        return dir.resolve("node-" + id + ".log");
    }

    String tail(int id) {
        try {
            List<String> lines = Files.readAllLines(log(id));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** The newest snapshot files of a node, oldest first. */
    List<Path> snapshots(int id) throws IOException {
        Path d = nodeData(id).resolve("snapshots");
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".kryo")).sorted().toList();
        }
    }

    /** A node's recent state digests by command position ({@code dgst}). */
    Map<String, String> digests(int id) throws IOException {
        Map<String, String> byPosition = new TreeMap<>();
        for (String line : FourLetterWordClient.ask(clientAddress(id), "dgst", 15_000).split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length == 2) {
                byPosition.put(f[0], f[1]);
            }
        }
        return byPosition;
    }

    /**
     * Waits until the replicas of {@code partition} have digested their state at a common command
     * position, and checks that they agree at every position they share. Returns the number of
     * shared positions compared.
     */
    int assertReplicasAgree(int partition) throws Exception {
        int[] replicas = replicasOf(partition);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<Integer, Map<String, String>> all = new TreeMap<>();
        while (System.nanoTime() < deadline) {
            for (int id : replicas) {
                all.put(id, digests(id));
            }
            java.util.Set<String> common = new java.util.TreeSet<>(all.get(replicas[0]).keySet());
            for (int id : replicas) {
                common.retainAll(all.get(id).keySet());
            }
            if (!common.isEmpty()) {
                for (String position : common) {
                    String reference = all.get(replicas[0]).get(position);
                    for (int id : replicas) {
                        assertEquals(reference, all.get(id).get(position), "partition " + partition + ": replica " + id
                                + " holds another state than replica " + replicas[0] + " after the command at position "
                                + position);
                    }
                }
                return common.size();
            }
        }
        throw new AssertionError("partition " + partition + ": replicas never digested a common position; last: " + all);
    }

    static void await(String what, long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + millis + " ms waiting until " + what);
            }
            Thread.sleep(50);
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
    }

    private static List<Integer> freePorts(int n) throws IOException {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ports.add(io.volery.server.VoleryCluster.freePort());
        }
        return ports;
    }
}
