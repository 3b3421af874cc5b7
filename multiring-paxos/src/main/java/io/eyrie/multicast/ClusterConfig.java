package io.eyrie.multicast;

import java.io.IOException;
import java.io.StringReader;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The static cluster file: nodes, rings (acceptors in ring order), the group-to-ring map and the
 * ring ALL, plus protocol parameters. Nothing external (no ZooKeeper) decides membership.
 *
 * <pre>
 * # node.ID = host:port ; node.ID.groups = the groups whose messages this node delivers
 * node.1 = 127.0.0.1:7001
 * node.1.groups = 1
 * # ring.ID.acceptors = node ids in ring order
 * ring.1.acceptors = 1,2,3
 * ring.2.acceptors = 4,5,6
 * ring.0.acceptors = 1,2,3
 * # group.ID.ring = the ring that orders messages to that group alone
 * group.1.ring = 1
 * group.2.ring = 2
 * # the ring that orders messages to several groups; every learner subscribes to it
 * ring.all = 0
 * </pre>
 *
 * A ring's learners are the nodes that deliver a group mapped to it; the ALL ring's learners are all
 * nodes that deliver any group. Unknown keys are rejected, so a typo cannot pass silently.
 */
public final class ClusterConfig {

    /** How acceptors keep their state. */
    public enum StorageMode { MEMORY, DURABLE }

    public record Node(int id, String host, int port, int[] groups) {
    }

    public record Ring(int id, int[] acceptors, int[] learners) {
        public int quorum() {
            return acceptors.length / 2 + 1;
        }

        public boolean isAcceptor(int nodeId) {
            return Arrays.stream(acceptors).anyMatch(a -> a == nodeId);
        }

        public boolean isLearner(int nodeId) {
            return Arrays.stream(learners).anyMatch(a -> a == nodeId);
        }
    }

    /** Protocol parameters, with defaults; times in milliseconds. */
    public record Parameters(int slotsPerRound, int batchMaxBytes, int batchMaxMessages,
                             int maxInFlightInstances, long heartbeatIntervalMillis, long suspectTimeoutMillis,
                             long retransmitTimeoutMillis, StorageMode storage, String dataDir,
                             int memoryMaxInstances, long segmentBytes, int phase1RangeInstances,
                             long memoryMaxBytes, int partialBatchesInFlight, int batchTargetBytes,
                             long lingerMillis) {
        /**
         * Default {@code batch.targetBytes}: a coordinator closes a batch once the next proposal would
         * take it past this many bytes (a single larger proposal still goes alone, up to batch.maxBytes).
         * It keeps batches, and the frames and log records that carry them, below half of a 1 MiB G1
         * region, where the JVM would allocate each as a humongous object straight in the old generation,
         * whatever batch.maxBytes a deployment needs for its largest message (ADR 045).
         */
        public static final int DEFAULT_BATCH_TARGET_BYTES = 256 * 1024;

        /**
         * Default {@code timeout.heartbeatMillis}: five heartbeats per default suspect timeout (500 ms). Every
         * node heartbeats its rings' acceptors and every acceptor its rings' learners, so at 4 partitions of
         * 3 an idle cluster sent ~1,800 frames a second at 50 ms; at 100 ms it used a third less CPU (ADR 047).
         */
        public static final long DEFAULT_HEARTBEAT_MILLIS = 100;

        /**
         * {@code storage.memoryMaxBytes = auto}, the default: the process's in-memory acceptor logs together
         * hold at most a quarter of the JVM's maximum heap, each an equal share of it and at most 256 MiB
         * ({@code MemoryLogBudget}, ADR 056). A fixed 256 MiB per log ran a dev cluster (nine logs in one
         * JVM) out of heap within a minute of writes.
         */
        public static final long MEMORY_MAX_BYTES_AUTO = 0;

        public static Parameters defaults() {
            return new Parameters(1, 256 * 1024, 1024, 64, DEFAULT_HEARTBEAT_MILLIS, 500, 100, StorageMode.MEMORY, "data",
                    1_000_000, 64L * 1024 * 1024, 1_000_000, MEMORY_MAX_BYTES_AUTO, 2, DEFAULT_BATCH_TARGET_BYTES, 0);
        }

        /** Bytes at which a batch closes: batch.targetBytes, or batch.maxBytes if that is smaller. */
        public int batchCloseBytes() {
            return Math.min(batchTargetBytes, batchMaxBytes);
        }
    }

    private final Map<Integer, Node> nodes;
    private final Map<Integer, Ring> rings;
    private final Map<Integer, Integer> groupToRing;
    private final int allRingId;
    private final Parameters parameters;
    /** Mutual TLS between the nodes (ADR 061), or null for plain TCP. */
    private PeerTls peerTls;

    public ClusterConfig(Map<Integer, Node> nodes, Map<Integer, Ring> rings, Map<Integer, Integer> groupToRing,
                         int allRingId, Parameters parameters) {
        this.nodes = Collections.unmodifiableMap(new TreeMap<>(nodes));
        this.rings = Collections.unmodifiableMap(new TreeMap<>(rings));
        this.groupToRing = Collections.unmodifiableMap(new TreeMap<>(groupToRing));
        this.allRingId = allRingId;
        this.parameters = parameters;
        validate();
    }

    public Map<Integer, Node> nodes() {
        return nodes;
    }

    /** Mutual TLS between the nodes ({@code sslQuorum = true}; ADR 061), or null: plain TCP. */
    public PeerTls peerTls() {
        return peerTls;
    }

    /** This cluster with mutual TLS between its nodes (null: none). */
    public ClusterConfig withPeerTls(PeerTls tls) {
        ClusterConfig c = new ClusterConfig(nodes, rings, groupToRing, allRingId, parameters);
        c.peerTls = tls;
        return c;
    }

    /**
     * What differs between this file and {@code other} besides nodes' addresses (host and port): nodes, their
     * groups, rings and their acceptors, groups' rings, the ALL ring, parameters. Empty when the two differ only
     * where a running cluster can take a new file up (ADR 102); peer TLS settings are not compared.
     */
    public List<String> differencesBesidesAddresses(ClusterConfig other) {
        List<String> d = new java.util.ArrayList<>();
        if (!nodes.keySet().equals(other.nodes.keySet())) {
            d.add("nodes " + nodes.keySet() + " become " + other.nodes.keySet());
        } else {
            for (Node n : nodes.values()) {
                int[] g = other.nodes.get(n.id()).groups();
                if (!Arrays.equals(n.groups(), g)) {
                    d.add("node." + n.id() + ".groups " + Arrays.toString(n.groups()) + " becomes " + Arrays.toString(g));
                }
            }
        }
        if (!rings.keySet().equals(other.rings.keySet())) {
            d.add("rings " + rings.keySet() + " become " + other.rings.keySet());
        } else {
            for (Ring r : rings.values()) {
                int[] a = other.rings.get(r.id()).acceptors();
                if (!Arrays.equals(r.acceptors(), a)) {
                    d.add("ring." + r.id() + ".acceptors " + Arrays.toString(r.acceptors()) + " become "
                            + Arrays.toString(a));
                }
            }
        }
        if (!groupToRing.equals(other.groupToRing)) {
            d.add("groups' rings " + groupToRing + " become " + other.groupToRing);
        }
        if (allRingId != other.allRingId) {
            d.add("ring.all " + allRingId + " becomes " + other.allRingId);
        }
        if (!parameters.equals(other.parameters)) {
            d.add("parameters " + parameters + " become " + other.parameters);
        }
        return d;
    }

    public Node node(int id) {
        Node n = nodes.get(id);
        if (n == null) {
            throw new IllegalArgumentException("no node " + id + " in the cluster file (nodes: " + nodes.keySet() + ")");
        }
        return n;
    }

    public Map<Integer, Ring> rings() {
        return rings;
    }

    public Ring ring(int id) {
        Ring r = rings.get(id);
        if (r == null) {
            throw new IllegalArgumentException("no ring " + id + " in the cluster file (rings: " + rings.keySet() + ")");
        }
        return r;
    }

    public Map<Integer, Integer> groupToRing() {
        return groupToRing;
    }

    public Set<Integer> groups() {
        return groupToRing.keySet();
    }

    /** The nodes whose groups contain {@code group}, ascending. */
    public int[] nodesInGroup(int group) {
        return nodes.values().stream().filter(n -> Arrays.binarySearch(n.groups(), group) >= 0)
                .mapToInt(Node::id).sorted().toArray();
    }

    public int allRingId() {
        return allRingId;
    }

    public Parameters parameters() {
        return parameters;
    }

    /** The ring that orders a message to {@code groups} (sorted, non-empty, known). */
    public int ringFor(int[] groups) {
        if (groups.length == 0) {
            throw new IllegalArgumentException("a multicast needs at least one group");
        }
        for (int g : groups) {
            if (!groupToRing.containsKey(g)) {
                throw new IllegalArgumentException("unknown group " + g + " (groups: " + groupToRing.keySet() + ")");
            }
        }
        if (groups.length == 1) {
            return groupToRing.get(groups[0]);
        }
        return allRingId;
    }

    /** The rings node {@code nodeId} learns, ascending. */
    public int[] ringsLearnedBy(int nodeId) {
        return rings.values().stream().filter(r -> r.isLearner(nodeId)).mapToInt(Ring::id).toArray();
    }

    /** The rings node {@code nodeId} is an acceptor of, ascending. */
    public int[] ringsAcceptedBy(int nodeId) {
        return rings.values().stream().filter(r -> r.isAcceptor(nodeId)).mapToInt(Ring::id).toArray();
    }

    private void validate() {
        if (nodes.isEmpty()) {
            throw new ConfigException("no nodes: add node.ID = host:port lines");
        }
        if (!rings.containsKey(allRingId)) {
            throw new ConfigException("ring.all = " + allRingId + " names no ring: add ring." + allRingId + ".acceptors");
        }
        for (Ring r : rings.values()) {
            if (r.id() < 0 || r.id() >= Position.MAX_RINGS) {
                throw new ConfigException("ring." + r.id() + ": ring ids must be in [0, " + (Position.MAX_RINGS - 1) + "]");
            }
            if (r.acceptors().length == 0) {
                throw new ConfigException("ring." + r.id() + ".acceptors is empty");
            }
            Set<Integer> seen = new TreeSet<>();
            for (int a : r.acceptors()) {
                if (!nodes.containsKey(a)) {
                    throw new ConfigException("ring." + r.id() + ".acceptors names node " + a + ", which has no node." + a + " line");
                }
                if (!seen.add(a)) {
                    throw new ConfigException("ring." + r.id() + ".acceptors lists node " + a + " twice");
                }
            }
        }
        for (Map.Entry<Integer, Integer> e : groupToRing.entrySet()) {
            if (!rings.containsKey(e.getValue())) {
                throw new ConfigException("group." + e.getKey() + ".ring = " + e.getValue() + " names no ring");
            }
            if (e.getValue() == allRingId && groupToRing.size() > 1) {
                // With one group the ALL ring may order it (a learner of a single ring, no merge).
                throw new ConfigException("group." + e.getKey() + ".ring: the ALL ring " + allRingId
                        + " cannot be a group's own ring when there are several groups");
            }
        }
        for (Node n : nodes.values()) {
            if (n.id() < 1 || n.id() > Ballot.MAX_NODE_ID) {
                throw new ConfigException("node." + n.id() + ": node ids must be in [1, " + Ballot.MAX_NODE_ID + "]");
            }
            for (int g : n.groups()) {
                if (!groupToRing.containsKey(g)) {
                    throw new ConfigException("node." + n.id() + ".groups names group " + g + ", which has no group." + g + ".ring line");
                }
            }
        }
        Parameters p = parameters;
        if (p.slotsPerRound() < 1 || p.slotsPerRound() > Position.MAX_SLOTS_PER_ROUND) {
            throw new ConfigException("merge.slotsPerRound must be in [1, " + Position.MAX_SLOTS_PER_ROUND + "]");
        }
        if (p.batchMaxMessages() < 1 || p.batchMaxMessages() > Position.MAX_BATCH_MESSAGES) {
            throw new ConfigException("batch.maxMessages must be in [1, " + Position.MAX_BATCH_MESSAGES + "]");
        }
        if (p.batchMaxBytes() < 1024) {
            throw new ConfigException("batch.maxBytes must be at least 1024");
        }
        if (p.batchTargetBytes() < 1024) {
            throw new ConfigException("batch.targetBytes must be at least 1024");
        }
        if (p.maxInFlightInstances() < 1 || p.maxInFlightInstances() > 4096) {
            throw new ConfigException("ring.maxInFlight must be in [1, 4096]");
        }
        if (p.partialBatchesInFlight() < 1 || p.partialBatchesInFlight() > 4096) {
            throw new ConfigException("ring.partialBatchesInFlight must be in [1, 4096]");
        }
        if (p.lingerMillis() < 0 || p.lingerMillis() > 1000) {
            throw new ConfigException("ring.lingerMillis must be in [0, 1000]");
        }
        if (p.memoryMaxBytes() != Parameters.MEMORY_MAX_BYTES_AUTO && p.memoryMaxBytes() < 1024 * 1024) {
            throw new ConfigException("storage.memoryMaxBytes must be auto or at least 1048576");
        }
        if (p.suspectTimeoutMillis() <= p.heartbeatIntervalMillis()) {
            throw new ConfigException("timeout.suspectMillis must exceed timeout.heartbeatMillis");
        }
    }

    /** Parses a cluster file. */
    public static ClusterConfig load(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** Parses cluster-file text; {@code source} names it in error messages. */
    public static ClusterConfig parse(String text, String source) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        readLines(text, source, values, lines);
        return fromMap(values, lines, source);
    }

    /**
     * The {@code key = value} lines of cluster-file text, stripped, in file order (comments and blank lines left
     * out), whatever the keys: a file's other readers (Volery's keys) and comparisons of two versions use it.
     *
     * @throws ConfigException on a line without '=' or a key set twice
     */
    public static Map<String, String> keyValues(String text, String source) {
        Map<String, String> values = new LinkedHashMap<>();
        readLines(text, source, values, new LinkedHashMap<>());
        return values;
    }

    private static void readLines(String text, String source, Map<String, String> values, Map<String, Integer> lines) {
        try (BufferedReader r = new BufferedReader(new StringReader(text))) {
            String line;
            int no = 0;
            while ((line = r.readLine()) != null) {
                no++;
                String t = line.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                int eq = t.indexOf('=');
                if (eq < 0) {
                    throw new ConfigException(source + ":" + no + ": expected key = value, got '" + t + "'");
                }
                String key = t.substring(0, eq).strip();
                String value = t.substring(eq + 1).strip();
                if (values.containsKey(key)) {
                    throw new ConfigException(source + ":" + no + ": key '" + key + "' already set on line " + lines.get(key));
                }
                values.put(key, value);
                lines.put(key, no);
            }
        } catch (IOException e) {
            throw new ConfigException("cannot read " + source + ": " + e.getMessage());
        }
    }

    private static ClusterConfig fromMap(Map<String, String> values, Map<String, Integer> lines, String source) {
        Map<Integer, String[]> nodeAddr = new TreeMap<>();
        Map<Integer, int[]> nodeGroups = new TreeMap<>();
        Map<Integer, int[]> ringAcceptors = new TreeMap<>();
        Map<Integer, Integer> groupRing = new TreeMap<>();
        Integer all = null;
        Map<String, String> tlsKeys = new TreeMap<>();
        Parameters d = Parameters.defaults();
        int slotsPerRound = d.slotsPerRound();
        int batchMaxBytes = d.batchMaxBytes();
        int batchTargetBytes = d.batchTargetBytes();
        int batchMaxMessages = d.batchMaxMessages();
        int maxInFlight = d.maxInFlightInstances();
        int partialInFlight = d.partialBatchesInFlight();
        long linger = d.lingerMillis();
        long heartbeat = d.heartbeatIntervalMillis();
        long suspect = d.suspectTimeoutMillis();
        long retransmit = d.retransmitTimeoutMillis();
        StorageMode storage = d.storage();
        String dataDir = d.dataDir();
        int memMax = d.memoryMaxInstances();
        long memMaxBytes = d.memoryMaxBytes();
        long segmentBytes = d.segmentBytes();
        int phase1Range = d.phase1RangeInstances();

        for (Map.Entry<String, String> e : values.entrySet()) {
            String key = e.getKey();
            String v = e.getValue();
            String where = source + ":" + lines.get(key) + ": " + key;
            String[] parts = key.split("\\.");
            try {
                if (parts[0].equals("node") && parts.length == 2) {
                    int id = Integer.parseInt(parts[1]);
                    int colon = v.lastIndexOf(':');
                    if (colon <= 0) {
                        throw new ConfigException(where + ": expected host:port, got '" + v + "'");
                    }
                    int port = Integer.parseInt(v.substring(colon + 1));
                    if (port < 0 || port > 65535) {
                        throw new ConfigException(where + ": port out of range: " + port);
                    }
                    nodeAddr.put(id, new String[] {v.substring(0, colon), String.valueOf(port)});
                } else if (parts[0].equals("node") && parts.length == 3 && parts[2].equals("groups")) {
                    nodeGroups.put(Integer.parseInt(parts[1]), intList(v, where));
                } else if (parts[0].equals("ring") && parts.length == 2 && parts[1].equals("all")) {
                    all = Integer.parseInt(v);
                } else if (parts[0].equals("ring") && parts.length == 3 && parts[2].equals("acceptors")) {
                    ringAcceptors.put(Integer.parseInt(parts[1]), intList(v, where));
                } else if (parts[0].equals("group") && parts.length == 3 && parts[2].equals("ring")) {
                    groupRing.put(Integer.parseInt(parts[1]), Integer.parseInt(v));
                } else if (key.equals("sslQuorum") || QUORUM_TLS_KEYS.contains(key)) {
                    tlsKeys.put(key, v);
                } else {
                    switch (key) {
                        case "merge.slotsPerRound" -> slotsPerRound = Integer.parseInt(v);
                        case "batch.maxBytes" -> batchMaxBytes = Integer.parseInt(v);
                        case "batch.targetBytes" -> batchTargetBytes = Integer.parseInt(v);
                        case "batch.maxMessages" -> batchMaxMessages = Integer.parseInt(v);
                        case "ring.maxInFlight" -> maxInFlight = Integer.parseInt(v);
                        case "ring.partialBatchesInFlight" -> partialInFlight = Integer.parseInt(v);
                        case "ring.lingerMillis" -> linger = Long.parseLong(v);
                        case "timeout.heartbeatMillis" -> heartbeat = Long.parseLong(v);
                        case "timeout.suspectMillis" -> suspect = Long.parseLong(v);
                        case "timeout.retransmitMillis" -> retransmit = Long.parseLong(v);
                        case "storage" -> {
                            try {
                                storage = StorageMode.valueOf(v.toUpperCase(java.util.Locale.ROOT));
                            } catch (IllegalArgumentException ex) {
                                throw new ConfigException(where + ": expected memory or durable, got '" + v + "'");
                            }
                        }
                        case "dataDir" -> dataDir = v;
                        case "storage.memoryMaxInstances" -> memMax = Integer.parseInt(v);
                        case "storage.memoryMaxBytes" -> {
                            if ("auto".equalsIgnoreCase(v)) {
                                memMaxBytes = Parameters.MEMORY_MAX_BYTES_AUTO;
                            } else if ((memMaxBytes = Long.parseLong(v)) == Parameters.MEMORY_MAX_BYTES_AUTO) {
                                throw new ConfigException(where + ": must be auto or at least 1048576, got " + v);
                            }
                        }
                        case "storage.segmentBytes" -> segmentBytes = Long.parseLong(v);
                        case "ring.phase1Range" -> phase1Range = Integer.parseInt(v);
                        default -> throw new ConfigException(where + ": unknown key");
                    }
                }
            } catch (NumberFormatException ex) {
                throw new ConfigException(where + ": not a number: '" + v + "'");
            }
        }
        if (all == null) {
            throw new ConfigException(source + ": missing key ring.all (the ring that orders multi-group messages)");
        }
        for (Integer id : nodeGroups.keySet()) {
            if (!nodeAddr.containsKey(id)) {
                throw new ConfigException(source + ":" + lines.get("node." + id + ".groups") + ": node." + id
                        + ".groups given but node." + id + " has no address line");
            }
        }
        Map<Integer, Node> nodes = new TreeMap<>();
        for (Map.Entry<Integer, String[]> e : nodeAddr.entrySet()) {
            int[] groups = nodeGroups.getOrDefault(e.getKey(), new int[0]).clone();
            Arrays.sort(groups);
            nodes.put(e.getKey(), new Node(e.getKey(), e.getValue()[0], Integer.parseInt(e.getValue()[1]), groups));
        }
        Map<Integer, Ring> rings = new TreeMap<>();
        for (Map.Entry<Integer, int[]> e : ringAcceptors.entrySet()) {
            int ringId = e.getKey();
            List<Integer> learners = new ArrayList<>();
            for (Node n : nodes.values()) {
                boolean learns = false;
                for (int g : n.groups()) {
                    Integer gr = groupRing.get(g);
                    if (ringId == all || (gr != null && gr == ringId)) {
                        learns = true;
                    }
                }
                if (learns) {
                    learners.add(n.id());
                }
            }
            rings.put(ringId, new Ring(ringId, e.getValue(), learners.stream().mapToInt(Integer::intValue).toArray()));
        }
        Parameters p = new Parameters(slotsPerRound, batchMaxBytes, batchMaxMessages, maxInFlight, heartbeat, suspect,
                retransmit, storage, dataDir, memMax, segmentBytes, phase1Range, memMaxBytes, partialInFlight,
                batchTargetBytes, linger);
        ClusterConfig config = new ClusterConfig(nodes, rings, groupRing, all, p);
        config.peerTls = peerTls(tlsKeys, lines, source);
        return config;
    }

    /** ZooKeeper's quorum TLS keys (without its {@code zookeeper.} prefix). */
    private static final Set<String> QUORUM_TLS_KEYS = Set.of("ssl.quorum.keyStore.location",
            "ssl.quorum.keyStore.password", "ssl.quorum.keyStore.passwordPath", "ssl.quorum.keyStore.type",
            "ssl.quorum.trustStore.location", "ssl.quorum.trustStore.password", "ssl.quorum.trustStore.passwordPath",
            "ssl.quorum.trustStore.type", "ssl.quorum.enabledProtocols", "ssl.quorum.ciphersuites",
            "ssl.quorum.hostnameVerification", "sslQuorumReloadCertFiles", "ssl.quorum.crl", "ssl.quorum.ocsp");

    private static PeerTls peerTls(Map<String, String> keys, Map<String, Integer> lines, String source) {
        java.util.function.BiFunction<String, String, ConfigException> error =
                (key, message) -> new ConfigException(source + ":" + lines.get(key) + ": " + key + ": " + message);
        String on = keys.get("sslQuorum");
        if (on == null || on.equalsIgnoreCase("false")) {
            for (String key : keys.keySet()) {
                if (!key.equals("sslQuorum")) {
                    throw error.apply(key, "needs sslQuorum = true");
                }
            }
            return null;
        }
        if (!on.equalsIgnoreCase("true")) {
            throw error.apply("sslQuorum", "must be true or false, got '" + on + "'");
        }
        for (String required : List.of("ssl.quorum.keyStore.location", "ssl.quorum.trustStore.location")) {
            if (!keys.containsKey(required)) {
                throw new ConfigException(source + ":" + lines.get("sslQuorum") + ": sslQuorum: needs " + required);
            }
        }
        String verify = keys.getOrDefault("ssl.quorum.hostnameVerification", "true");
        if (!verify.equalsIgnoreCase("true") && !verify.equalsIgnoreCase("false")) {
            throw error.apply("ssl.quorum.hostnameVerification", "must be true or false, got '" + verify + "'");
        }
        String reload = keys.getOrDefault("sslQuorumReloadCertFiles", "false");
        if (!reload.equalsIgnoreCase("true") && !reload.equalsIgnoreCase("false")) {
            throw error.apply("sslQuorumReloadCertFiles", "must be true or false, got '" + reload + "'");
        }
        TlsStore keyStore = tlsStore(keys, "ssl.quorum.keyStore", source, error);
        TlsStore trustStore = tlsStore(keys, "ssl.quorum.trustStore", source, error).withRevocation(
                TlsStore.Revocation.of(flag(keys, "ssl.quorum.crl", error), flag(keys, "ssl.quorum.ocsp", error)));
        try {
            return new PeerTls(keyStore, trustStore, commaList(keys.get("ssl.quorum.enabledProtocols")),
                    commaList(keys.get("ssl.quorum.ciphersuites")), verify.equalsIgnoreCase("true"),
                    reload.equalsIgnoreCase("true"));
        } catch (IllegalArgumentException e) {
            String key = e.getMessage().startsWith("cannot use key store") ? "ssl.quorum.keyStore.location"
                    : e.getMessage().startsWith("cannot use trust store") ? "ssl.quorum.trustStore.location"
                    : keys.containsKey("ssl.quorum.ciphersuites") ? "ssl.quorum.ciphersuites" : "ssl.quorum.enabledProtocols";
            throw new ConfigException(source + ":" + lines.get(key) + ": " + key + ": " + e.getMessage());
        }
    }

    /** A true/false key, false when absent. */
    private static boolean flag(Map<String, String> keys, String key,
                                java.util.function.BiFunction<String, String, ConfigException> error) {
        String v = keys.getOrDefault(key, "false").strip();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw error.apply(key, "must be true or false, got '" + v + "'");
        }
        return v.equalsIgnoreCase("true");
    }

    /**
     * The TLS store a file's {@code PREFIX.location}, {@code .password} or {@code .passwordPath} and {@code .type}
     * keys name (ZooKeeper's), the location and password file relative to the file; {@code error} makes the
     * exception naming a key. For Eyrie's quorum keys and Volery's client-port keys alike.
     */
    public static TlsStore tlsStore(Map<String, String> keys, String prefix, String source,
                                    java.util.function.BiFunction<String, String, ConfigException> error) {
        java.nio.file.Path location = relativeTo(source, keys.get(prefix + ".location"));
        if (!java.nio.file.Files.isRegularFile(location)) {
            throw error.apply(prefix + ".location", "no such file: " + location);
        }
        String password = keys.get(prefix + ".password");
        String passwordPath = keys.get(prefix + ".passwordPath");
        if (password != null && passwordPath != null) {
            throw error.apply(prefix + ".passwordPath", "set either " + prefix + ".password or " + prefix
                    + ".passwordPath, not both");
        }
        if (passwordPath != null) {
            java.nio.file.Path file = relativeTo(source, passwordPath);
            try {
                // as ZooKeeper: the file's text without a trailing line break
                password = java.nio.file.Files.readString(file).stripTrailing();
            } catch (IOException e) {
                throw error.apply(prefix + ".passwordPath", "cannot read " + file + ": " + e.getMessage());
            }
        }
        TlsStore store = new TlsStore(location, password == null ? null : password.toCharArray(), keys.get(prefix + ".type"));
        if (!store.supported()) {
            throw error.apply(keys.containsKey(prefix + ".type") ? prefix + ".type" : prefix + ".location", "store type "
                    + store.type() + " is not supported: use PKCS12 or JKS (openssl pkcs12 -export turns PEM files into PKCS12)");
        }
        return store;
    }

    /**
     * A path as a cluster file names it: relative to the file's directory when the text came from a file,
     * else to the working directory.
     */
    public static java.nio.file.Path relativeTo(String source, String name) {
        java.nio.file.Path path = java.nio.file.Path.of(name.strip());
        if (!path.isAbsolute()) {
            try {
                java.nio.file.Path from = java.nio.file.Path.of(source).toAbsolutePath();
                if (java.nio.file.Files.isRegularFile(from)) {
                    path = from.getParent().resolve(path);
                }
            } catch (java.nio.file.InvalidPathException e) {
                // a label, not a file
            }
        }
        return path;
    }

    /** A comma list's non-blank items, stripped; empty for null. */
    public static List<String> commaList(String v) {
        List<String> out = new ArrayList<>();
        if (v != null) {
            for (String s : v.split(",")) {
                if (!s.isBlank()) {
                    out.add(s.strip());
                }
            }
        }
        return out;
    }

    private static int[] intList(String v, String where) {
        if (v.isBlank()) {
            return new int[0];
        }
        try {
            return Arrays.stream(v.split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
        } catch (NumberFormatException ex) {
            throw new ConfigException(where + ": expected a comma-separated list of ids, got '" + v + "'");
        }
    }

    /** A cluster file that cannot be used; the message names the file, line and key. */
    public static final class ConfigException extends IllegalArgumentException {
        public ConfigException(String message) {
            super(message);
        }
    }
}
