package io.volery.server;

import io.eyrie.multicast.ClusterConfig;
import io.volery.server.admin.FourLetterWordClient;
import io.volery.server.config.VoleryConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** The {@code volery} command: {@code dev}, {@code start}, {@code status}. */
@Command(name = "volery", mixinStandardHelpOptions = true, version = "volery 0.1.0-SNAPSHOT (ZooKeeper 3.9.5 protocol)",
        description = "Volery: a ZooKeeper-compatible service on Scalable State-Machine Replication.",
        subcommands = {VoleryMain.Dev.class, VoleryMain.Start.class, VoleryMain.Status.class})
public final class VoleryMain implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with Volery's error handling: a bad configuration is one clear line, not a trace. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new VoleryMain());
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof ClusterConfig.ConfigException || e instanceof IOException) {
                line.getErr().println("volery: configuration error: " + e.getMessage());
                return 2;
            }
            if (e instanceof IllegalStateException || e instanceof IllegalArgumentException) {
                line.getErr().println("volery: " + e.getMessage());
                return 1;
            }
            throw e;
        });
        return cl;
    }

    /** The nodes that serve ZooKeeper clients, as {@code /zookeeper/config} lists them (ADR 097). */
    static List<io.volery.server.tree.EnsembleConfig.Member> ensembleOf(VoleryConfig c) {
        List<io.volery.server.tree.EnsembleConfig.Member> members = new ArrayList<>();
        for (VoleryConfig.NodeSettings n : c.nodes().values()) {
            if (n.clientPort() != 0) {
                io.eyrie.multicast.ClusterConfig.Node ring = c.cluster().node(n.id());
                java.net.InetSocketAddress client = c.advertisedClientAddress(n.id());
                members.add(new io.volery.server.tree.EnsembleConfig.Member(n.id(), ring.host(), ring.port(),
                        client.getHostString(), client.getPort()));
            }
        }
        return members;
    }

    /** The node ids of the other replicas of {@code node}'s partition (asked for a snapshot when it has no usable one). */
    static List<Integer> peersOf(VoleryConfig c, int node) {
        List<Integer> peers = new ArrayList<>();
        for (VoleryConfig.NodeSettings n : c.nodes().values()) {
            if (n.id() != node && c.partitionOf(n.id()) == c.partitionOf(node)) {
                peers.add(n.id());
            }
        }
        return peers;
    }

    /** Keeps the process alive until it is told to stop, then closes {@code resource}. */
    private static int serveUntilStopped(AutoCloseable resource) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                resource.close();
            } catch (Exception e) {
                System.err.println("volery: error while stopping: " + e);
            }
            stopped.countDown();
        }, "volery-shutdown"));
        stopped.await();
        return 0;
    }

    @Command(name = "dev", mixinStandardHelpOptions = true,
            description = "An embedded cluster in this JVM (in-memory acceptors) serving ZooKeeper clients on 127.0.0.1.")
    static final class Dev implements Callable<Integer> {
        @Option(names = "--partitions", defaultValue = "2", description = "partitions (default ${DEFAULT-VALUE})")
        int partitions;
        @Option(names = "--replicas", defaultValue = "3", description = "replicas per partition (default ${DEFAULT-VALUE})")
        int replicas;
        @Option(names = "--port", defaultValue = "2181",
                description = "the first node's client port; the others follow (default ${DEFAULT-VALUE}; 0: free ports)")
        int port;
        @Option(names = "--metrics-port", defaultValue = "-1",
                description = "the first node's Prometheus port; the others follow (default: off; 0: free ports)")
        int metricsPort;
        @Option(names = "--admin-port", defaultValue = "-1",
                description = "the first node's AdminServer port (/commands); the others follow (default: off; 0: free ports)")
        int adminPort;
        @Option(names = "--tick", defaultValue = "2000", description = "tickTime in ms (default ${DEFAULT-VALUE})")
        int tick;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (partitions < 1 || replicas < 1) {
                throw new IllegalArgumentException("--partitions and --replicas must be at least 1");
            }
            VoleryCluster cluster = new VoleryCluster(partitions, replicas, port, tick, metricsPort, adminPort);
            PrintWriter out = spec.commandLine().getOut();
            out.println("Volery dev cluster: " + partitions + " partition(s) x " + replicas + " replica(s), in memory");
            for (VoleryNode n : cluster.nodes()) {
                out.println("  node " + n.nodeId() + ": partition " + n.monitor().facts().partition() + ", client port "
                        + n.clientAddress().getPort()
                        + (n.metricsAddress() == null ? "" : ", metrics http://127.0.0.1:" + n.metricsAddress().getPort() + "/metrics")
                        + (n.adminAddress() == null ? "" : ", admin http://127.0.0.1:" + n.adminAddress().getPort() + "/commands"));
            }
            out.println("connect string: " + cluster.connectString());
            out.println("try: zkCli.sh -server " + cluster.connectString() + "   (stop with Ctrl-C)");
            out.flush();
            return serveUntilStopped(cluster);
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "One node of a cluster described by a configuration file.")
    static final class Start implements Callable<Integer> {
        @Option(names = "--config", required = true, description = "the cluster's configuration file")
        Path config;
        @Option(names = "--node", required = true, description = "this node's id in the file")
        int node;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            VoleryConfig c = VoleryConfig.load(config);
            c.node(node);
            if (c.logDir() != null) {
                // Appended to, as ZooKeeper's log is: a restart after a crash keeps the crash's lines (slf4j-simple
                // truncates a logFile it opens). Its default target is standard error, looked up at each line;
                // JVM errors printed there land in the same file.
                Files.createDirectories(c.logDir());
                System.setErr(new java.io.PrintStream(new java.io.FileOutputStream(
                        c.logDir().resolve("volery-" + node + ".log").toFile(), true), true,
                        java.nio.charset.StandardCharsets.UTF_8));
            }
            VoleryNode n = new VoleryNode(c.cluster(), node, VoleryNode.Options.of(c, node), c.snapCount(),
                    peersOf(c, node), c.sentPositionsMax(), java.time.Duration.ofSeconds(c.snapMaxAgeSeconds()));
            n.publishEnsemble(ensembleOf(c));
            PrintWriter out = spec.commandLine().getOut();
            out.println("Volery node " + node + " (partition " + c.partitionOf(node) + ") serving ZooKeeper clients on "
                    + n.clientAddress().getHostString() + ":" + n.clientAddress().getPort()
                    + (n.metricsAddress() == null ? "" : "; metrics on port " + n.metricsAddress().getPort())
                    + (n.adminAddress() == null ? "" : "; admin commands on http://" + n.adminAddress().getHostString()
                    + ":" + n.adminAddress().getPort() + "/commands"));
            out.flush();
            // other nodes moved in the file (a machine replaced) are dialled at their new addresses (ADR 102)
            ClusterFileWatcher watcher = new ClusterFileWatcher(config, c.text(), node, n).start();
            return serveUntilStopped(() -> {
                watcher.close();
                n.close();
            });
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "Each node's role, partition, rings, position and lag (asked with mntr on its client port).")
    static final class Status implements Callable<Integer> {
        @Option(names = "--config", required = true, description = "the cluster's configuration file")
        Path config;
        @Option(names = "--timeout", defaultValue = "3000", description = "per-node timeout in ms (default ${DEFAULT-VALUE})")
        int timeoutMillis;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            VoleryConfig c = VoleryConfig.load(config);
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-5s %-9s %-10s %-12s %-18s %s%n", "node", "partition", "role", "address", "position", "rings (coordinator/decided/lag)");
            int down = 0;
            for (VoleryConfig.NodeSettings n : c.nodes().values()) {
                String host = n.clientHost().equals("0.0.0.0") ? c.cluster().node(n.id()).host() : n.clientHost();
                String address = host + ":" + n.clientPort();
                Map<String, String> m;
                try {
                    m = FourLetterWordClient.parseMntr(
                            FourLetterWordClient.ask(new InetSocketAddress(host, n.clientPort()), "mntr", timeoutMillis));
                } catch (IOException e) {
                    down++;
                    out.printf("%-5d %-9d %-10s %-12s unreachable: %s%n", n.id(), c.partitionOf(n.id()), "-", address, e.getMessage());
                    continue;
                }
                List<String> rings = new ArrayList<>();
                for (int ring : c.cluster().rings().keySet()) {
                    String p = "volery_ring_" + ring + "_";
                    if (m.containsKey(p + "decided")) {
                        rings.add("ring " + ring + ": " + m.get(p + "coordinator") + "/" + m.get(p + "decided") + "/" + m.get(p + "lag")
                                + ("1".equals(m.get(p + "acceptor_rejoining")) ? " (acceptor rejoining)" : ""));
                    }
                }
                out.printf("%-5d %-9s %-10s %-12s %-18s %s%n", n.id(), m.getOrDefault("volery_partition", "?"),
                        m.getOrDefault("zk_server_state", "?"), address, m.getOrDefault("volery_position", "?"),
                        String.join(", ", rings));
            }
            out.flush();
            return down == 0 ? 0 : 3;
        }
    }
}
