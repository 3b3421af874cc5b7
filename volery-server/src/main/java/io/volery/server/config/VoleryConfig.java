package io.volery.server.config;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.ClusterConfig.ConfigException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Volery cluster file: the Eyrie ring keys that {@link ClusterConfig} reads, plus Volery's own keys
 * in the zoo.cfg spirit. One file describes the whole cluster, so every node reads the same one.
 *
 * <pre>
 * node.1 = 10.0.0.1:7001          # ring (multicast) address, read by ClusterConfig
 * node.1.groups = 1               # the partition this node is a replica of
 * node.1.clientPort = 2181        # where ZooKeeper clients connect
 * node.1.clientHost = 0.0.0.0     # optional: the address the client port binds (default: the node's host)
 * node.1.advertisedClientAddress = 203.0.113.5:2181  # optional: the node's client address in /zookeeper/config,
 *                                 # for clients that reach it through another one (NAT, container port mappings;
 *                                 # default: clientHost:clientPort; ADR 097)
 * node.1.metricsPort = 9141       # optional: Prometheus endpoint (absent or 0: off)
 * node.1.adminPort = 8080         # optional: ZooKeeper's AdminServer commands over HTTP (absent or 0: off; ADR 068)
 * admin.enableServer = true       # and admin.serverAddress (default: the client host); commands under /commands
 * tickTime = 2000
 * minSessionTimeout = 4000        # default 2 ticks
 * maxSessionTimeout = 40000       # default 20 ticks
 * jute.maxbuffer = 1048575
 * partitioning = subtree          # subtree | hash
 * superDigest = super:base64(sha1(super:password))
 * 4lw.commands.whitelist = *      # four-letter words answered (comma list or *)
 * logDir = /var/log/volery        # optional: a log file per node (default: standard error)
 * session.touchMillis = 500
 * snapCount = 100000              # deliveries between replica snapshots (storage = durable only)
 * snapMaxAgeSeconds = 60          # and a snapshot at the first delivery this long after the last (0: off)
 * sasl.jaasFile = /etc/volery/jaas.conf  # optional: SASL DIGEST-MD5 users (user_NAME="password") and/or a
 *                                 #   Krb5LoginModule keytab login (GSSAPI, ADR 069), as ZooKeeper
 * sasl.jaasSection = Server       # the JAAS file's section (ZooKeeper's zookeeper.sasl.serverconfig)
 * sasl.krb5Conf = /etc/krb5.conf  # optional: the Kerberos configuration (sets java.security.krb5.conf)
 * kerberos.removeHostFromPrincipal = false   # as ZooKeeper's zookeeper.kerberos.*: a Kerberos client's
 * kerberos.removeRealmFromPrincipal = false  #   identity without its principal's host / realm
 * security.auth_to_local = DEFAULT           # principal-to-short-name rules (zookeeper.security.auth_to_local)
 * sasl.superUsers = admin         # SASL identities that are super users (ZooKeeper's zookeeper.superUser)
 * enforce.auth.enabled = true     # optional: serve only connections authenticated by one of these schemes
 * enforce.auth.schemes = digest   # (ip, digest, sasl), as ZooKeeper's zookeeper.enforce.auth.*
 * sessionRequireClientSASLAuth = true  # optional: shorthand for the two above with sasl, as ZooKeeper's
 * maxClientCnxns = 60            # connections to one node from one IP address (0: no limit), as ZooKeeper's
 * maxCnxns = 0                   # connections to one node in all (0: no limit), as ZooKeeper's
 * globalOutstandingLimit = 1000  # requests of one node's clients ordered and not yet answered (ADR 064)
 * enforceQuota = false           # creates and setData past a quota's hard limit fail (zookeeper.enforceQuota; ADR 072)
 * node.1.secureClientPort = 2281 # optional: a TLS-only client port (ZooKeeper's secureClientPort; ADR 060)
 * ssl.keyStore.location = server.p12   # TLS for clients: the server's key (PKCS12 or JKS), as ZooKeeper's
 * ssl.keyStore.password = secret       #   zookeeper.ssl.* (also ssl.keyStore.passwordPath, ssl.keyStore.type)
 * ssl.trustStore.location = clients.p12  # the certificates client certificates must chain to (with
 * ssl.trustStore.password = secret       #   .passwordPath and .type too; absent: the JVM's default trust)
 * ssl.clientAuth = need          # need (default) | want | none: whether clients must present a certificate
 * ssl.enabledProtocols = TLSv1.3,TLSv1.2  # default both
 * ssl.ciphersuites =             # optional: comma list (default: the JVM's)
 * client.portUnification = false # true: the plain clientPort accepts TLS too
 * X509AuthenticationProvider.superUser = CN=admin,O=example  # a certificate subject DN that is super
 * ssl.clientHostnameVerification = false  # true: a client certificate must name the client's address (ADR 065)
 * client.certReload = false      # true: replaced key and trust stores are taken up without a restart (ADR 066)
 * audit.enable = false           # true: ZooKeeper's audit log, volery-ID-audit.log in audit.logDir (default: logDir)
 * ssl.crl = false                # true: client certificates are checked against their CA's CRL (ADR 067);
 * ssl.ocsp = false               #   and/or its OCSP responder
 * eyrie.sentPositionsMax = 4096   # recent commands whose exchanges a replica keeps for lagging partitions;
 *                                 # a replica further behind catches up by state transfer from a peer
 * </pre>
 *
 * Errors name the file, the line and the key.
 */
public final class VoleryConfig {

    /** How znodes are assigned to partitions. */
    public enum Partitioning { SUBTREE, HASH }

    /** Volery's per-node keys: node.ID.&lt;suffix&gt;. */
    private static final Set<String> NODE_KEYS = Set.of("clientPort", "clientHost", "metricsPort", "secureClientPort",
            "adminPort", "advertisedClientAddress");
    /** Volery's cluster-wide keys. */
    private static final Set<String> GLOBAL_KEYS = Set.of("tickTime", "minSessionTimeout", "maxSessionTimeout",
            "jute.maxbuffer", "partitioning", "superDigest", "4lw.commands.whitelist", "logDir", "session.touchMillis", "snapCount", "snapMaxAgeSeconds",
            "eyrie.sentPositionsMax", "sasl.jaasFile", "sasl.jaasSection", "sasl.superUsers", "sasl.krb5Conf",
            "kerberos.removeHostFromPrincipal", "kerberos.removeRealmFromPrincipal", "security.auth_to_local", "enforce.auth.enabled",
            "enforce.auth.schemes", "sessionRequireClientSASLAuth", "maxClientCnxns", "maxCnxns", "globalOutstandingLimit", "ssl.keyStore.location",
            "ssl.keyStore.password", "ssl.keyStore.passwordPath", "ssl.keyStore.type", "ssl.trustStore.location",
            "ssl.trustStore.password", "ssl.trustStore.passwordPath", "ssl.trustStore.type", "ssl.clientAuth",
            "ssl.enabledProtocols", "ssl.ciphersuites", "client.portUnification", "X509AuthenticationProvider.superUser", "ssl.hostnameVerification",
            "ssl.clientHostnameVerification", "client.certReload", "ssl.crl", "ssl.ocsp", "admin.enableServer",
            "admin.serverAddress", "audit.enable", "audit.logDir", "enforceQuota");

    /** The four-letter words Volery knows. */
    public static final Set<String> FOUR_LETTER_WORDS = Collections.unmodifiableSet(new LinkedHashSet<>(
            java.util.List.of("ruok", "srvr", "stat", "mntr", "cons", "wchs", "wchc", "wchp", "dump", "conf", "envi", "isro", "dgst")));

    /**
     * SASL authentication of clients (DIGEST-MD5, GSSAPI): who may authenticate, and which of them are super users.
     */
    public record Sasl(io.volery.server.frontend.SaslAuthentication users, Set<String> superUsers) {
        public Sasl {
            java.util.Objects.requireNonNull(users, "users");
            superUsers = Set.copyOf(superUsers);
        }
    }

    /** A node's Volery settings. */
    public record NodeSettings(int id, String clientHost, int clientPort, int metricsPort, int secureClientPort,
                               int adminPort) {
        public NodeSettings(int id, String clientHost, int clientPort, int metricsPort) {
            this(id, clientHost, clientPort, metricsPort, 0, 0);
        }
    }

    /**
     * ZooKeeper's AdminServer settings (ADR 068): whether nodes with an {@code adminPort} serve it, and the address
     * it binds (null: each node's client host).
     */
    public record AdminServer(boolean enabled, String address) {
        public static final AdminServer DEFAULT = new AdminServer(true, null);
    }

    private final String source;
    /** The text this configuration was read from (a later version of the file is compared with it, ADR 102). */
    private String text;
    private final ClusterConfig cluster;
    private final Map<Integer, NodeSettings> nodes;
    private final int tickTime;
    private final int minSessionTimeout;
    private final int maxSessionTimeout;
    private final int juteMaxBuffer;
    private final Partitioning partitioning;
    private final String superDigest;
    private final Set<String> fourLetterWords;
    private final Path logDir;
    private final long touchMillis;

    private VoleryConfig(String source, ClusterConfig cluster, Map<Integer, NodeSettings> nodes, int tickTime,
                         int minSessionTimeout, int maxSessionTimeout, int juteMaxBuffer, Partitioning partitioning,
                         String superDigest, Set<String> fourLetterWords, Path logDir, long touchMillis) {
        this.source = source;
        this.cluster = cluster;
        this.nodes = Collections.unmodifiableMap(nodes);
        this.tickTime = tickTime;
        this.minSessionTimeout = minSessionTimeout;
        this.maxSessionTimeout = maxSessionTimeout;
        this.juteMaxBuffer = juteMaxBuffer;
        this.partitioning = partitioning;
        this.superDigest = superDigest;
        this.fourLetterWords = Collections.unmodifiableSet(fourLetterWords);
        this.logDir = logDir;
        this.touchMillis = touchMillis;
    }

    /** A node's keys that the other nodes take up from a changed file while they run (ADR 102). */
    private static final Set<String> MOVABLE_NODE_KEYS = Set.of("clientPort", "clientHost", "advertisedClientAddress",
            "metricsPort", "secureClientPort", "adminPort");

    /**
     * Why node {@code self}, running with the file text {@code running}, cannot take up {@code next} without a
     * restart (ADR 102), or null when it can: every key must read as it did, except other nodes' addresses
     * ({@code node.ID = host:port} of a node in both versions) and their client-facing keys (ports, hosts, the
     * advertised address). Values are compared as written, so a default spelled out where it was left out is a change.
     *
     * @throws ClusterConfig.ConfigException when either text has a malformed line (parse it first)
     */
    public static String reloadRefusal(String running, String next, int self) {
        Map<String, String> was = ClusterConfig.keyValues(running, "the running cluster file");
        Map<String, String> now = ClusterConfig.keyValues(next, "the new cluster file");
        java.util.List<String> refused = new java.util.ArrayList<>();
        java.util.Set<String> keys = new java.util.TreeSet<>(was.keySet());
        keys.addAll(now.keySet());
        for (String key : keys) {
            String a = was.get(key);
            String b = now.get(key);
            if (java.util.Objects.equals(a, b)) {
                continue;
            }
            String[] parts = key.split("\\.");
            int node = parts.length >= 2 && parts[0].equals("node") ? nodeId(parts[1]) : -1;
            boolean movable = node >= 0 && node != self && was.containsKey("node." + node) && now.containsKey("node." + node)
                    && (parts.length == 2 ? a != null && b != null
                    : parts.length == 3 && MOVABLE_NODE_KEYS.contains(parts[2]));
            if (!movable) {
                refused.add(key + (a == null ? " added" : b == null ? " removed" : ": '" + a + "' becomes '" + b + "'"));
            }
        }
        if (refused.isEmpty()) {
            return null;
        }
        return "only other nodes' addresses can change while a node runs (restart every node for the rest): "
                + String.join("; ", refused);
    }

    private static int nodeId(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static VoleryConfig load(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(file + ": no such configuration file");
        }
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /**
     * Parses the text of a cluster file. Volery's lines are taken out (blanked, so that line numbers
     * stay right) and the rest goes to {@link ClusterConfig}, which rejects unknown keys.
     */
    /** What a native client needs of a configuration file: the rings and how paths map to partitions. */
    public record ClientView(ClusterConfig cluster, Partitioning partitioning) {
    }

    /**
     * Reads the rings and the partitioning of a Volery configuration file, or of a plain ring file
     * (subtree partitioning), without requiring what only servers need.
     */
    public static ClientView loadForClient(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException(file + ": no such configuration file");
        }
        Split split = split(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        return new ClientView(split.cluster(), partitioning(new Reader(file.toString(), split.values(), split.lineOf())));
    }

    private record Split(ClusterConfig cluster, Map<String, String> values, Map<String, Integer> lineOf,
                         Map<Integer, Map<String, String>> perNode) {
    }

    /** Takes Volery's lines out (blanked, so that line numbers stay right); the rest goes to {@link ClusterConfig}. */
    private static Split split(String text, String source) {
        String[] lines = text.split("\n", -1);
        StringBuilder ringPart = new StringBuilder();
        Map<String, Integer> lineOf = new TreeMap<>();
        Map<String, String> values = new TreeMap<>();
        Map<Integer, Map<String, String>> perNode = new TreeMap<>();
        for (int i = 0; i < lines.length; i++) {
            String t = lines[i].strip();
            int eq = t.indexOf('=');
            String key = eq < 0 || t.startsWith("#") ? null : t.substring(0, eq).strip();
            String value = key == null ? null : t.substring(eq + 1).strip();
            boolean volery = false;
            if (key != null) {
                String[] parts = key.split("\\.");
                if (parts.length == 3 && parts[0].equals("node") && NODE_KEYS.contains(parts[2])) {
                    int id;
                    try {
                        id = Integer.parseInt(parts[1]);
                    } catch (NumberFormatException e) {
                        throw new ConfigException(source + ":" + (i + 1) + ": " + key + ": node id is not a number");
                    }
                    perNode.computeIfAbsent(id, k -> new TreeMap<>());
                    volery = true;
                } else if (GLOBAL_KEYS.contains(key)) {
                    volery = true;
                }
                if (volery) {
                    if (lineOf.containsKey(key)) {
                        throw new ConfigException(source + ":" + (i + 1) + ": key '" + key + "' already set on line "
                                + lineOf.get(key));
                    }
                    lineOf.put(key, i + 1);
                    values.put(key, value);
                    if (parts.length == 3 && parts[0].equals("node") && NODE_KEYS.contains(parts[2])) {
                        perNode.get(Integer.parseInt(parts[1])).put(parts[2], value);
                    }
                }
            }
            ringPart.append(volery ? "" : lines[i]).append('\n');
        }
        return new Split(ClusterConfig.parse(ringPart.toString(), source), values, lineOf, perNode);
    }

    public static VoleryConfig parse(String text, String source) {
        Split split = split(text, source);
        ClusterConfig cluster = split.cluster();
        Map<String, String> values = split.values();
        Map<String, Integer> lineOf = split.lineOf();
        Map<Integer, Map<String, String>> perNode = split.perNode();
        Reader r = new Reader(source, values, lineOf);

        int tick = r.intValue("tickTime", 2000, 1, 600_000);
        int min = r.intValue("minSessionTimeout", 2 * tick, 1, Integer.MAX_VALUE);
        int max = r.intValue("maxSessionTimeout", 20 * tick, 1, Integer.MAX_VALUE);
        // The replicated tree bounds session timeouts to [2, 20] ticks, as ZooKeeper's defaults do.
        if (min < 2 * tick) {
            throw r.error("minSessionTimeout", "must be at least 2 ticks (" + 2 * tick + " ms with tickTime " + tick + ")");
        }
        if (max > 20 * tick) {
            throw r.error("maxSessionTimeout", "must be at most 20 ticks (" + 20 * tick + " ms with tickTime " + tick + ")");
        }
        if (max < min) {
            throw r.error("maxSessionTimeout", "must not be below minSessionTimeout (" + min + ")");
        }
        int jute = r.intValue("jute.maxbuffer", 0xfffff, 1024, Integer.MAX_VALUE - 1024);
        Partitioning partitioning = partitioning(r);
        String digest = values.get("superDigest");
        if (digest != null && !digest.matches("[^:]+:[A-Za-z0-9+/=]+")) {
            throw r.error("superDigest", "expected user:base64(sha1(user:password)), got '" + digest + "'");
        }
        Set<String> words = new LinkedHashSet<>();
        String wl = values.getOrDefault("4lw.commands.whitelist", "*");
        for (String w : wl.split(",")) {
            String word = w.strip();
            if (word.equals("*")) {
                words.addAll(FOUR_LETTER_WORDS);
            } else if (FOUR_LETTER_WORDS.contains(word)) {
                words.add(word);
            } else if (!word.isEmpty()) {
                throw r.error("4lw.commands.whitelist", "unknown four-letter word '" + word + "' (known: "
                        + String.join(",", FOUR_LETTER_WORDS) + ")");
            }
        }
        Path logDir = values.containsKey("logDir") ? Path.of(values.get("logDir")) : null;
        long touch = r.intValue("session.touchMillis", 500, 10, 60_000);
        if (touch * 2 > min) {
            throw r.error("session.touchMillis", "must be at most half of minSessionTimeout (" + min
                    + "), or sessions could expire between touches");
        }

        Map<Integer, NodeSettings> nodes = new TreeMap<>();
        for (int id : perNode.keySet()) {
            if (!cluster.nodes().containsKey(id)) {
                String key = "node." + id + "." + perNode.get(id).keySet().iterator().next();
                throw r.error(key, "node " + id + " has no node." + id + " = host:port line");
            }
        }
        Set<String> clientEndpoints = new java.util.HashSet<>();
        Map<Integer, java.net.InetSocketAddress> advertisedClients = new TreeMap<>();
        for (ClusterConfig.Node n : cluster.nodes().values()) {
            String prefix = "node." + n.id() + ".";
            if (n.groups().length == 0 && !perNode.containsKey(n.id())) {
                // a client node: a native Volery client multicasts through it (it serves no ZooKeeper clients)
                continue;
            }
            if (!values.containsKey(prefix + "clientPort")) {
                throw new ConfigException(source + ": missing key " + prefix + "clientPort (where ZooKeeper clients of node "
                        + n.id() + " connect)");
            }
            int clientPort = r.intValue(prefix + "clientPort", 0, 0, 65535);
            int metricsPort = r.intValue(prefix + "metricsPort", 0, 0, 65535);
            int securePort = r.intValue(prefix + "secureClientPort", 0, 0, 65535);
            int adminPort = r.intValue(prefix + "adminPort", 0, 0, 65535);
            if (securePort != 0 && !values.containsKey("ssl.keyStore.location")) {
                throw r.error(prefix + "secureClientPort", "needs ssl.keyStore.location (the server's TLS key and certificate)");
            }
            if (securePort != 0 && !clientEndpoints.add(n.host() + ":" + securePort)) {
                throw r.error(prefix + "secureClientPort", "port " + securePort + " on " + n.host() + " is used by another node or port");
            }
            String host = values.getOrDefault(prefix + "clientHost", n.host());
            if (clientPort != 0 && !clientEndpoints.add(n.host() + ":" + clientPort)) {
                throw r.error(prefix + "clientPort", "port " + clientPort + " on " + n.host() + " is used by another node");
            }
            if (n.groups().length != 1) {
                throw new ConfigException(source + ": node." + n.id() + ".groups must name exactly one partition");
            }
            nodes.put(n.id(), new NodeSettings(n.id(), host, clientPort, metricsPort, securePort, adminPort));
            String advertised = values.get(prefix + "advertisedClientAddress");
            if (advertised != null) {
                advertisedClients.put(n.id(), advertisedAddress(r, prefix + "advertisedClientAddress", advertised.trim()));
            }
        }
        VoleryConfig config = new VoleryConfig(source, cluster, nodes, tick, min, max, jute, partitioning, digest, words,
                logDir, touch);
        config.advertisedClients.putAll(advertisedClients);
        config.text = text;
        config.snapCount = r.intValue("snapCount", 100_000, 1, Integer.MAX_VALUE);
        config.snapMaxAgeSeconds = r.intValue("snapMaxAgeSeconds", DEFAULT_SNAP_MAX_AGE_SECONDS, 0, 86_400);
        config.sentPositionsMax = r.intValue("eyrie.sentPositionsMax", DEFAULT_SENT_POSITIONS_MAX, 1, Integer.MAX_VALUE);
        config.sasl = sasl(r, source);
        config.clientTls = clientTls(r, source);
        config.authEnforcement = authEnforcement(r, config.sasl != null, config.clientTls != null);
        config.connectionLimits = new io.volery.server.frontend.ConnectionLimits(
                r.intValue("maxClientCnxns", io.volery.server.frontend.ConnectionLimits.DEFAULT_PER_ADDRESS, 0, Integer.MAX_VALUE),
                r.intValue("maxCnxns", 0, 0, Integer.MAX_VALUE));
        config.globalOutstandingLimit = r.intValue("globalOutstandingLimit",
                io.volery.server.VoleryNode.Options.DEFAULT_OUTSTANDING_LIMIT, 1, Integer.MAX_VALUE);
        config.enforceQuota = r.booleanValue("enforceQuota");
        if (config.enforceQuota && partitioning == Partitioning.HASH) {
            // refused rather than ignored: a quota's subtree is spread over every partition under hash, and no
            // partition can count it, so its hard limits could not hold (ADR 072)
            throw r.error("enforceQuota", QUOTAS_NEED_SUBTREE);
        }
        config.adminServer = new AdminServer(!values.containsKey("admin.enableServer") || r.booleanValue("admin.enableServer"),
                values.containsKey("admin.serverAddress") ? values.get("admin.serverAddress").strip() : null);
        if (r.booleanValue("audit.enable")) {
            String dir = values.containsKey("audit.logDir") ? values.get("audit.logDir").strip()
                    : logDir == null ? null : logDir.toString();
            if (dir == null) {
                throw r.error("audit.enable", "needs audit.logDir or logDir (where volery-ID-audit.log goes)");
            }
            config.auditLogDir = Path.of(dir);
        } else if (values.containsKey("audit.logDir")) {
            throw r.error("audit.logDir", "needs audit.enable = true");
        }
        return config;
    }

    /** Why enforceQuota is refused under hash partitioning (the config file's error and the node options'). */
    public static final String QUOTAS_NEED_SUBTREE = "needs partitioning = subtree: under hash a quota's bytes are "
            + "spread over every partition, so none can check a write against the whole (ADR 072, ADR 089)";

    private Path auditLogDir;

    /**
     * The file of node {@code nodeId}'s audit log ({@code volery-ID-audit.log} in {@code audit.logDir}, else in
     * {@code logDir}; ADR 071), or null when {@code audit.enable} is not true.
     */
    public Path auditLog(int nodeId) {
        return auditLogDir == null ? null : auditLogDir.resolve("volery-" + nodeId + "-audit.log");
    }

    /** The file's text this configuration was read from. */
    public String text() {
        return text;
    }

    public String source() {
        return source;
    }

    /** The ring part: nodes, rings, groups (one group per partition) and protocol parameters. */
    public ClusterConfig cluster() {
        return cluster;
    }

    public Map<Integer, NodeSettings> nodes() {
        return nodes;
    }

    private final Map<Integer, java.net.InetSocketAddress> advertisedClients = new TreeMap<>();

    /**
     * Where clients reach node {@code id}'s client port, as {@code /zookeeper/config} lists it (ADR 097): its
     * {@code advertisedClientAddress}, else its client host and port (an unresolved address).
     */
    public java.net.InetSocketAddress advertisedClientAddress(int id) {
        NodeSettings n = node(id);
        return advertisedClients.getOrDefault(id, java.net.InetSocketAddress.createUnresolved(n.clientHost(), n.clientPort()));
    }

    /** "host:port" or "[v6]:port", with a port in 1..65535. */
    private static java.net.InetSocketAddress advertisedAddress(Reader r, String key, String value) {
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? "" : value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = colon < 0 ? -1 : Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 1 || port > 65535 || (host.indexOf(':') >= 0 && !value.startsWith("["))) {
            throw r.error(key, "expected host:port (an IPv6 address in brackets) with a port in 1..65535, got '" + value + "'");
        }
        return java.net.InetSocketAddress.createUnresolved(host, port);
    }

    public NodeSettings node(int id) {
        NodeSettings n = nodes.get(id);
        if (n == null) {
            throw new ConfigException(source + ": no node " + id + " (nodes: " + nodes.keySet() + ")");
        }
        return n;
    }

    /** The partition node {@code id} is a replica of. */
    public int partitionOf(int id) {
        return cluster.node(id).groups()[0];
    }

    public int tickTime() {
        return tickTime;
    }

    public int minSessionTimeout() {
        return minSessionTimeout;
    }

    public int maxSessionTimeout() {
        return maxSessionTimeout;
    }

    public int juteMaxBuffer() {
        return juteMaxBuffer;
    }

    public Partitioning partitioning() {
        return partitioning;
    }

    public String superDigest() {
        return superDigest;
    }

    public Set<String> fourLetterWords() {
        return fourLetterWords;
    }

    /** Where each node writes its log file, or null for standard error. */
    public Path logDir() {
        return logDir;
    }

    public long touchMillis() {
        return touchMillis;
    }

    private io.volery.server.frontend.ConnectionLimits connectionLimits;
    private int globalOutstandingLimit;
    private boolean enforceQuota;
    private AdminServer adminServer = AdminServer.DEFAULT;

    /** ZooKeeper's {@code zookeeper.enforceQuota} (key {@code enforceQuota}, default false; ADR 072). */
    public boolean enforceQuota() {
        return enforceQuota;
    }

    /** ZooKeeper's AdminServer settings (ADR 068). */
    public AdminServer adminServer() {
        return adminServer;
    }

    /**
     * ZooKeeper's {@code globalOutstandingLimit} (default 1000): the most requests of a node's clients that the
     * node has ordered and not yet answered; later ones wait in the node, unordered (ADR 064).
     */
    public int globalOutstandingLimit() {
        return globalOutstandingLimit;
    }

    /**
     * ZooKeeper's {@code maxClientCnxns} (connections to a node from one IP address, default 60) and
     * {@code maxCnxns} (to a node in all, default none); 0 is no limit.
     */
    public io.volery.server.frontend.ConnectionLimits connectionLimits() {
        return connectionLimits;
    }

    private int snapCount;
    private int snapMaxAgeSeconds;

    /**
     * Seconds after which a replica snapshots at its next delivery even before {@code snapCount} (ADR 055):
     * a restarted replica replays at most about this much history, and the other partitions keep what it
     * may ask for no longer than that.
     */
    public static final int DEFAULT_SNAP_MAX_AGE_SECONDS = 60;
    private int sentPositionsMax;

    /** Eyrie's default number of recent commands whose exchanges a replica keeps. */
    public static final int DEFAULT_SENT_POSITIONS_MAX = 4096;

    /**
     * How many recent commands' exchanges a replica keeps for replicas of other partitions that
     * replay them; one further behind catches up by state transfer ({@code eyrie.sentPositionsMax}).
     */
    public int sentPositionsMax() {
        return sentPositionsMax;
    }

    /** Deliveries between replica snapshots (taken only with {@code storage = durable}). */
    public int snapCount() {
        return snapCount;
    }

    /** A replica also snapshots at its first delivery this many seconds after its last snapshot; 0: by count only. */
    public int snapMaxAgeSeconds() {
        return snapMaxAgeSeconds;
    }

    private Sasl sasl;

    /** SASL authentication of clients, or null when the file sets no {@code sasl.jaasFile}. */
    public Sasl sasl() {
        return sasl;
    }

    private io.volery.server.frontend.AuthEnforcement authEnforcement = io.volery.server.frontend.AuthEnforcement.OFF;

    /** The schemes client connections must authenticate with before their requests are served (ADR 052). */
    public io.volery.server.frontend.AuthEnforcement authEnforcement() {
        return authEnforcement;
    }

    /**
     * ZooKeeper's rules: {@code sessionRequireClientSASLAuth = true} means sasl alone and overrides the
     * other two; {@code enforce.auth.enabled = true} needs {@code enforce.auth.schemes}, each one available
     * (sasl only with {@code sasl.jaasFile}).
     */
    private static io.volery.server.frontend.AuthEnforcement authEnforcement(Reader r, boolean saslConfigured,
                                                                           boolean tlsConfigured) {
        java.util.List<String> schemes = new java.util.ArrayList<>();
        String key;
        if (r.booleanValue("sessionRequireClientSASLAuth")) {
            key = "sessionRequireClientSASLAuth";
            schemes.add("sasl");
        } else if (r.booleanValue("enforce.auth.enabled")) {
            key = "enforce.auth.schemes";
            for (String s : r.values().getOrDefault(key, "").split(",")) {
                if (!s.isBlank()) {
                    schemes.add(s.strip());
                }
            }
            if (schemes.isEmpty()) {
                throw r.error(key, "must name at least one scheme when enforce.auth.enabled is true");
            }
        } else {
            return io.volery.server.frontend.AuthEnforcement.OFF;
        }
        io.volery.server.frontend.AuthEnforcement e;
        try {
            e = io.volery.server.frontend.AuthEnforcement.of(schemes);
        } catch (IllegalArgumentException ex) {
            throw r.error(key, ex.getMessage());
        }
        if (e.requiresSasl() && !saslConfigured) {
            throw r.error(key, "enforcing sasl needs sasl.jaasFile (the JAAS file with the SASL users)");
        }
        if (e.schemes().contains("x509") && !tlsConfigured) {
            throw r.error(key, "enforcing x509 needs TLS (ssl.keyStore.location and a secureClientPort or client.portUnification)");
        }
        return e;
    }

    private io.volery.server.frontend.ClientTls clientTls;

    /** TLS for ZooKeeper clients (ADR 060), or null when the file sets no {@code ssl.keyStore.location}. */
    public io.volery.server.frontend.ClientTls clientTls() {
        return clientTls;
    }

    private static final java.util.List<String> TLS_KEYS = java.util.List.of("ssl.keyStore.password",
            "ssl.keyStore.passwordPath", "ssl.keyStore.type", "ssl.trustStore.location", "ssl.trustStore.password",
            "ssl.trustStore.passwordPath", "ssl.trustStore.type", "ssl.clientAuth", "ssl.enabledProtocols",
            "ssl.ciphersuites", "client.portUnification", "X509AuthenticationProvider.superUser", "ssl.hostnameVerification",
            "ssl.clientHostnameVerification", "client.certReload", "ssl.crl", "ssl.ocsp");

    private static io.volery.server.frontend.ClientTls clientTls(Reader r, String source) {
        if (!r.values().containsKey("ssl.keyStore.location")) {
            for (String key : TLS_KEYS) {
                if (r.values().containsKey(key)) {
                    throw r.error(key, "needs ssl.keyStore.location (the server's TLS key and certificate)");
                }
            }
            return null;
        }
        io.eyrie.multicast.TlsStore keys = ClusterConfig.tlsStore(r.values(), "ssl.keyStore", source, r::error);
        io.eyrie.multicast.TlsStore trust = r.values().containsKey("ssl.trustStore.location")
                ? ClusterConfig.tlsStore(r.values(), "ssl.trustStore", source, r::error) : null;
        // ZooKeeper's ssl.crl and ssl.ocsp: client certificates' revocation (ADR 067)
        io.eyrie.multicast.TlsStore.Revocation revocation = io.eyrie.multicast.TlsStore.Revocation.of(
                r.booleanValue("ssl.crl"), r.booleanValue("ssl.ocsp"));
        if (revocation != io.eyrie.multicast.TlsStore.Revocation.NONE) {
            if (trust == null) {
                throw r.error(r.values().containsKey("ssl.crl") ? "ssl.crl" : "ssl.ocsp",
                        "needs ssl.trustStore.location (the CA whose certificates' revocation is checked)");
            }
            trust = trust.withRevocation(revocation);
        }
        io.volery.server.frontend.ClientTls.Auth auth;
        try {
            auth = io.volery.server.frontend.ClientTls.Auth.parse(r.values().get("ssl.clientAuth"));
        } catch (IllegalArgumentException e) {
            throw r.error("ssl.clientAuth", e.getMessage());
        }
        String superUser = r.values().get("X509AuthenticationProvider.superUser");
        if (superUser != null && !superUser.isBlank()) {
            try {
                new javax.security.auth.x500.X500Principal(superUser.strip());
            } catch (IllegalArgumentException e) {
                throw r.error("X509AuthenticationProvider.superUser", "not a distinguished name: " + e.getMessage());
            }
        }
        boolean unify = r.booleanValue("client.portUnification");
        // ZooKeeper's: client host names are checked only with both; the first defaults to true, the second,
        // for the client port, to false
        boolean hostnames = !r.values().containsKey("ssl.hostnameVerification") || r.booleanValue("ssl.hostnameVerification");
        boolean clientHostnames = hostnames && r.booleanValue("ssl.clientHostnameVerification");
        try {
            return new io.volery.server.frontend.ClientTls(keys, trust, auth, ClusterConfig.commaList(r.values().get("ssl.enabledProtocols")),
                    ClusterConfig.commaList(r.values().get("ssl.ciphersuites")), superUser, unify, clientHostnames,
                    r.booleanValue("client.certReload"));
        } catch (IllegalArgumentException e) {
            String key = e.getMessage().startsWith("cannot use trust store") ? "ssl.trustStore.location"
                    : e.getMessage().startsWith("cannot use key store") ? "ssl.keyStore.location" : "ssl.enabledProtocols";
            throw r.error(key, e.getMessage());
        }
    }

    private static Sasl sasl(Reader r, String source) {
        String file = r.values().get("sasl.jaasFile");
        if (file == null) {
            for (String key : java.util.List.of("sasl.jaasSection", "sasl.superUsers", "sasl.krb5Conf",
                    "kerberos.removeHostFromPrincipal", "kerberos.removeRealmFromPrincipal", "security.auth_to_local")) {
                if (r.values().containsKey(key)) {
                    throw r.error(key, "needs sasl.jaasFile (the JAAS file with the SASL users)");
                }
            }
            return null;
        }
        Path path = ClusterConfig.relativeTo(source, file);
        String krb5 = r.values().get("sasl.krb5Conf");
        if (krb5 != null) {
            Path krb5Path = ClusterConfig.relativeTo(source, krb5);
            if (!Files.isRegularFile(krb5Path)) {
                throw r.error("sasl.krb5Conf", "no such file: " + krb5Path);
            }
            // JVM-wide, as ZooKeeper's -Djava.security.krb5.conf; read at the JVM's first Kerberos use
            System.setProperty("java.security.krb5.conf", krb5Path.toString());
        }
        io.volery.server.frontend.KerberosNames names;
        try {
            names = new io.volery.server.frontend.KerberosNames(
                    r.values().getOrDefault("security.auth_to_local", io.volery.server.frontend.KerberosNames.DEFAULT_RULES),
                    r.booleanValue("kerberos.removeHostFromPrincipal"),
                    r.booleanValue("kerberos.removeRealmFromPrincipal"), null);
        } catch (IllegalArgumentException e) {
            throw r.error("security.auth_to_local", e.getMessage());
        }
        io.volery.server.frontend.SaslAuthentication users;
        try {
            users = io.volery.server.frontend.SaslAuthentication.fromJaas(path,
                    r.values().getOrDefault("sasl.jaasSection", "Server"), names);
        } catch (IllegalArgumentException e) {
            throw r.error("sasl.jaasFile", e.getMessage());
        }
        Set<String> superUsers = new LinkedHashSet<>();
        for (String u : r.values().getOrDefault("sasl.superUsers", "").split(",")) {
            if (!u.isBlank()) {
                superUsers.add(u.strip());
            }
        }
        return new Sasl(users, superUsers);
    }

    /** Typed access to Volery's values with errors naming line and key. */
    private static Partitioning partitioning(Reader r) {
        String p = r.values().getOrDefault("partitioning", "subtree");
        try {
            return Partitioning.valueOf(p.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw r.error("partitioning", "expected subtree or hash, got '" + p + "'");
        }
    }

    private record Reader(String source, Map<String, String> values, Map<String, Integer> lineOf) {
        int intValue(String key, int dflt, int min, int max) {
            String v = values.get(key);
            if (v == null) {
                return dflt;
            }
            long n;
            try {
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw error(key, "not a number: '" + v + "'");
            }
            if (n < min || n > max) {
                throw error(key, "must be in [" + min + ", " + max + "], got " + n);
            }
            return (int) n;
        }

        /** true or false (any case), false when absent; anything else is an error, not a silent false. */
        boolean booleanValue(String key) {
            String v = values.get(key);
            if (v == null || v.strip().equalsIgnoreCase("false")) {
                return false;
            }
            if (v.strip().equalsIgnoreCase("true")) {
                return true;
            }
            throw error(key, "must be true or false, got '" + v + "'");
        }

        ConfigException error(String key, String message) {
            Integer line = lineOf.get(key);
            return new ConfigException(source + (line == null ? "" : ":" + line) + ": " + key + ": " + message);
        }
    }
}
