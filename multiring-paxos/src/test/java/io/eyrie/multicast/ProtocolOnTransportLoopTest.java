package io.eyrie.multicast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With the Netty transport a node runs its protocol on the transport's event loop (ADR 031): deliveries
 * and direct messages reach the application on that thread, no protocol thread of its own exists, and
 * the nodes of two merged rings still deliver one total order, from memory and from durable logs (whose
 * votes are synced in the turn, on that thread, before they are sent).
 */
class ProtocolOnTransportLoopTest {

    private static String config(String storage, Path dir) {
        StringBuilder cfg = new StringBuilder();
        for (int id = 1; id <= 3; id++) {
            cfg.append("node.").append(id).append(" = 127.0.0.1:").append(LoopbackPorts.free()).append('\n');
        }
        return cfg + ProcessCluster.TWO_GROUPS + "storage = " + storage + "\ndataDir = " + dir + "\n";
    }

    @Test
    void memory() throws Exception {
        run("memory", null);
    }

    @Test
    void durable(@TempDir Path dir) throws Exception {
        run("durable", dir);
    }

    private void run(String storage, Path dir) throws Exception {
        ClusterConfig config = ClusterConfig.parse(config(storage, dir == null ? Path.of("unused") : dir), "test");
        Map<Integer, List<String>> delivered = new TreeMap<>();
        Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<MulticastNode> nodes = new ArrayList<>();
        try {
            for (int id = 1; id <= 3; id++) {
                List<String> mine = new ArrayList<>();
                delivered.put(id, mine);
                MulticastNode node = MulticastNode.builder(config, id).build();
                nodes.add(node);
                node.start(d -> {
                    threads.add(Thread.currentThread().getName());
                    synchronized (mine) {
                        mine.add(new String(d.payload(), StandardCharsets.UTF_8));
                    }
                });
            }
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            int perNode = 200;
            for (int i = 0; i < perNode; i++) {
                for (MulticastNode n : nodes) {
                    int[] groups = i % 10 == 0 ? new int[] {1, 2} : new int[] {1 + (i + n.nodeId()) % 2};
                    sent.add(n.multicast(groups, (n.nodeId() + ":" + i).getBytes(StandardCharsets.UTF_8)));
                }
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (size(delivered.get(3)) < 3 * perNode && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(3 * perNode, size(delivered.get(3)), "node 3 learns both groups: every message once");
            // nodes 1 and 2 deliver their group's messages in the order node 3 delivers them
            for (int id = 1; id <= 2; id++) {
                String group = String.valueOf(id);
                List<String> expected = new ArrayList<>();
                synchronized (delivered.get(3)) {
                    for (String m : delivered.get(3)) {
                        if (addressedTo(m, id)) {
                            expected.add(m);
                        }
                    }
                }
                while (size(delivered.get(id)) < expected.size() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                synchronized (delivered.get(id)) {
                    assertEquals(expected, delivered.get(id), "node " + id + " delivers group " + group
                            + " in node 3's order");
                }
            }
            assertTrue(threads.stream().allMatch(t -> t.startsWith("eyrie-transport-")),
                    "deliveries run on the transports' event loops, not on " + new TreeSet<>(threads));
            assertTrue(Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("mrp-node-")),
                    "no protocol thread of its own");
        } finally {
            for (MulticastNode n : nodes) {
                n.close();
            }
        }
    }

    /**
     * A multicast another thread hands to the loop while a callback runs there, followed by one the
     * callback makes itself, reaches the ring in that order (as one queue of calls would): a client
     * that starts multicasts under one lock from its threads and from its callbacks relies on it.
     */
    @Test
    void multicastsKeepTheirCallOrderBetweenAnotherThreadAndACallbackOnTheLoop() throws Exception {
        ClusterConfig config = ClusterConfig.parse(config("memory", Path.of("unused")), "test");
        List<MulticastNode> nodes = new ArrayList<>();
        List<String> delivered = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        try {
            for (int id = 1; id <= 3; id++) {
                MulticastNode node = MulticastNode.builder(config, id).build();
                nodes.add(node);
            }
            MulticastNode one = nodes.get(0);
            for (MulticastNode n : nodes) {
                n.start(d -> {
                    if (n != one) {
                        return;
                    }
                    String m = new String(d.payload(), StandardCharsets.UTF_8);
                    synchronized (delivered) {
                        delivered.add(m);
                    }
                    if (m.equals("trigger")) {
                        // on node 1's loop: another thread multicasts "first" and returns; its hand-off
                        // cannot run before this callback ends; then this callback multicasts "second"
                        Thread t = new Thread(() -> one.multicast(new int[] {1}, "first".getBytes(StandardCharsets.UTF_8)));
                        t.start();
                        try {
                            t.join();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        one.multicast(new int[] {1}, "second".getBytes(StandardCharsets.UTF_8));
                    } else {
                        done.countDown();
                    }
                });
            }
            one.multicast(new int[] {1}, "trigger".getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
            assertTrue(done.await(30, TimeUnit.SECONDS), "both multicasts delivered: " + delivered);
            synchronized (delivered) {
                assertEquals(List.of("trigger", "first", "second"), delivered, "node 1 delivers its multicasts in call order");
            }
        } finally {
            for (MulticastNode n : nodes) {
                n.close();
            }
        }
    }

    /** Whether the message "node:i" went to group {@code g} (as {@link #run} chose its groups). */
    private static boolean addressedTo(String m, int g) {
        String[] p = m.split(":");
        int node = Integer.parseInt(p[0]);
        int i = Integer.parseInt(p[1]);
        return i % 10 == 0 || 1 + (i + node) % 2 == g;
    }

    private static int size(List<String> l) {
        synchronized (l) {
            return l.size();
        }
    }
}
