package io.volery.server.backtoback;

import io.eyrie.multicast.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real ZooKeeper 3.9.5 ensemble of {@code n} servers in this JVM, each on free ports of 127.0.0.1, configured
 * in ZooKeeper's 3.5+ form ({@code server.N=host:quorumPort:electionPort;clientHost:clientPort}), which
 * is what makes {@code /zookeeper/config} list the servers' client addresses. Dynamic reconfiguration is
 * off (ZooKeeper's default); the admin HTTP server is off.
 */
public final class EmbeddedZooKeeperEnsemble implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeperEnsemble.class);

    private final List<Server> servers = new ArrayList<>();
    private final int[] clientPorts;

    private static final class Server extends QuorumPeerMain {
        final Thread thread;
        volatile boolean stopped;

        Server(Path config, int id) {
            thread = new Thread(() -> {
                try {
                    initializeAndRun(new String[] {config.toString()});
                } catch (Exception e) {
                    if (!stopped) {
                        LOG.error("embedded ZooKeeper server {} stopped with an error", id, e);
                    }
                }
            }, "embedded-zookeeper-server-" + id);
            thread.setDaemon(true);
        }

        void stop() throws InterruptedException {
            stopped = true;
            close();
            thread.join(10_000);
        }
    }

    public EmbeddedZooKeeperEnsemble(Path dir, int n) throws IOException {
        EmbeddedZooKeeper.readOnceSettings();
        System.setProperty("zookeeper.admin.enableServer", "false");
        clientPorts = new int[n];
        StringBuilder members = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            clientPorts[i - 1] = LoopbackPorts.free();
            members.append("server.").append(i).append("=127.0.0.1:").append(LoopbackPorts.free()).append(':')
                    .append(LoopbackPorts.free()).append(";127.0.0.1:").append(clientPorts[i - 1]).append('\n');
        }
        for (int i = 1; i <= n; i++) {
            Path home = dir.resolve("zk-" + i);
            Files.createDirectories(home.resolve("data"));
            Files.writeString(home.resolve("data").resolve("myid"), i + "\n");
            Path config = home.resolve("zoo.cfg");
            Files.writeString(config, "tickTime=500\ninitLimit=20\nsyncLimit=10\ndataDir=" + home.resolve("data")
                    + "\nadmin.enableServer=false\n" + members);
            servers.add(new Server(config, i));
        }
        servers.forEach(s -> s.thread.start());
    }

    /** The client address of server {@code id} (1..n). */
    public String address(int id) {
        return "127.0.0.1:" + clientPorts[id - 1];
    }

    /** The client ports, server 1's first. */
    public int[] clientPorts() {
        return clientPorts.clone();
    }

    /** Every server's client address. */
    public String connectString() {
        StringJoiner j = new StringJoiner(",");
        for (int i = 1; i <= clientPorts.length; i++) {
            j.add(address(i));
        }
        return j.toString();
    }

    /** Stops server {@code id} (1..n), as a crash would for its clients: their connections close. */
    public void stop(int id) throws InterruptedException {
        servers.get(id - 1).stop();
    }

    @Override
    public void close() throws InterruptedException {
        for (Server s : servers) {
            if (!s.stopped) {
                s.stop();
            }
        }
    }
}
