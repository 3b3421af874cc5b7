package io.volery.server.admin;

import io.eyrie.multicast.ClusterConfig;
import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The four-letter words and the Prometheus endpoint of a 2 x 3 cluster, read as monitoring tools
 * read them, and compared with a real ZooKeeper 3.9.5 server that saw the same operations: a client
 * on node 1 creates /mon and the ephemeral /mon/eph, and watches /mon (exists and children).
 */
class MonitoringTest {
    @TempDir
    static Path zkDir;

    static VoleryCluster cluster;
    static ZooKeeper volery;
    static EmbeddedZooKeeper realServer;
    static ZooKeeper real;
    static InetSocketAddress realAddress;
    /** The replicas of the partition that owns /mon. */
    static List<VoleryNode> monReplicas;

    @BeforeAll
    static void start() throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        realServer = new EmbeddedZooKeeper(zkDir);
        realAddress = address(realServer.connectString());
        cluster = new VoleryCluster(2, 3, 0, 2000, 0);
        volery = connect("127.0.0.1:" + cluster.nodes().get(0).clientAddress().getPort());
        real = connect(realServer.connectString());
        for (ZooKeeper zk : List.of(volery, real)) {
            zk.create("/mon", "m".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.create("/mon/eph", "e".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            zk.exists("/mon", true);
            zk.getChildren("/mon", true);
        }
        monReplicas = new ArrayList<>();
        for (VoleryNode n : cluster.nodes()) {
            if (ZooKeeperOutputParser.mntr(ask(n, "mntr")).get("zk_ephemerals_count").equals("1")) {
                monReplicas.add(n);
            }
        }
        assertEquals(3, monReplicas.size(), "expected the 3 replicas of /mon's partition to hold its ephemeral");
    }

    @AfterAll
    static void stop() throws Exception {
        if (volery != null) {
            volery.close();
        }
        if (real != null) {
            real.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (realServer != null) {
            realServer.stop();
        }
    }

    @Test
    void ruokAndIsroAnswerAsZooKeeper() throws Exception {
        for (String word : List.of("ruok", "isro")) {
            assertEquals(FourLetterWordClient.ask(realAddress, word, 5000), ask(cluster.nodes().get(3), word),
                    "answer to " + word);
        }
    }

    @Test
    void srvrParsesLikeZooKeepersAndCountsTheSameNodes() throws Exception {
        ZooKeeperOutputParser.Server zk = ZooKeeperOutputParser.srvr(FourLetterWordClient.ask(realAddress, "srvr", 5000));
        Map<Integer, Integer> leadersByPartition = new HashMap<>();
        for (VoleryNode n : cluster.nodes()) {
            ZooKeeperOutputParser.Server v = ZooKeeperOutputParser.srvr(ask(n, "srvr"));
            assertEquals(zk.version(), v.version(), "the ZooKeeper version Volery speaks");
            if (monReplicas.contains(n)) {
                assertEquals(zk.number("nodeCount"), v.number("nodeCount"), "node count of /mon's partition, node " + n.nodeId());
            }
            if (v.values().get("mode").equals("leader")) {
                leadersByPartition.merge(n.monitor().facts().partition(), 1, Integer::sum);
            }
        }
        assertEquals(Map.of(1, 1, 2, 1), leadersByPartition, "one leader (ring coordinator) per partition");
        ZooKeeperOutputParser.Server first = ZooKeeperOutputParser.srvr(ask(cluster.nodes().get(0), "srvr"));
        assertTrue(first.number("received") >= 4, "node 1 received the client's 4 requests: " + first.values());
        assertTrue(first.number("connections") >= 1, "node 1 has the client's connection: " + first.values());
    }

    @Test
    void statListsTheClientConnectionThenTheSrvrLines() throws Exception {
        ZooKeeperOutputParser.Stat zk = ZooKeeperOutputParser.stat(FourLetterWordClient.ask(realAddress, "stat", 5000));
        assertTrue(zk.clientAddresses().size() >= 1, "the parser reads ZooKeeper's client lines");
        ZooKeeperOutputParser.Stat v = ZooKeeperOutputParser.stat(ask(cluster.nodes().get(0), "stat"));
        assertEquals(1, v.clientAddresses().size(), "node 1 has one client: " + v.clientAddresses());
        String sid = "sid=0x" + Long.toHexString(volery.getSessionId());
        String cons = ask(cluster.nodes().get(0), "cons");
        assertTrue(cons.lines().anyMatch(l -> l.startsWith(" /" + v.clientAddresses().get(0) + "[1]") && l.contains(sid)),
                "stat's client " + v.clientAddresses().get(0) + " is the session's connection in cons:\n" + cons);
        assertEquals(ZooKeeperOutputParser.stat(ask(cluster.nodes().get(1), "stat")).clientAddresses(), List.of(),
                "node 2 has no client");
    }

    @Test
    void mntrHasZooKeepersKeysAndTheSameCountsAsZooKeeper() throws Exception {
        Map<String, String> zk = ZooKeeperOutputParser.mntr(FourLetterWordClient.ask(realAddress, "mntr", 5000));
        for (VoleryNode n : monReplicas) {
            Map<String, String> v = ZooKeeperOutputParser.mntr(ask(n, "mntr"));
            for (String key : v.keySet()) {
                assertTrue(!key.startsWith("zk_") || zk.containsKey(key), "Volery's " + key + " is not a ZooKeeper mntr key");
                if (!key.equals("zk_version") && !key.equals("zk_server_state") && !key.equals("volery_position")) {
                    Double.parseDouble(v.get(key)); // tools turn every other value into a number
                }
            }
            for (String key : List.of("zk_znode_count", "zk_ephemerals_count", "zk_watch_count", "zk_global_sessions")) {
                assertEquals(zk.get(key), v.get(key), key + " of node " + n.nodeId() + " (a replica of /mon's partition)");
            }
            // /zookeeper/config lists Volery's front ends, as an ensemble's lists its servers; a standalone ZooKeeper's is
            // empty (ADR 097)
            assertEquals(Long.parseLong(zk.get("zk_approximate_data_size")) + volery.getConfig(false, null).length,
                    Long.parseLong(v.get("zk_approximate_data_size")),
                    "zk_approximate_data_size of node " + n.nodeId() + " (a replica of /mon's partition)");
            for (String key : List.of("zk_version", "zk_server_state", "zk_avg_latency", "zk_min_latency", "zk_max_latency",
                    "zk_packets_received", "zk_packets_sent", "zk_num_alive_connections", "zk_outstanding_requests",
                    "zk_open_file_descriptor_count", "zk_max_file_descriptor_count", "zk_uptime")) {
                assertTrue(v.containsKey(key), "mntr of node " + n.nodeId() + " lacks " + key + ": " + v.keySet());
            }
            assertEquals(String.valueOf(n.monitor().facts().partition()), v.get("volery_partition"));
            assertTrue(v.containsKey("volery_ring_0_lag"), "the ALL ring's lag: " + v.keySet());
            // A new cluster: every acceptor joined its rings at the first start (ADR 074).
            assertEquals("0", v.get("volery_ring_0_acceptor_rejoining"), "node " + n.nodeId() + "'s ALL-ring acceptor");
            for (String key : List.of("volery_frames_dropped", "volery_proposal_gap_resends", "volery_reordered_resends",
                    "volery_local_reply_fallbacks", "volery_volunteerings", "volery_volunteering_ms", "volery_long_exchange_waits", "volery_exchanges_redundant",
                    "volery_fetches_sent", "volery_fetched_bytes", "volery_handoffs_from_dead_front_ends",
                    "volery_handoffs_timed_out", "volery_replayed_events_dropped")) {
                assertTrue(Long.parseLong(v.get(key)) >= 0, "counter " + key + " of node " + n.nodeId() + ": " + v.get(key));
            }
            // a replica talks to its peers (ring messages at least), and the TCP transport counts its writes
            long frames = Long.parseLong(v.get("volery_frames_sent"));
            long writes = Long.parseLong(v.get("volery_socket_writes"));
            assertTrue(frames > 0 && writes > 0 && writes <= frames,
                    "node " + n.nodeId() + " sent " + frames + " frames in " + writes + " socket writes");
        }
    }

    /**
     * With no request in flight the only commands are the front ends' session touches, to both
     * partitions: every replica runs them (volery_independent_commands rises) and none signals the
     * other partition (volery_exchanges_sent stays): ADR 032.
     */
    @Test
    void sessionTouchesRunInEveryPartitionWithoutSignals() throws Exception {
        Map<Integer, Map<String, String>> before = new TreeMap<>();
        for (VoleryNode n : cluster.nodes()) {
            before.put(n.nodeId(), ZooKeeperOutputParser.mntr(ask(n, "mntr")));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Map<Integer, Map<String, String>> after = new TreeMap<>();
        boolean touched;
        do {
            Thread.sleep(200);
            touched = true;
            for (VoleryNode n : cluster.nodes()) {
                Map<String, String> now = ZooKeeperOutputParser.mntr(ask(n, "mntr"));
                after.put(n.nodeId(), now);
                // at least one touch from each of the 6 front ends
                touched &= Long.parseLong(now.get("volery_independent_commands"))
                        - Long.parseLong(before.get(n.nodeId()).get("volery_independent_commands")) >= 6;
            }
        } while (!touched && System.nanoTime() < deadline);
        assertTrue(touched, "every replica runs the touches of every front end: before " + counters(before)
                + ", after " + counters(after));
        for (VoleryNode n : cluster.nodes()) {
            assertEquals(before.get(n.nodeId()).get("volery_exchanges_sent"), after.get(n.nodeId()).get("volery_exchanges_sent"),
                    "node " + n.nodeId() + " signalled the other partition for a touch");
            // and no executor waited for the other partition's signal of a touch
            assertNotNull(after.get(n.nodeId()).get("volery_executor_signal_wait_ms"), "mntr shows the executor's waits");
            assertNotNull(after.get(n.nodeId()).get("volery_executor_value_wait_ms"), "mntr shows the executor's waits");
            assertEquals(before.get(n.nodeId()).get("volery_executor_signal_wait_ms"),
                    after.get(n.nodeId()).get("volery_executor_signal_wait_ms"),
                    "node " + n.nodeId() + " waited for the other partition's signal of a touch");
        }
    }

    private static Map<Integer, String> counters(Map<Integer, Map<String, String>> mntrByNode) {
        Map<Integer, String> out = new TreeMap<>();
        mntrByNode.forEach((node, m) -> out.put(node, "independent=" + m.get("volery_independent_commands")
                + " exchanges=" + m.get("volery_exchanges_sent")));
        return out;
    }

    @Test
    void watchAndSessionWordsMatchZooKeeperOnThePartitionThatHoldsThem() throws Exception {
        String zkSession = "0x" + Long.toHexString(real.getSessionId());
        String volerySession = "0x" + Long.toHexString(volery.getSessionId());
        VoleryNode n = monReplicas.get(0);
        assertEquals(FourLetterWordClient.ask(realAddress, "wchs", 5000), ask(n, "wchs"), "wchs");
        for (String word : List.of("wchc", "wchp")) {
            assertEquals(FourLetterWordClient.ask(realAddress, word, 5000).replace(zkSession, "SESSION"),
                    ask(n, word).replace(volerySession, "SESSION"), word);
        }
        String zkDump = FourLetterWordClient.ask(realAddress, "dump", 5000);
        String dump = ask(n, "dump");
        assertEquals(section(zkDump, "ephemeral nodes dump:", "Connections dump:").replace(zkSession, "SESSION"),
                section(dump, "ephemeral nodes dump:", "Connections dump:").replace(volerySession, "SESSION"),
                "dump's ephemeral section");
        assertTrue(dump.startsWith("SessionTracker dump:\nSession Sets ("), dump);
    }

    @Test
    void consShowsTheSessionOfTheConnectedClient() throws Exception {
        String cons = ask(cluster.nodes().get(0), "cons");
        Pattern line = Pattern.compile("^ /127\\.0\\.0\\.1:\\d+\\[1]\\(queued=0,recved=(\\d+),sent=(\\d+),sid=(0x[0-9a-f]+),lop=(\\w+),"
                + "est=\\d+,to=(\\d+),lcxid=0x[0-9a-f]+,lzxid=0x[0-9a-f]+,lresp=\\d+,llat=\\d+,minlat=\\d+,avglat=\\d+,maxlat=\\d+\\)$",
                Pattern.MULTILINE);
        Matcher m = line.matcher(cons);
        assertTrue(m.find(), "a cons line in ZooKeeper's format in:\n" + cons);
        assertEquals("0x" + Long.toHexString(volery.getSessionId()), m.group(3));
        assertEquals(String.valueOf(volery.getSessionTimeout()), m.group(5), "to= is the negotiated timeout");
    }

    @Test
    void confAndEnviNameThisNode() throws Exception {
        VoleryNode n = cluster.nodes().get(4);
        String conf = ask(n, "conf");
        assertTrue(conf.contains("clientPort=" + n.clientAddress().getPort() + "\n"), conf);
        assertTrue(conf.contains("serverId=5\n") && conf.contains("volery.partition=2\n"), conf);
        assertTrue(conf.contains("minSessionTimeout=4000\nmaxSessionTimeout=40000\n"), conf);
        assertTrue(ask(n, "envi").startsWith("Environment:\nzookeeper.version=3.9.5-"), "envi");
    }

    @Test
    void aWordOutsideTheWhitelistIsRefusedWithZooKeepersMessage() {
        FourLetterWords words = new FourLetterWords(null, Set.of("ruok"));
        assertEquals("srvr is not executed because it is not in the whitelist.\n", words.answer("srvr"));
    }

    @Test
    void prometheusEndpointServesRequestLatenciesPerOperationAndPartitionAndTheTreeGauges() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        VoleryNode first = cluster.nodes().get(0);
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(metricsUri(first)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), r.headers().toString());
        Map<String, Double> m = parsePrometheus(r.body());
        int monPartition = monReplicas.get(0).monitor().facts().partition();
        // /mon/eph goes to its partition alone; /mon to every partition (the root's child list is in all)
        String createOwn = "volery_requests_seconds_count{op=\"create\",partition=\"" + monPartition + "\"}";
        String createAll = "volery_requests_seconds_count{op=\"create\",partition=\"1+2\"}";
        assertEquals(1.0, m.get(createOwn), "create of /mon/eph timed on node 1: " + createOwn + "\n" + r.body());
        assertEquals(1.0, m.get(createAll), "create of /mon timed on node 1: " + createAll + "\n" + r.body());
        assertTrue(m.getOrDefault(createOwn.replace("_count", "_sum"), -1.0) > 0, "latency sum of the create");
        assertTrue(m.containsKey("volery_requests_seconds_count{op=\"exists\",partition=\"" + monPartition + "\"}"),
                "exists timed: " + m.keySet());

        VoleryNode replica = monReplicas.get(0);
        Map<String, Double> rm = parsePrometheus(http.send(HttpRequest.newBuilder(metricsUri(replica)).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body());
        String tags = "{node=\"" + replica.nodeId() + "\",partition=\"" + monPartition + "\"}";
        Map<String, String> mntr = ZooKeeperOutputParser.mntr(ask(replica, "mntr"));
        assertEquals(Double.valueOf(mntr.get("zk_znode_count")), rm.get("volery_znodes" + tags), "znodes gauge");
        assertEquals(Double.valueOf(mntr.get("zk_watch_count")), rm.get("volery_watches" + tags), "watches gauge");
        assertEquals(Double.valueOf(mntr.get("zk_global_sessions")), rm.get("volery_sessions" + tags), "sessions gauge");
        ClusterConfig cfg = cluster.config();
        for (int ring : cfg.ringsLearnedBy(replica.nodeId())) {
            String decided = "volery_ring_decided_total{node=\"" + replica.nodeId() + "\",partition=\"" + monPartition
                    + "\",ring=\"" + ring + "\"}";
            assertTrue(rm.getOrDefault(decided, 0.0) > 0, "ring throughput counter " + decided + " in " + rm.keySet());
            assertTrue(rm.containsKey(decided.replace("volery_ring_decided_total", "volery_ring_lag")), "lag of ring " + ring);
        }
        assertTrue(rm.containsKey("volery_signal_waits_total" + tags), "signal waits: " + rm.keySet());
        assertTrue(rm.containsKey("volery_signal_wait_seconds_total" + tags), "signal wait time: " + rm.keySet());
        for (String counter : List.of("volery_transport_frames_dropped_total", "volery_proposals_gap_resends_total",
                "volery_catchup_fetches_total", "volery_catchup_fetched_bytes_total",
                "volery_requests_reordered_resends_total", "volery_requests_local_reply_fallbacks_total")) {
            assertTrue(rm.containsKey(counter + tags), counter + ": " + rm.keySet());
        }

        HttpResponse<String> post = http.send(HttpRequest.newBuilder(metricsUri(first))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode(), "only GET scrapes");
    }

    /** Prometheus' text format: "name{labels} value" lines; # lines are comments. */
    static Map<String, Double> parsePrometheus(String body) {
        Pattern sample = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s+(\\S+)(\\s+\\d+)?$");
        Map<String, Double> out = new HashMap<>();
        for (String line : body.lines().toList()) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = sample.matcher(line);
            assertTrue(m.matches(), "not a Prometheus sample line: " + line);
            out.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.valueOf(m.group(3)));
        }
        return out;
    }

    private static URI metricsUri(VoleryNode n) {
        return URI.create("http://127.0.0.1:" + n.metricsAddress().getPort() + "/metrics");
    }

    private static String section(String text, String from, String to) {
        int a = text.indexOf(from);
        int b = text.indexOf(to, a);
        assertTrue(a >= 0 && b > a, "no section '" + from + "' in:\n" + text);
        return text.substring(a, b);
    }

    static String ask(VoleryNode n, String word) throws Exception {
        return FourLetterWordClient.ask(n.clientAddress(), word, 10_000);
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    static ZooKeeper connect(String connect) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 10_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(20, TimeUnit.SECONDS), "connected to " + connect);
        return zk;
    }
}
