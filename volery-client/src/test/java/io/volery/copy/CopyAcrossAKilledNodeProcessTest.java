package io.volery.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.bench.InProcessZooKeeper;
import io.volery.client.ProcessReplicas;
import io.volery.server.VoleryCluster;
import io.volery.server.admin.FourLetterWordClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy into a 3-replica Volery whose node serving the copier is killed with {@code kill -9} mid-copy: the
 * client reconnects to another replica, the writes in flight are tried again (a create that had been applied
 * comes back NodeExists with the same data and counts as done), and the copy finishes complete and verified.
 * The kill is made to fall on requests in flight: the copier's node (the one with a client connection open) is
 * stopped with {@code kill -STOP} first, and killed once the copier's next requests wait unread in its socket
 * (the copier has quiet moments between parents; a kill there would find nothing to try again).
 */
class CopyAcrossAKilledNodeProcessTest {

    private static final int PARENTS = 20;
    private static final int CHILDREN = 1_000;

    @TempDir
    Path dir;

    @Test
    void theCopyFinishesCompleteAfterItsServerIsKilled() throws Exception {
        System.setProperty("zookeeper.extendedTypesEnabled", "true");
        try (InProcessZooKeeper zookeeper = new InProcessZooKeeper(dir.resolve("zk"))) {
            ZooKeeper source = VoleryCopyTest.connect(zookeeper.connectString());
            populate(source);
            try (ProcessReplicas nodes = new ProcessReplicas(dir, 1, 0)) {
                copyAcrossAKill(source, zookeeper, nodes);
            }
        }
    }

    private void copyAcrossAKill(ZooKeeper source, InProcessZooKeeper zookeeper, ProcessReplicas nodes) throws Exception {
        int[] clientPorts = {nodes.clientPort(1), nodes.clientPort(2), nodes.clientPort(3)};
        String to = nodes.connectString();

        AtomicBoolean copyDone = new AtomicBoolean();
        AtomicInteger killedAtCount = new AtomicInteger(-1);
        AtomicInteger pauses = new AtomicInteger();
        Thread killer = new Thread(() -> {
            try {
                while (!copyDone.get()) {
                    // the copier's node: the only one with a client connection open (the killer's own mntr
                    // connections are closed between polls)
                    int id = copiersNode(clientPorts);
                    long count = id < 0 ? -1 : field(mntr(clientPorts[id - 1]), "zk_znode_count");
                    if (count >= 3_000 && count < PARENTS * CHILDREN && !copyDone.get()) {
                        // stopped, the node reads nothing more: once the copier's requests wait unread in its
                        // socket, the kill is certain to fall on requests in flight
                        nodes.pause(id);
                        pauses.incrementAndGet();
                        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000);
                        while (System.nanoTime() < deadline && unread(clientPorts[id - 1]) < 200) {
                            Thread.sleep(5);
                        }
                        if (unread(clientPorts[id - 1]) >= 200) {
                            killedAtCount.set((int) count);
                            nodes.kill(id);
                            return;
                        }
                        nodes.resume(id); // the copier had nothing to send (between phases): try again
                    }
                    Thread.sleep(20);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "killer");
        killer.start();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = VoleryCopy.run(new String[] {"--from", zookeeper.connectString(), "--to", to},
                new PrintStream(out, true), new PrintStream(err, true));
        copyDone.set(true);
        killer.join(30_000);
        String report = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        System.out.printf("killed the copier's node at %d nodes, after %d pause(s)%n%s", killedAtCount.get(), pauses.get(), report);
        assertTrue(killedAtCount.get() > 0, "no node was killed during the copy:\n" + report);
        assertTrue(killedAtCount.get() < PARENTS * CHILDREN, "the kill came after the copy: " + killedAtCount.get());
        assertEquals(0, status, report);
        assertTrue(report.contains("0 differ"), report);
        Matcher retried = Pattern.compile("tried again after a connection loss: (\\d+)").matcher(report);
        assertTrue(retried.find() && Long.parseLong(retried.group(1)) > 0, "the copier's server was killed:\n" + report);
        assertTrue(report.contains("created " + (1 + PARENTS + PARENTS * CHILDREN) + " "), report);

        // what the surviving replicas hold, read with a plain client
        ZooKeeper dest = VoleryCopyTest.connect(to);
        for (int p = 0; p < PARENTS; p++) {
            assertEquals(CHILDREN, dest.getChildren("/bulk/p" + p, false).size(), "/bulk/p" + p);
        }
        assertEquals("v7", new String(dest.getData("/bulk/p3/c7", false, null), StandardCharsets.UTF_8));
        assertFalse(nodes.isAlive(1) && nodes.isAlive(2) && nodes.isAlive(3), "a node was killed");
        dest.close();
        source.close();
    }

    private static void populate(ZooKeeper zk) throws Exception {
        var open = ZooDefs.Ids.OPEN_ACL_UNSAFE;
        zk.create("/bulk", new byte[0], open, CreateMode.PERSISTENT);
        CountDownLatch done = new CountDownLatch(PARENTS * CHILDREN);
        for (int p = 0; p < PARENTS; p++) {
            zk.create("/bulk/p" + p, new byte[0], open, CreateMode.PERSISTENT);
            for (int c = 0; c < CHILDREN; c++) {
                zk.create("/bulk/p" + p + "/c" + c, ("v" + c).getBytes(StandardCharsets.UTF_8), open, CreateMode.PERSISTENT,
                        (rc, path, ctx, name) -> done.countDown(), null);
            }
        }
        assertTrue(done.await(120, TimeUnit.SECONDS));
    }

    /** The node (1-based) whose client port has an established connection, or -1. */
    private static int copiersNode(int[] clientPorts) throws IOException {
        java.util.Map<Integer, Long> established = unreadByLocalPort();
        for (int id = 1; id <= clientPorts.length; id++) {
            if (established.containsKey(clientPorts[id - 1])) {
                return id;
            }
        }
        return -1;
    }

    /** Bytes received and not yet read on the established server-side socket of local port {@code port}, or -1. */
    private static long unread(int port) throws IOException {
        return unreadByLocalPort().getOrDefault(port, -1L);
    }

    /**
     * Unread bytes of every established socket by local port (the most of any one), from the kernel's socket
     * tables ({@code /proc/net/tcp} and {@code tcp6}).
     */
    private static java.util.Map<Integer, Long> unreadByLocalPort() throws IOException {
        java.util.Map<Integer, Long> unread = new java.util.HashMap<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : Files.readAllLines(file)) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue ...; 01 = ESTABLISHED
                if (f.length > 4 && f[3].equals("01")) {
                    int port = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
                    long queued = Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
                    unread.merge(port, queued, Math::max);
                }
            }
        }
        return unread;
    }

    private static java.util.Map<String, String> mntr(int port) {
        try {
            return FourLetterWordClient.parseMntr(FourLetterWordClient.ask(new InetSocketAddress("127.0.0.1", port), "mntr", 1000));
        } catch (IOException e) {
            return java.util.Map.of();
        }
    }

    private static long field(java.util.Map<String, String> mntr, String key) {
        return Long.parseLong(mntr.getOrDefault(key, "-1").trim());
    }
}
