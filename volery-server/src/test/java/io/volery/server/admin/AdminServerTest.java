package io.volery.server.admin;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's AdminServer commands (ADR 068) read over HTTP from a real ZooKeeper 3.9.5 (its Jetty AdminServer)
 * and from a Volery node after the same operations (a client creates /adm and the ephemeral /adm/e and watches
 * /adm): every command Volery lists is one of ZooKeeper's, answers with ZooKeeper's keys (Volery may add
 * volery_ ones), by its name and its four-letter alias, and the counts both servers know agree; an unknown
 * command is answered as ZooKeeper does.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AdminServerTest {
    @TempDir
    Path dir;

    @Test
    void commandsAnswerWithZooKeepersKeysAndCounts() throws Exception {
        int zkClient = io.eyrie.multicast.LoopbackPorts.free();
        int zkAdmin = io.eyrie.multicast.LoopbackPorts.free();
        Files.writeString(dir.resolve("zoo.cfg"), "tickTime=2000\ndataDir=" + dir.resolve("zk") + "\nclientPort=" + zkClient
                + "\nclientPortAddress=127.0.0.1\nadmin.serverPort=" + zkAdmin + "\nadmin.serverAddress=127.0.0.1\n");
        Process zookeeper = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "org.apache.zookeeper.server.ZooKeeperServerMain",
                dir.resolve("zoo.cfg").toString()).redirectErrorStream(true).redirectOutput(dir.resolve("zk.log").toFile()).start();
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000,
                o -> o.withAdminServer(new InetSocketAddress("127.0.0.1", 0)))) {
            String zkBase = "http://127.0.0.1:" + zkAdmin + "/commands";
            awaitAnswer(zkBase + "/ruok", zookeeper);
            ZooKeeper real = connect("127.0.0.1:" + zkClient);
            VoleryNode node = cluster.nodes().get(0);
            ZooKeeper volery = connect("127.0.0.1:" + node.clientAddress().getPort());
            for (ZooKeeper zk : List.of(real, volery)) {
                zk.create("/adm", new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create("/adm/e", new byte[] {2}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                zk.exists("/adm", true);
            }
            String voleryBase = "http://127.0.0.1:" + node.adminAddress().getPort() + "/commands";
            // a partition's replica counts its partition's znodes, sessions' ephemerals and watches: /adm's
            String ownerBase = null;
            for (VoleryNode n : cluster.nodes()) {
                String base = "http://127.0.0.1:" + n.adminAddress().getPort() + "/commands";
                if (((Number) json(get(base + "/monitor")).get("ephemerals_count")).intValue() == 1) {
                    ownerBase = base;
                }
            }
            assertNotNull(ownerBase, "no node holds /adm/e");
            String index = get(voleryBase).body;
            String zkIndex = get(zkBase).body;
            List<String> listed = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("href=\"/commands/([a-z_]+)\"").matcher(index);
            while (m.find()) {
                listed.add(m.group(1));
            }
            assertEquals(12, listed.size(), "Volery's list: " + index);
            for (String command : listed) {
                assertTrue(zkIndex.contains("/commands/" + command + "\""), command + " is not one of ZooKeeper's commands");
                Map<String, Object> z = json(get(zkBase + "/" + command));
                Map<String, Object> v = json(get(voleryBase + "/" + command));
                assertEquals(command, v.get("command"));
                assertEquals(null, v.get("error"), command + ": " + v.get("error"));
                Set<String> expected = new TreeSet<>(z.keySet());
                Set<String> got = new TreeSet<>(v.keySet());
                got.removeIf(k -> k.startsWith("volery_"));
                if (command.equals("monitor")) {
                    assertTrue(expected.containsAll(got), "monitor keys ZooKeeper has not: " + minus(got, expected));
                    Map<String, Object> owner = json(get(ownerBase + "/monitor"));
                    for (String key : List.of("znode_count", "ephemerals_count", "watch_count", "global_sessions")) {
                        assertEquals(z.get(key), owner.get(key), "monitor " + key);
                    }
                } else {
                    assertEquals(expected, got, command + "'s keys");
                }
            }
            Map<String, Object> zSummary = json(get(zkBase + "/wchs"));
            Map<String, Object> vSummary = json(get(ownerBase + "/wchs"));
            assertEquals("watch_summary", vSummary.get("command"), "an alias answers as its command");
            assertEquals(zSummary.get("num_total_watches"), vSummary.get("num_total_watches"));
            assertEquals(1L, ((Number) vSummary.get("num_total_watches")).longValue());
            Map<?, ?> ephemerals = (Map<?, ?>) json(get(ownerBase + "/dump")).get("session_id_to_ephemeral_paths");
            assertEquals(List.of(List.of("/adm/e")), new ArrayList<>(ephemerals.values()));
            assertEquals(Long.toString(volery.getSessionId()), ephemerals.keySet().iterator().next());
            Map<?, ?> byPath = (Map<?, ?>) json(get(ownerBase + "/watches_by_path")).get("path_to_session_ids");
            assertEquals(List.of(volery.getSessionId()), byPath.get("/adm"));

            Map<String, Object> unknownZ = json(get(zkBase + "/nosuch"));
            Map<String, Object> unknownV = json(get(voleryBase + "/nosuch"));
            assertEquals(unknownZ, unknownV, "an unknown command");
            assertEquals(405, request(voleryBase + "/ruok", "POST").status);
            real.close();
            volery.close();
        } finally {
            zookeeper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void theClusterFileSetsThePortAndAdminEnableServerTurnsItOff() throws Exception {
        String cluster = "node.1 = 127.0.0.1:7001\nnode.1.groups = 1\nnode.1.clientPort = 2181\nnode.1.adminPort = 8080\n"
                + "node.2 = 127.0.0.1:7002\nnode.2.groups = 1\nnode.2.clientPort = 2182\nring.1.acceptors = 1,2\n"
                + "ring.0.acceptors = 1,2\ngroup.1.ring = 1\nring.all = 0\n";
        io.volery.server.config.VoleryConfig on = io.volery.server.config.VoleryConfig.parse(cluster, "volery.cfg");
        assertEquals(new InetSocketAddress("127.0.0.1", 8080), VoleryNode.Options.of(on, 1).adminAddress());
        assertEquals(null, VoleryNode.Options.of(on, 2).adminAddress(), "no port, no admin server");
        io.volery.server.config.VoleryConfig off = io.volery.server.config.VoleryConfig.parse(
                cluster + "admin.enableServer = false\n", "volery.cfg");
        assertEquals(null, VoleryNode.Options.of(off, 1).adminAddress());
        io.volery.server.config.VoleryConfig anywhere = io.volery.server.config.VoleryConfig.parse(
                cluster + "admin.serverAddress = 0.0.0.0\n", "volery.cfg");
        assertEquals(new InetSocketAddress("0.0.0.0", 8080), VoleryNode.Options.of(anywhere, 1).adminAddress());
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }

    private record Answer(int status, String body) {
    }

    private static Answer get(String url) throws IOException {
        return request(url, "GET");
    }

    private static Answer request(String url, String method) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(5000);
        c.setReadTimeout(10000);
        int status = c.getResponseCode();
        var in = status < 400 ? c.getInputStream() : c.getErrorStream();
        String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        c.disconnect();
        return new Answer(status, body);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(Answer a) throws IOException {
        assertEquals(200, a.status, a.body);
        return new com.fasterxml.jackson.databind.ObjectMapper().readValue(a.body, Map.class);
    }

    private static void awaitAnswer(String url, Process p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (get(url).status == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            assertTrue(p.isAlive() && System.nanoTime() < deadline, "ZooKeeper's AdminServer did not answer " + url);
            Thread.sleep(200);
        }
    }

    private static ZooKeeper connect(String connect) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 10_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        assertTrue(up.await(30, TimeUnit.SECONDS), "no session with " + connect);
        assertNotNull(zk);
        return zk;
    }
}
