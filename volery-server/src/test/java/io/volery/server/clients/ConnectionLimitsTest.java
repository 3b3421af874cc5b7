package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.admin.FourLetterWordClient;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ReplyHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * ZooKeeper's connection limits, back to back with a real ZooKeeper 3.9.5: {@code maxClientCnxns = 3}
 * (connections from one IP address) and {@code maxCnxns = 4} (in all). The same script of raw
 * connections from 127.0.0.1 and 127.0.0.2 must see the same admissions and refusals on both: a
 * connection past a limit is closed before any handshake, the admitted ones keep being served, and a
 * closed connection frees its place. Without the limits Volery admits every connection (the test fails).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConnectionLimitsTest {
    @TempDir
    Path dir;

    static final List<String> EXPECTED = List.of(
            "127.0.0.1 #1 session", "127.0.0.1 #2 session", "127.0.0.1 #3 session",
            "127.0.0.1 #4 closed",
            "127.0.0.2 #1 session",
            "127.0.0.2 #2 closed",
            "served 4 of 4",
            "127.0.0.1 after one closed: session",
            "zk_connection_rejected counts every refusal: true");

    @Test
    void bothLimitsAsZooKeepers() throws Exception {
        List<String> oracle;
        Path jaas = dir.resolve("jaas.conf");
        Files.writeString(jaas, SaslZooKeeper.serverSection(Map.of("nobody", "unused")));
        try (SaslZooKeeper zookeeper = SaslZooKeeper.startWith(dir.resolve("zk"), jaas, "maxClientCnxns=3\n",
                "-Dzookeeper.maxCnxns=4", "-Dzookeeper.4lw.commands.whitelist=mntr")) {
            oracle = script(new InetSocketAddress("127.0.0.1", zookeeper.port()));
        }
        assertEquals(EXPECTED, oracle, "ZooKeeper's admissions");
        List<String> volery;
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000, o -> o.withConnectionLimits(3, 4))) {
            String[] hostPort = cluster.connectString().split(",")[0].split(":");
            volery = script(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
        }
        assertEquals(oracle, volery, "Volery's admissions against ZooKeeper's");
    }

    private static List<String> script(InetSocketAddress server) throws Exception {
        InetAddress one = InetAddress.getByName("127.0.0.1");
        InetAddress two = InetAddress.getByName("127.0.0.2");
        awaitServingAndIdle(server);
        List<String> out = new ArrayList<>();
        List<RawZkConnection> open = new ArrayList<>();
        int refused = 0;
        try {
            for (int i = 1; i <= 4; i++) {
                refused += admit(server, one, "127.0.0.1 #" + i, out, open);
            }
            for (int i = 1; i <= 2; i++) {
                refused += admit(server, two, "127.0.0.2 #" + i, out, open);
            }
            int served = 0;
            int xid = 1;
            for (RawZkConnection c : open) {
                c.sendFrame(RawZkConnection.request(xid++, OpCode.exists, new ExistsRequest("/", false)));
                ReplyHeader h = c.nextReply();
                if (h != null && h.getErr() == 0) {
                    served++;
                }
            }
            out.add("served " + served + " of " + open.size());
            open.remove(0).close();
            // the server learns of the close asynchronously: until then a new connection is still refused
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            String after = "closed";
            while (after.equals("closed") && System.nanoTime() < deadline) {
                try {
                    open.add(new RawZkConnection(server, 10_000, one));
                    after = "session";
                } catch (IOException e) {
                    refused++;
                    Thread.sleep(50);
                }
            }
            out.add("127.0.0.1 after one closed: " + after);
        } finally {
            for (RawZkConnection c : open) {
                c.close();
            }
        }
        long rejected = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (rejected < 0 && System.nanoTime() < deadline) {
            String value;
            try {
                value = FourLetterWordClient.parseMntr(FourLetterWordClient.ask(server, "mntr", 10_000))
                        .get("zk_connection_rejected");
            } catch (IOException e) {
                value = null; // refused before the word was written: a broken pipe or a reset
            }
            if (value != null) {
                rejected = Long.parseLong(value.strip());
            } else {
                refused++; // the mntr connection itself refused while the closes are processed
                Thread.sleep(50);
            }
        }
        // every refusal the script saw, the retries after the close included
        out.add("zk_connection_rejected counts every refusal: " + (rejected == refused));
        return out;
    }

    /**
     * Waits until the server serves (ZooKeeper closes every connection while it starts, after it listens)
     * and counts no connection but the asking one (the server learns of closes asynchronously).
     */
    private static void awaitServingAndIdle(InetSocketAddress server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Map<String, String> m;
            try {
                m = FourLetterWordClient.parseMntr(FourLetterWordClient.ask(server, "mntr", 10_000));
            } catch (IOException e) {
                m = Map.of("error", String.valueOf(e)); // closed while the server starts
            }
            String alive = m.get("zk_num_alive_connections");
            if (m.containsKey("zk_server_state") && alive != null && Integer.parseInt(alive.strip()) <= 1) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the server at " + server + " did not become idle: " + m);
            }
            Thread.sleep(100);
        }
    }

    /** Opens a connection from {@code local} and notes whether the server gave it a session; 1 if refused. */
    private static int admit(InetSocketAddress server, InetAddress local, String name, List<String> out,
                             List<RawZkConnection> open) {
        try {
            open.add(new RawZkConnection(server, 10_000, local));
            out.add(name + " session");
            return 0;
        } catch (IOException e) {
            out.add(name + " closed");
            return 1;
        }
    }
}
