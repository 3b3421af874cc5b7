package io.volery.server.admin;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The answers of ZooKeeper's AdminServer commands (ADR 068): the same facts as the four-letter words, as JSON
 * objects with ZooKeeper 3.9.5's names, each ending in {@code "command"} (the command's primary name) and
 * {@code "error"} (null, or why it could not run). Commands are found by primary name or by ZooKeeper's
 * aliases (the four-letter words).
 */
public final class AdminCommands {
    private final NodeMonitor monitor;
    private final FourLetterWords words;
    private final Map<String, Supplier<Map<String, Object>>> commands = new LinkedHashMap<>();
    private final Map<String, String> aliases = new TreeMap<>();

    public AdminCommands(NodeMonitor monitor) {
        this.monitor = monitor;
        this.words = new FourLetterWords(monitor, io.volery.server.config.VoleryConfig.FOUR_LETTER_WORDS);
        add("configuration", this::configuration, "conf", "config");
        add("connections", this::connections, "cons");
        add("dump", this::dump);
        add("environment", this::environment, "envi", "env");
        add("is_read_only", () -> object("read_only", false), "isro");
        add("monitor", this::monitorValues, "mntr");
        add("ruok", LinkedHashMap::new);
        add("server_stats", this::serverStats, "srvr");
        add("stats", this::stats, "stat");
        add("watch_summary", this::watchSummary, "wchs");
        add("watches", this::watches, "wchc");
        add("watches_by_path", this::watchesByPath, "wchp");
    }

    private void add(String name, Supplier<Map<String, Object>> answer, String... names) {
        commands.put(name, answer);
        aliases.put(name, name);
        for (String alias : names) {
            aliases.put(alias, name);
        }
    }

    /** The primary names, sorted, as ZooKeeper lists them. */
    public List<String> names() {
        return new ArrayList<>(new TreeSet<>(commands.keySet()));
    }

    /** The answer to {@code name} (a primary name or an alias), or ZooKeeper's "Unknown command" answer. */
    public Map<String, Object> run(String name) {
        String primary = aliases.get(name);
        Map<String, Object> answer;
        if (primary == null) {
            answer = new LinkedHashMap<>();
            answer.put("command", name);
            answer.put("error", "Unknown command: " + name);
            return answer;
        }
        try {
            answer = new LinkedHashMap<>(commands.get(primary).get());
            answer.put("command", primary);
            answer.put("error", null);
        } catch (RuntimeException e) {
            answer = new LinkedHashMap<>();
            answer.put("command", primary);
            answer.put("error", "Failed to run " + primary + ": " + e);
        }
        return answer;
    }

    private static Map<String, Object> object(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    /** mntr's values under ZooKeeper's JSON names (no zk_ prefix); Volery's keep theirs. */
    private Map<String, Object> monitorValues() {
        Map<String, Object> m = new LinkedHashMap<>();
        words.mntrValues().forEach((k, v) -> m.put(k.startsWith("zk_") ? k.substring(3) : k, v));
        return m;
    }

    private Map<String, Object> serverStats() {
        Map<String, Object> mntr = monitorValues();
        NodeMonitor.NodeFacts f = monitor.facts();
        Map<String, Object> responses = object("last_buffer_size", -1, "min_buffer_size", -1, "max_buffer_size", -1);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("packets_sent", mntr.get("packets_sent"));
        stats.put("packets_received", mntr.get("packets_received"));
        stats.put("fsync_threshold_exceed_count", 0);
        stats.put("client_response_stats", responses);
        stats.put("provider_null", false);
        stats.put("data_dir_size", FourLetterWords.directorySize(f.dataDir()));
        stats.put("log_dir_size", FourLetterWords.directorySize(f.logDir() == null ? f.dataDir() : f.logDir()));
        stats.put("last_processed_zxid", monitor.census().lastZxid());
        stats.put("outstanding_requests", mntr.get("outstanding_requests"));
        stats.put("server_state", mntr.get("server_state"));
        stats.put("avg_latency", mntr.get("avg_latency"));
        stats.put("max_latency", mntr.get("max_latency"));
        stats.put("min_latency", mntr.get("min_latency"));
        stats.put("num_alive_client_connections", mntr.get("num_alive_connections"));
        stats.put("uptime", mntr.get("uptime"));
        stats.put("auth_failed_count", mntr.getOrDefault("auth_failed_count", 0));
        stats.put("non_mtlsremote_conn_count", 0);
        stats.put("non_mtlslocal_conn_count", 0);
        return object("version", FourLetterWords.VERSION, "read_only", false, "server_stats", stats,
                "client_response", responses, "node_count", monitor.census().nodeCount(),
                "volery_node", f.nodeId(), "volery_partition", f.partition());
    }

    private Map<String, Object> stats() {
        Map<String, Object> m = serverStats();
        m.putAll(connections());
        return m;
    }

    private Map<String, Object> connections() {
        List<Map<String, Object>> list = new ArrayList<>();
        List<Map<String, Object>> secure = new ArrayList<>();
        for (MonitoredService.ConnectionView c : monitor.service().connections()) {
            MonitoredService.ConnectionStats s = c.stats();
            Map<String, Object> m = new LinkedHashMap<>();
            InetSocketAddress a = c.remote();
            m.put("remote_socket_address", a == null ? "unknown" : a.getAddress().getHostAddress() + ":" + a.getPort());
            m.put("interest_ops", 1);
            m.put("outstanding_requests", 0);
            m.put("packets_received", s.received.get());
            m.put("packets_sent", s.sent.get());
            if (c.sessionId() != 0) {
                long[] lat = s.latencies();
                m.put("session_id", c.sessionId());
                m.put("last_operation", FourLetterWords.lastOperation(s));
                m.put("established", s.established);
                m.put("session_timeout", s.timeout);
                m.put("last_cxid", s.lastCxid);
                m.put("last_zxid", s.lastZxid);
                m.put("last_response_time", s.lastResponse);
                m.put("last_latency", s.lastLatency);
                m.put("min_latency", lat[0]);
                m.put("avg_latency", lat[1]);
                m.put("max_latency", lat[2]);
            }
            (c.secure() ? secure : list).add(m);
        }
        return object("connections", list, "secure_connections", secure);
    }

    private Map<String, Object> configuration() {
        NodeMonitor.NodeFacts f = monitor.facts();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("client_port", f.clientPort());
        if (f.secureClientPort() > 0) {
            m.put("secure_client_port", f.secureClientPort());
        }
        m.put("data_dir", f.dataDir());
        m.put("data_log_dir", f.logDir() == null ? f.dataDir() : f.logDir());
        m.put("tick_time", f.tickTime());
        m.put("max_client_cnxns", monitor.connectionLimits().perAddress());
        m.put("min_session_timeout", f.minSessionTimeout());
        m.put("max_session_timeout", f.maxSessionTimeout());
        m.put("server_id", f.nodeId());
        m.put("client_port_listen_backlog", -1);
        m.put("volery_partition", f.partition());
        m.put("volery_partitions", f.partitions());
        m.put("volery_replicas", f.replicasInPartition());
        m.put("volery_partitioning", f.partitioning());
        m.put("volery_jute_maxbuffer", f.juteMaxBuffer());
        return m;
    }

    private Map<String, Object> environment() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String line : words.answer("envi").split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return m;
    }

    private Map<String, Object> watchSummary() {
        TreeCensus c = monitor.census();
        return object("num_connections", c.dataWatchedPaths().size(), "num_paths", c.watchedPaths().size(),
                "num_total_watches", c.dataWatchCount());
    }

    private Map<String, Object> watches() {
        Map<String, Object> bySession = new LinkedHashMap<>();
        monitor.census().dataWatchedPaths().forEach((session, paths) -> bySession.put(Long.toString(session), List.copyOf(paths)));
        return object("session_id_to_watched_paths", bySession);
    }

    private Map<String, Object> watchesByPath() {
        return object("path_to_session_ids", new LinkedHashMap<String, Object>(monitor.census().sessionsByWatchedPath()));
    }

    private Map<String, Object> dump() {
        TreeCensus c = monitor.census();
        Map<String, Object> ephemerals = new LinkedHashMap<>();
        for (TreeCensus.SessionInfo s : c.sessions()) {
            if (!s.ephemerals().isEmpty()) {
                ephemerals.put(Long.toString(s.id()), new ArrayList<>(new TreeSet<>(s.ephemerals())));
            }
        }
        Map<String, Object> expiry = new LinkedHashMap<>();
        c.sessionsByDeadline().forEach((deadline, ids) -> expiry.put(Long.toString(deadline), ids));
        return object("expiry_time_to_session_ids", expiry, "session_id_to_ephemeral_paths", ephemerals);
    }
}
