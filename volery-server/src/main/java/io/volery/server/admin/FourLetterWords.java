package io.volery.server.admin;

import io.eyrie.multicast.Position;
import io.eyrie.multicast.internal.protocol.NodeStatus;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TimeZone;
import java.util.TreeSet;

/**
 * The answers to ZooKeeper's four-letter words, in ZooKeeper 3.9.5's formats (monitoring tools parse
 * them line by line), each followed by a Volery section where a tool would not look: after the
 * standard lines of srvr and stat, as volery_ keys at the end of mntr, after the standard keys of conf.
 */
public final class FourLetterWords {
    /** ZooKeeper's version (the protocol Volery speaks), then Volery's. */
    public static final String VERSION = "3.9.5-volery-" + voleryVersion() + ", built on " + buildTime();

    private final NodeMonitor monitor;
    private final Set<String> enabled;

    public FourLetterWords(NodeMonitor monitor, Set<String> enabled) {
        this.monitor = monitor;
        this.enabled = Set.copyOf(enabled);
    }

    /** Whether {@code word} is one of ZooKeeper's four-letter words that Volery answers. */
    public static boolean known(String word) {
        return io.volery.server.config.VoleryConfig.FOUR_LETTER_WORDS.contains(word);
    }

    /** The answer to {@code word}; a known word that is not enabled gets ZooKeeper's refusal. */
    public String answer(String word) {
        if (!enabled.contains(word)) {
            return word + " is not executed because it is not in the whitelist.\n";
        }
        return switch (word) {
            case "ruok" -> "imok";
            case "srvr" -> srvr();
            case "stat" -> stat();
            case "mntr" -> mntr();
            case "cons" -> cons();
            case "wchs" -> wchs();
            case "wchc" -> wchc();
            case "wchp" -> wchp();
            case "dump" -> dump();
            case "conf" -> conf();
            case "envi" -> envi();
            case "isro" -> "rw";
            case "dgst" -> dgst();
            default -> throw new IllegalArgumentException("not a four-letter word: " + word);
        };
    }

    /**
     * Volery's own word: the replica's recent state digests, one {@code position digest} line per
     * command, oldest first. Replicas of a partition must agree at every position they share.
     */
    private String dgst() {
        StringBuilder b = new StringBuilder();
        for (StateDigest d : monitor.recentDigests()) {
            b.append(Position.toString(d.position())).append(' ').append(d.digest()).append('\n');
        }
        return b.toString();
    }

    private String srvr() {
        return "Zookeeper version: " + VERSION + "\n" + serverLines(monitor.census()) + voleryLines();
    }

    private String stat() {
        StringBuilder b = new StringBuilder("Zookeeper version: ").append(VERSION).append('\n').append("Clients:\n");
        for (MonitoredService.ConnectionView c : monitor.service().connections()) {
            b.append(' ').append(address(c.remote())).append('[').append(c.sessionId() == 0 ? 0 : 1)
                    .append("](queued=0,recved=").append(c.stats().received.get())
                    .append(",sent=").append(c.stats().sent.get()).append(")\n");
        }
        b.append('\n');
        return b.append(serverLines(monitor.census())).append(voleryLines()).toString();
    }

    private String serverLines(TreeCensus census) {
        MonitoredService s = monitor.service();
        return "Latency min/avg/max: " + s.minLatencyMillis() + "/" + s.avgLatencyMillis() + "/" + s.maxLatencyMillis() + "\n"
                + "Received: " + monitor.frontEnd().requestsTotal() + "\n"
                + "Sent: " + (monitor.frontEnd().requestsTotal() - s.outstanding() + monitor.frontEnd().notificationsSent()) + "\n"
                + "Connections: " + monitor.frontEnd().connectionsOpen() + "\n"
                + "Outstanding: " + s.outstanding() + "\n"
                + "Zxid: 0x" + Long.toHexString(census.lastZxid()) + "\n"
                + "Mode: " + monitor.mode() + "\n"
                + "Node count: " + census.nodeCount() + "\n";
    }

    /** Volery's section: the node's partition and the rings it takes part in. */
    private String voleryLines() {
        NodeStatus st = monitor.ringStatus();
        StringBuilder b = new StringBuilder("Volery node: ").append(monitor.facts().nodeId()).append('\n')
                .append("Volery partition: ").append(monitor.facts().partition()).append('\n')
                .append("Volery position: ").append(Position.toString(st.lastDeliveredPosition())).append('\n');
        for (NodeStatus.RingStatus r : st.rings()) {
            b.append("Volery ring ").append(r.ringId()).append(": coordinator=").append(r.coordinatorId())
                    .append(" decided=").append(r.highestDecidedInstance())
                    .append(" next=").append(r.learnerNextInstance())
                    .append(" lag=").append(NodeMonitor.lag(r))
                    .append(r.acceptorRejoining() ? " acceptor=rejoining" : "").append('\n');
        }
        return b.toString();
    }

    private String mntr() {
        StringBuilder b = new StringBuilder();
        mntrValues().forEach((k, v) -> b.append(k).append('\t').append(v).append('\n'));
        return b.toString();
    }

    /** mntr's keys and values, in its order (AdminServer's {@code monitor} too, without the zk_ prefix). */
    Map<String, Object> mntrValues() {
        TreeCensus c = monitor.census();
        MonitoredService s = monitor.service();
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("zk_version", VERSION);
        m.put("zk_server_state", monitor.mode());
        m.put("zk_ephemerals_count", c.ephemeralsCount());
        m.put("zk_num_alive_connections", monitor.frontEnd().connectionsOpen());
        m.put("zk_avg_latency", s.avgLatencyMillis());
        m.put("zk_outstanding_requests", s.outstanding());
        m.put("zk_znode_count", c.nodeCount());
        m.put("zk_global_sessions", c.sessions().size());
        m.put("zk_non_mtls_remote_conn_count", 0);
        m.put("zk_connection_rejected", monitor.connectionsRejected());
        m.put("volery_tls_handshake_failures", monitor.frontEnd().tlsHandshakeFailures());
        m.put("volery_peer_tls", monitor.peerTls() ? 1 : 0);
        m.put("volery_peer_tls_handshake_failures", monitor.peerTlsHandshakeFailures());
        m.put("volery_tls_handshakes_abandoned", monitor.frontEnd().tlsHandshakesAbandoned());
        m.put("volery_peer_tls_handshakes_abandoned", monitor.peerTlsHandshakesAbandoned());
        long[] clientStores = monitor.clientTlsStoreReloads();
        long[] peerStores = monitor.peerTlsStoreReloads();
        m.put("volery_tls_store_reloads", clientStores[0]);
        m.put("volery_tls_store_reload_failures", clientStores[1]);
        m.put("volery_peer_tls_store_reloads", peerStores[0]);
        m.put("volery_peer_tls_store_reload_failures", peerStores[1]);
        long[] clusterFile = monitor.clusterFileReloads();
        m.put("volery_cluster_file_reloads", clusterFile[0]);
        m.put("volery_cluster_file_refused", clusterFile[1]);
        m.put("zk_packets_sent", monitor.frontEnd().requestsTotal() - s.outstanding() + monitor.frontEnd().notificationsSent());
        m.put("zk_packets_received", monitor.frontEnd().requestsTotal());
        m.put("zk_watch_count", c.watchCount());
        m.put("zk_min_latency", s.minLatencyMillis());
        m.put("zk_max_file_descriptor_count", fileDescriptors(false));
        m.put("zk_approximate_data_size", c.approximateDataSize());
        m.put("zk_open_file_descriptor_count", fileDescriptors(true));
        m.put("zk_local_sessions", 0);
        m.put("zk_uptime", monitor.uptimeMillis());
        m.put("zk_max_latency", s.maxLatencyMillis());
        m.put("zk_bytes_received_count", monitor.frontEnd().bytesReceived());
        m.put("zk_response_bytes", monitor.frontEnd().bytesSent());
        // ZooKeeper's quota gauges and refusals, per namespace, for the quotas this node's partition holds (ADR 072)
        c.quotas().forEach((namespace, q) -> {
            if (q[5] == 1) {
                m.put("zk_" + namespace + "_quota_count_limit_per_namespace", q[0]);
                m.put("zk_" + namespace + "_quota_bytes_limit_per_namespace", q[1]);
            }
            if (q[6] == 1) {
                m.put("zk_" + namespace + "_quota_count_usage_per_namespace", q[2]);
                m.put("zk_" + namespace + "_quota_bytes_usage_per_namespace", q[3]);
            }
            if (q[4] > 0) {
                m.put("zk_" + namespace + "_quota_exceeded_error_per_namespace", q[4]);
            }
        });
        NodeStatus st = monitor.ringStatus();
        m.put("volery_node", monitor.facts().nodeId());
        m.put("volery_partition", monitor.facts().partition());
        m.put("volery_position", Position.toString(st.lastDeliveredPosition()));
        m.put("volery_signal_waits", monitor.probe().signalWaits());
        m.put("volery_signal_wait_ms", monitor.probe().signalWaitNanos() / 1_000_000);
        NodeMonitor.Durability d = monitor.durability();
        // numeric like every mntr value (tools parse them): the raw global position, -1 for none
        m.put("volery_checkpoint_position", d.checkpointPosition());
        m.put("volery_checkpoints_corrupt", d.corruptCheckpoints());
        m.put("volery_acceptor_torn_bytes", d.tornLogBytes());
        m.put("volery_snapshots_fetched", d.snapshotsFetched());
        long[] side = d.sideRequests();
        m.put("volery_side_requests_served", side[0]);
        m.put("volery_side_requests_refused", side[1]);
        m.put("volery_state_transfers", d.stateTransfers());
        m.put("volery_learner_repositions", d.learnerRepositions());
        m.put("volery_frames_dropped", monitor.framesDropped());
        m.put("volery_frames_sent", monitor.framesSent());
        m.put("volery_socket_writes", monitor.socketWrites());
        m.put("volery_proposal_gap_resends", st.proposalGapResends());
        m.put("volery_fetches_sent", st.fetchesSent());
        m.put("volery_fetched_bytes", st.fetchedValueBytes());
        m.put("volery_reordered_resends", monitor.reorderedResends());
        m.put("volery_local_reply_fallbacks", monitor.localReplyFallbacks());
        m.put("volery_handoffs_from_dead_front_ends", monitor.handoffsFromDeadFrontEnds());
        m.put("volery_handoffs_timed_out", monitor.handoffsTimedOut());
        m.put("volery_replayed_events_dropped", monitor.replayedEventsDropped());
        m.put("volery_requests_in_service", monitor.requestsInService());
        m.put("volery_requests_resent", monitor.requestsResent());
        NodeMonitor.ReplicaCounters rc = monitor.replicaCounters();
        m.put("volery_deliveries_waiting", rc.deliveriesWaiting());
        m.put("volery_commands_executed", rc.commandsExecuted());
        m.put("volery_duplicates_answered", rc.duplicatesAnswered());
        m.put("volery_reply_table_clients", rc.replyTableClients());
        m.put("volery_clients_retired", rc.clientsRetired());
        m.put("volery_retired_refused", rc.retiredRefused());
        m.put("volery_clients_expired", rc.clientsExpired());
        m.put("volery_expired_refused", rc.expiredRefused());
        m.put("volery_exchanges_sent", rc.exchangesSent());
        m.put("volery_asks_sent", rc.asksSent());
        m.put("volery_asks_answered", rc.asksAnswered());
        m.put("volery_catch_up_exchanges_sent", rc.catchUpExchangesSent());
        m.put("volery_catch_up_exchanges_skipped", rc.catchUpExchangesSkipped());
        m.put("volery_volunteerings", rc.volunteerings());
        m.put("volery_volunteering_ms", rc.volunteeringMillis());
        m.put("volery_long_exchange_waits", rc.longExchangeWaits());
        m.put("volery_exchanges_redundant", rc.exchangesRedundant());
        m.put("volery_independent_commands", rc.independentCommands());
        m.put("volery_executor_signal_wait_ms", rc.signalWaitNanos() / 1_000_000);
        m.put("volery_executor_value_wait_ms", rc.valueWaitNanos() / 1_000_000);
        m.put("volery_deferred_commands", rc.deferredCommands());
        m.put("volery_replies_left_to_others", rc.repliesLeftToOthers());
        m.put("volery_executor_settle_wait_ms", rc.settleWaitNanos() / 1_000_000);
        for (NodeStatus.RingStatus r : st.rings()) {
            m.put("volery_ring_" + r.ringId() + "_coordinator", r.coordinatorId());
            m.put("volery_ring_" + r.ringId() + "_decided", r.highestDecidedInstance());
            m.put("volery_ring_" + r.ringId() + "_next", r.learnerNextInstance());
            m.put("volery_ring_" + r.ringId() + "_lag", NodeMonitor.lag(r));
            m.put("volery_ring_" + r.ringId() + "_acceptor_rejoining", r.acceptorRejoining() ? 1 : 0);
        }
        return m;
    }

    private String cons() {
        StringBuilder b = new StringBuilder();
        for (MonitoredService.ConnectionView c : monitor.service().connections()) {
            MonitoredService.ConnectionStats s = c.stats();
            b.append(' ').append(address(c.remote())).append('[').append(c.sessionId() == 0 ? 0 : 1)
                    .append("](queued=0,recved=").append(s.received.get()).append(",sent=").append(s.sent.get());
            if (c.sessionId() != 0) {
                long[] lat = s.latencies();
                b.append(",sid=0x").append(Long.toHexString(c.sessionId()))
                        .append(",lop=").append(lastOperation(s))
                        .append(",est=").append(s.established)
                        .append(",to=").append(s.timeout)
                        .append(",lcxid=0x").append(Integer.toHexString(s.lastCxid))
                        .append(",lzxid=0x").append(Long.toHexString(s.lastZxid))
                        .append(",lresp=").append(s.lastResponse)
                        .append(",llat=").append(s.lastLatency)
                        .append(",minlat=").append(lat[0]).append(",avglat=").append(lat[1]).append(",maxlat=").append(lat[2]);
            }
            b.append(")\n");
        }
        return b.append('\n').toString();
    }

    private String wchs() {
        TreeCensus c = monitor.census();
        return c.dataWatchedPaths().size() + " connections watching " + c.watchedPaths().size() + " paths\nTotal watches:"
                + c.dataWatchCount() + "\n";
    }

    private String wchc() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<Long, SortedSet<String>> e : monitor.census().dataWatchedPaths().entrySet()) {
            b.append("0x").append(Long.toHexString(e.getKey())).append('\n');
            e.getValue().forEach(p -> b.append('\t').append(p).append('\n'));
        }
        return b.append('\n').toString();
    }

    private String wchp() {
        StringBuilder b = new StringBuilder();
        monitor.census().sessionsByWatchedPath().forEach((p, sessions) -> {
            b.append(p).append('\n');
            sessions.forEach(s -> b.append("\t0x").append(Long.toHexString(s)).append('\n'));
        });
        return b.append('\n').toString();
    }

    private String dump() {
        TreeCensus c = monitor.census();
        Map<Long, List<Long>> byDeadline = c.sessionsByDeadline();
        StringBuilder b = new StringBuilder("SessionTracker dump:\n")
                .append("Session Sets (").append(byDeadline.size()).append(")/(").append(c.sessions().size()).append("):\n");
        byDeadline.forEach((deadline, ids) -> {
            b.append(ids.size()).append(" expire at ").append(new Date(deadline)).append(":\n");
            ids.forEach(id -> b.append("\t0x").append(Long.toHexString(id)).append('\n'));
        });
        List<TreeCensus.SessionInfo> withEphemerals = c.sessions().stream().filter(s -> !s.ephemerals().isEmpty()).toList();
        b.append("ephemeral nodes dump:\nSessions with Ephemerals (").append(withEphemerals.size()).append("):\n");
        for (TreeCensus.SessionInfo s : withEphemerals) {
            b.append("0x").append(Long.toHexString(s.id())).append(":\n");
            new TreeSet<>(s.ephemerals()).forEach(p -> b.append('\t').append(p).append('\n'));
        }
        List<MonitoredService.ConnectionView> cons = monitor.service().connections();
        b.append("Connections dump:\nConnections Sets (").append(cons.isEmpty() ? 0 : 1).append(")/(")
                .append(cons.size()).append("):\n");
        if (!cons.isEmpty()) {
            b.append(cons.size()).append(" expire at ").append(new Date()).append(":\n");
            cons.forEach(x -> b.append("\tip: ").append(address(x.remote())).append(" sessionId: 0x")
                    .append(Long.toHexString(x.sessionId())).append('\n'));
        }
        return b.toString();
    }

    private String conf() {
        NodeMonitor.NodeFacts f = monitor.facts();
        return "clientPort=" + f.clientPort() + "\n"
                + "secureClientPort=" + f.secureClientPort() + "\n"
                + "dataDir=" + f.dataDir() + "\n"
                + "dataDirSize=" + directorySize(f.dataDir()) + "\n"
                + "dataLogDir=" + (f.logDir() == null ? f.dataDir() : f.logDir()) + "\n"
                + "dataLogSize=" + directorySize(f.logDir() == null ? f.dataDir() : f.logDir()) + "\n"
                + "tickTime=" + f.tickTime() + "\n"
                + "maxClientCnxns=" + monitor.connectionLimits().perAddress() + "\n"
                + "minSessionTimeout=" + f.minSessionTimeout() + "\n"
                + "maxSessionTimeout=" + f.maxSessionTimeout() + "\n"
                + "clientPortListenBacklog=-1\n"
                + "serverId=" + f.nodeId() + "\n"
                + "volery.partition=" + f.partition() + "\n"
                + "volery.partitions=" + f.partitions() + "\n"
                + "volery.replicas=" + f.replicasInPartition() + "\n"
                + "volery.partitioning=" + f.partitioning() + "\n"
                + "jute.maxbuffer=" + f.juteMaxBuffer() + "\n";
    }

    private static String envi() {
        Runtime rt = Runtime.getRuntime();
        String host;
        try {
            host = InetAddress.getLocalHost().getCanonicalHostName();
        } catch (java.io.IOException e) {
            host = "<NA>";
        }
        StringBuilder b = new StringBuilder("Environment:\n").append("zookeeper.version=").append(VERSION).append('\n')
                .append("host.name=").append(host).append('\n');
        for (String p : new String[] {"java.version", "java.vendor", "java.home", "java.class.path", "java.library.path",
                "java.io.tmpdir", "java.compiler", "os.name", "os.arch", "os.version", "user.name", "user.home", "user.dir"}) {
            b.append(p).append('=').append(System.getProperty(p, "<NA>")).append('\n');
        }
        b.append("os.memory.free=").append(rt.freeMemory() / (1024 * 1024)).append("MB\n")
                .append("os.memory.max=").append(rt.maxMemory() / (1024 * 1024)).append("MB\n")
                .append("os.memory.total=").append(rt.totalMemory() / (1024 * 1024)).append("MB\n");
        return b.toString();
    }

    /** A connection's last operation as cons names it: NA before any, PING, or the op's four-letter code. */
    static String lastOperation(MonitoredService.ConnectionStats s) {
        return s.lastOp == Integer.MIN_VALUE ? "NA" : s.lastOp == 11 ? "PING" : OpNames.code(s.lastOp);
    }

    static String address(InetSocketAddress a) {
        return a == null ? "/unknown" : "/" + a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    static long directorySize(String dir) {
        if (dir == null) {
            return 0;
        }
        try (var files = java.nio.file.Files.walk(java.nio.file.Path.of(dir))) {
            return files.filter(java.nio.file.Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    private static long fileDescriptors(boolean open) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return open ? u.getOpenFileDescriptorCount() : u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    private static String voleryVersion() {
        String v = FourLetterWords.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }

    private static String buildTime() {
        try {
            var location = FourLetterWords.class.getProtectionDomain().getCodeSource().getLocation();
            long modified = new java.io.File(location.toURI()).lastModified();
            SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT);
            f.setTimeZone(TimeZone.getTimeZone("UTC"));
            return f.format(new Date(modified));
        } catch (RuntimeException | java.net.URISyntaxException e) {
            return "unknown";
        }
    }
}
