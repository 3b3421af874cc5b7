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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Volery partitions of three replicas each as child JVMs ({@code VoleryMain start --config F --node ID} on the
 * build's classpath), in-memory acceptors, on free loopback ports, and {@code clientNodes} native-client nodes
 * (numbered after the replicas) in the cluster file. Partition p is nodes 3p-2..3p; node 1 is the first acceptor
 * of ring 1 and of the ALL ring: their coordinator while it lives. {@link #kill} is {@code kill -9}; each
 * node's output goes to {@code node-ID.log} under the directory.
 */
public final class ProcessReplicas implements AutoCloseable {
    public static final int REPLICAS = 3;

    private final Path dir;
    private final Path config;
    private final int servers;
    private final int[] clientPorts;
    private final List<Process> nodes = new ArrayList<>();

    public ProcessReplicas(Path dir, int partitions, int clientNodes) throws Exception {
        this.dir = dir;
        this.servers = partitions * REPLICAS;
        this.clientPorts = new int[servers];
        StringBuilder cfg = new StringBuilder();
        for (int id = 1; id <= servers; id++) {
            clientPorts[id - 1] = VoleryCluster.freePort();
            cfg.append("node.").append(id).append(" = 127.0.0.1:").append(VoleryCluster.freePort()).append('\n');
            cfg.append("node.").append(id).append(".groups = ").append((id - 1) / REPLICAS + 1).append('\n');
            cfg.append("node.").append(id).append(".clientPort = ").append(clientPorts[id - 1]).append('\n');
        }
        for (int id = servers + 1; id <= servers + clientNodes; id++) {
            cfg.append("node.").append(id).append(" = 127.0.0.1:").append(VoleryCluster.freePort()).append('\n');
        }
        StringJoiner all = new StringJoiner(",");
        for (int i = 0; i < REPLICAS; i++) {
            // one acceptor of each partition in turn
            all.add(String.valueOf((i % partitions) * REPLICAS + i / partitions + 1));
        }
        for (int p = 1; p <= partitions; p++) {
            cfg.append("ring.").append(p).append(".acceptors = ").append(3 * p - 2).append(',').append(3 * p - 1)
                    .append(',').append(3 * p).append('\n');
            cfg.append("group.").append(p).append(".ring = ").append(p).append('\n');
        }
        cfg.append("ring.0.acceptors = ").append(all).append('\n');
        cfg.append("""
                ring.all = 0
                tickTime = 2000
                storage = memory
                batch.maxBytes = 1114111
                """);
        this.config = dir.resolve("volery.cfg");
        Files.writeString(config, cfg);
        try {
            for (int id = 1; id <= servers; id++) {
                nodes.add(spawn(id));
            }
            for (int id = 1; id <= servers; id++) {
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

    /** The first native-client node's id. */
    public int firstClientNode() {
        return servers + 1;
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

    /** The front ends of nodes {@code ids}, as a ZooKeeper connect string. */
    public String connectString(int... ids) {
        StringJoiner j = new StringJoiner(",");
        for (int id : ids) {
            j.add("127.0.0.1:" + clientPort(id));
        }
        return j.toString();
    }

    /** A ZooKeeper session through {@code connectString}, once it is connected. */
    public static ZooKeeper connect(String connectString) throws Exception {
        return connect(connectString, 30_000);
    }

    /** The same with a session timeout of {@code sessionMillis} asked for. */
    public static ZooKeeper connect(String connectString, int sessionMillis) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, sessionMillis, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        if (!up.await(30, TimeUnit.SECONDS)) {
            zk.close();
            throw new AssertionError("no ZooKeeper session through " + connectString + " within 30 s");
        }
        return zk;
    }

    /** {@code kill -9} of node {@code id}, waited for. */
    public void kill(int id) throws InterruptedException {
        nodes.get(id - 1).destroyForcibly().waitFor(20, TimeUnit.SECONDS);
    }

    /** {@code kill -STOP} of node {@code id}: it stays connected but reads, answers and votes nothing until {@link #resume}. */
    public void pause(int id) throws IOException, InterruptedException {
        signal(id, "STOP");
    }

    /** {@code kill -CONT} of a node {@link #pause}d. */
    public void resume(int id) throws IOException, InterruptedException {
        signal(id, "CONT");
    }

    private void signal(int id, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(nodes.get(id - 1).pid()))
                .redirectErrorStream(true).start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " of node " + id + ": " + new String(kill.getInputStream().readAllBytes()));
        }
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
