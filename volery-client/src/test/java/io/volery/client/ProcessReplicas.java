package io.volery.client;

import io.volery.server.VoleryCluster;
import io.volery.server.admin.FourLetterWordClient;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * One Volery partition of three replicas as child JVMs ({@code VoleryMain start --config F --node ID} on the
 * build's classpath), in-memory acceptors, on free loopback ports, and {@code clientNodes} native-client nodes
 * (4, 5, ...) in the cluster file. Node 1 is the first acceptor of both rings: the coordinator while it lives.
 * {@link #kill} is {@code kill -9}; each node's output goes to {@code node-ID.log} under the directory.
 */
public final class ProcessReplicas implements AutoCloseable {
    public static final int REPLICAS = 3;

    private final Path dir;
    private final Path config;
    private final int[] clientPorts = new int[REPLICAS];
    private final List<Process> nodes = new ArrayList<>();

    public ProcessReplicas(Path dir, int clientNodes) throws Exception {
        this.dir = dir;
        StringBuilder cfg = new StringBuilder();
        for (int id = 1; id <= REPLICAS; id++) {
            clientPorts[id - 1] = VoleryCluster.freePort();
            cfg.append("node.").append(id).append(" = 127.0.0.1:").append(VoleryCluster.freePort()).append('\n');
            cfg.append("node.").append(id).append(".groups = 1\n");
            cfg.append("node.").append(id).append(".clientPort = ").append(clientPorts[id - 1]).append('\n');
        }
        for (int id = REPLICAS + 1; id <= REPLICAS + clientNodes; id++) {
            cfg.append("node.").append(id).append(" = 127.0.0.1:").append(VoleryCluster.freePort()).append('\n');
        }
        cfg.append("""
                ring.1.acceptors = 1,2,3
                group.1.ring = 1
                ring.0.acceptors = 1,2,3
                ring.all = 0
                tickTime = 2000
                storage = memory
                batch.maxBytes = 1114111
                """);
        this.config = dir.resolve("volery.cfg");
        Files.writeString(config, cfg);
        try {
            for (int id = 1; id <= REPLICAS; id++) {
                nodes.add(spawn(id));
            }
            for (int id = 1; id <= REPLICAS; id++) {
                awaitServing(clientPorts[id - 1], dir.resolve("node-" + id + ".log"));
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** The cluster file every node and native client reads. */
    public Path config() {
        return config;
    }

    /** Node {@code id}'s ZooKeeper client port. */
    public int clientPort(int id) {
        return clientPorts[id - 1];
    }

    /** Every replica's front end, as a ZooKeeper connect string. */
    public String connectString() {
        StringJoiner j = new StringJoiner(",");
        for (int port : clientPorts) {
            j.add("127.0.0.1:" + port);
        }
        return j.toString();
    }

    /** {@code kill -9} of node {@code id}, waited for. */
    public void kill(int id) throws InterruptedException {
        nodes.get(id - 1).destroyForcibly().waitFor(20, TimeUnit.SECONDS);
    }

    public boolean isAlive(int id) {
        return nodes.get(id - 1).isAlive();
    }

    private Process spawn(int id) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "io.volery.server.VoleryMain",
                "start", "--config", config.toString(), "--node", String.valueOf(id))
                .redirectErrorStream(true).redirectOutput(dir.resolve("node-" + id + ".log").toFile()).start();
    }

    private static void awaitServing(int port, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                if (FourLetterWordClient.ask(new InetSocketAddress("127.0.0.1", port), "ruok", 1000).startsWith("imok")) {
                    return;
                }
            } catch (IOException e) {
                // not yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("node on port " + port + " did not answer ruok; its log:\n" + Files.readString(log));
    }

    @Override
    public void close() {
        nodes.forEach(Process::destroyForcibly);
    }
}
