package io.volery.server;

import io.eyrie.core.EyrieClient;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.volery.server.admin.FourLetterWordHandler;
import io.volery.server.admin.FourLetterWords;
import io.volery.server.admin.MetricsEndpoint;
import io.volery.server.admin.MonitoredService;
import io.volery.server.admin.NodeMonitor;
import io.volery.server.admin.VoleryMetrics;
import io.volery.server.config.VoleryConfig;
import io.volery.server.frontend.ZkFrontEnd;
import io.volery.server.internal.PathPartitioner;
import io.volery.server.internal.VoleryOracle;
import io.volery.server.internal.VoleryService;
import io.volery.server.internal.VoleryStateMachine;
import io.volery.server.tree.TreeConfig;
import io.volery.server.tree.ZnodeTree;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One Volery server: a replica of one partition (with its acceptor roles in the rings) and a
 * ZooKeeper front end whose sessions it serves as the Eyrie client.
 */
public final class VoleryNode implements AutoCloseable {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(VoleryNode.class);

    /**
     * Settings of a node beyond the cluster file.
     *
     * @param fourLetterWords   the four-letter words answered on the client port (others are refused)
     * @param metricsAddress    where the Prometheus endpoint listens, or null for none
     * @param minSessionTimeout the least session timeout granted, 0 for ZooKeeper's 2 ticks
     * @param maxSessionTimeout the largest session timeout granted, 0 for ZooKeeper's 20 ticks
     * @param adminAddress      where ZooKeeper's AdminServer commands are served over HTTP (ADR 068), or null for none
     * @param auditLog          the file of ZooKeeper's audit log (ADR 071), or null for none
     * @param enforceQuota      ZooKeeper's {@code zookeeper.enforceQuota}: creates and setData past a quota's hard
     *                          limit fail with QuotaExceeded (ADR 072); every node of a cluster must use the same
     */
    public record Options(InetSocketAddress clientAddress, int tickTimeMillis, int juteMaxBuffer, String superDigest,
                          long touchIntervalMillis, Set<String> fourLetterWords, InetSocketAddress metricsAddress,
                          int minSessionTimeout, int maxSessionTimeout, boolean reapsContainers,
                          VoleryConfig.Partitioning partitioning, VoleryConfig.Sasl sasl,
                          io.volery.server.frontend.AuthEnforcement authEnforcement,
                          io.volery.server.frontend.ConnectionLimits connectionLimits,
                          io.volery.server.frontend.ClientTls clientTls, InetSocketAddress secureClientAddress,
                          int outstandingLimit, InetSocketAddress adminAddress, java.nio.file.Path auditLog,
                          boolean enforceQuota) {
        /** ZooKeeper's globalOutstandingLimit default. */
        public static final int DEFAULT_OUTSTANDING_LIMIT = 1000;

        public Options {
            if (outstandingLimit < 1) {
                throw new IllegalArgumentException("globalOutstandingLimit must be at least 1, got " + outstandingLimit);
            }
            if (secureClientAddress != null && clientTls == null) {
                throw new IllegalArgumentException("a secure client port needs TLS settings (ssl.keyStore.location)");
            }
            if (authEnforcement.schemes().contains("x509") && clientTls == null) {
                throw new IllegalArgumentException("enforcing x509 authentication needs TLS (ssl.keyStore.location)");
            }
            Objects.requireNonNull(connectionLimits, "connectionLimits");
            Objects.requireNonNull(partitioning, "partitioning");
            Objects.requireNonNull(authEnforcement, "authEnforcement");
            if (authEnforcement.requiresSasl() && sasl == null) {
                throw new IllegalArgumentException("enforcing SASL authentication needs SASL (sasl.jaasFile)");
            }
            if (enforceQuota && partitioning == VoleryConfig.Partitioning.HASH) {
                throw new IllegalArgumentException("enforceQuota " + VoleryConfig.QUOTAS_NEED_SUBTREE);
            }
        }

        public static Options at(InetSocketAddress clientAddress) {
            return new Options(clientAddress, 2000, TreeConfig.DEFAULT_MAX_BUFFER, null, 500,
                    VoleryConfig.FOUR_LETTER_WORDS, null, 0, 0, true, VoleryConfig.Partitioning.SUBTREE, null,
                    io.volery.server.frontend.AuthEnforcement.OFF,
                    io.volery.server.frontend.ConnectionLimits.DEFAULT, null, null, DEFAULT_OUTSTANDING_LIMIT, null, null, false);
        }

        /** How paths map to partitions; every node of a cluster must use the same. */
        public Options withPartitioning(VoleryConfig.Partitioning p) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, p, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        /** Off only to compare with a ZooKeeper whose container manager is off: containers and TTL nodes stay. */
        public Options withContainerReaping(boolean reaps) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reaps, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withTickTime(int millis) {
            return new Options(clientAddress, millis, juteMaxBuffer, superDigest, touchIntervalMillis, fourLetterWords,
                    metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withSuperDigest(String digest) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, digest, touchIntervalMillis, fourLetterWords,
                    metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withJuteMaxBuffer(int bytes) {
            return new Options(clientAddress, tickTimeMillis, bytes, superDigest, touchIntervalMillis, fourLetterWords,
                    metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withTouchInterval(long millis) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, millis, fourLetterWords,
                    metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withFourLetterWords(Set<String> words) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis, words,
                    metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withMetrics(InetSocketAddress address) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, address, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        public Options withSessionTimeouts(int min, int max) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, min, max, reapsContainers, partitioning, sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        /** SASL authentication of clients (DIGEST-MD5, Kerberos; null: none); every node of a cluster must use the same. */
        public Options withSasl(VoleryConfig.Sasl settings) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    settings, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        /**
         * The schemes a client connection must authenticate with before its requests are served (ZooKeeper's
         * {@code enforce.auth}; ADR 052); "sasl" needs {@link #withSasl}. Every node should use the same.
         */
        public Options withAuthEnforcement(io.volery.server.frontend.AuthEnforcement enforcement) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, enforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        /**
         * ZooKeeper's maxClientCnxns (connections from one IP address) and maxCnxns (in all) for the node's
         * client port, 0 for no limit; the default is ZooKeeper's, 60 and none.
         */
        public Options withConnectionLimits(int perAddress, int total) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, authEnforcement, new io.volery.server.frontend.ConnectionLimits(perAddress, total), clientTls,
                    secureClientAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        /**
         * TLS for ZooKeeper clients (ADR 060): a TLS-only port at {@code secureAddress} (ZooKeeper's
         * secureClientPort; port 0 picks a free one; null for none), and on the plain port too with the
         * settings' port unification. Clients that present a trusted certificate are authenticated as
         * {@code x509:<subject DN>}; every node of a cluster should use the same settings.
         */
        /**
         * ZooKeeper's globalOutstandingLimit (ADR 064): the most requests of this node's clients ordered and not yet
         * answered; the rest wait in the node, unordered, so an overload queues where no timer runs.
         */
        public Options withOutstandingLimit(int limit) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, limit, adminAddress, auditLog, enforceQuota);
        }

        /** ZooKeeper's AdminServer commands over HTTP at {@code address} (ADR 068; port 0 picks one; null: none). */
        public Options withAdminServer(InetSocketAddress address) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, address, auditLog, enforceQuota);
        }

        /** ZooKeeper's {@code zookeeper.enforceQuota} (ADR 072); every node of a cluster must use the same. */
        public Options withQuotaEnforcement(boolean enforce) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress,
                    auditLog, enforce);
        }

        /** ZooKeeper's audit log (ADR 071), appended to {@code file}; null: none. */
        public Options withAuditLog(java.nio.file.Path file) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, authEnforcement, connectionLimits, clientTls, secureClientAddress, outstandingLimit, adminAddress,
                    file, enforceQuota);
        }

        public Options withTls(io.volery.server.frontend.ClientTls tls, InetSocketAddress secureAddress) {
            return new Options(clientAddress, tickTimeMillis, juteMaxBuffer, superDigest, touchIntervalMillis,
                    fourLetterWords, metricsAddress, minSessionTimeout, maxSessionTimeout, reapsContainers, partitioning,
                    sasl, authEnforcement, connectionLimits, tls, secureAddress, outstandingLimit, adminAddress, auditLog, enforceQuota);
        }

        /** A node's options as a Volery configuration file sets them. */
        public static Options of(VoleryConfig config, int nodeId) {
            VoleryConfig.NodeSettings n = config.node(nodeId);
            InetSocketAddress metrics = n.metricsPort() == 0 ? null : new InetSocketAddress(n.clientHost(), n.metricsPort());
            return new Options(new InetSocketAddress(n.clientHost(), n.clientPort()), config.tickTime(),
                    config.juteMaxBuffer(), config.superDigest(), config.touchMillis(), config.fourLetterWords(), metrics,
                    config.minSessionTimeout(), config.maxSessionTimeout(), true, config.partitioning(), config.sasl(),
                    config.authEnforcement(), config.connectionLimits(), config.clientTls(),
                    n.secureClientPort() == 0 || config.clientTls() == null ? null
                            : new InetSocketAddress(n.clientHost(), n.secureClientPort()), config.globalOutstandingLimit(),
                    n.adminPort() == 0 || !config.adminServer().enabled() ? null
                            : new InetSocketAddress(config.adminServer().address() == null ? n.clientHost()
                            : config.adminServer().address(), n.adminPort()), config.auditLog(nodeId), config.enforceQuota());
        }
    }

    private final int nodeId;
    private final MulticastNode multicast;
    private final VoleryStateMachine replica;
    private final EyrieClient client;
    private final VoleryService service;
    private final ZkFrontEnd frontEnd;
    private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final NodeMonitor monitor;
    private final ExecutorService adminExecutor;
    private final MetricsEndpoint metricsEndpoint;
    private final io.volery.server.admin.AdminServer adminServer;

    /**
     * Room beyond the request frame itself that one ordered command takes (Volery's request fields,
     * the command and client envelopes): multicast messages must fit a whole jute.maxbuffer request.
     */
    public static final int COMMAND_OVERHEAD_BYTES = 64 * 1024;

    /** Deliveries between snapshots when the cluster file does not say (ZooKeeper's snapCount default). */
    public static final int DEFAULT_SNAP_COUNT = 100_000;

    /** How far behind (oldest delivery waiting) this node's replica may be and still answer its clients alone. */
    static final long LOCAL_REPLY_MAX_LAG_MILLIS = 1000;

    public VoleryNode(ClusterConfig config, int nodeId, Options options) {
        this(config, nodeId, options, DEFAULT_SNAP_COUNT);
    }

    /**
     * @param snapCount deliveries between replica snapshots; snapshots are taken only when the
     *                  cluster file says {@code storage = durable}, under {@code dataDir/node-ID/snapshots}
     */
    public VoleryNode(ClusterConfig config, int nodeId, Options options, int snapCount) {
        this(config, nodeId, options, snapCount, java.util.List.of());
    }

    /**
     * @param snapCount     deliveries between replica snapshots (storage = durable only)
     * @param snapshotPeers node ids of the other replicas of this node's partition, asked (on their ring
     *                      ports, ADR 063) for a snapshot when this node has no usable one of its own
     */
    public VoleryNode(ClusterConfig config, int nodeId, Options options, int snapCount,
                      java.util.List<Integer> snapshotPeers) {
        this(config, nodeId, options, snapCount, snapshotPeers,
                io.volery.server.config.VoleryConfig.DEFAULT_SENT_POSITIONS_MAX);
    }

    /**
     * @param sentPositionsMax recent commands whose exchanges the replica keeps for lagging replicas
     *                         of other partitions (a replica further behind takes a peer's state)
     */
    public VoleryNode(ClusterConfig config, int nodeId, Options options, int snapCount,
                      java.util.List<Integer> snapshotPeers, int sentPositionsMax) {
        this(config, nodeId, options, snapCount, snapshotPeers, sentPositionsMax,
                java.time.Duration.ofSeconds(io.volery.server.config.VoleryConfig.DEFAULT_SNAP_MAX_AGE_SECONDS));
    }

    /**
     * @param snapMaxAge a replica also snapshots at its first delivery this long after its last snapshot
     *                   (zero: by {@code snapCount} only); storage = durable only
     */
    public VoleryNode(ClusterConfig config, int nodeId, Options options, int snapCount,
                      java.util.List<Integer> snapshotPeers, int sentPositionsMax, java.time.Duration snapMaxAge) {
        Objects.requireNonNull(options, "options");
        int needed = options.juteMaxBuffer() + COMMAND_OVERHEAD_BYTES;
        if (config.parameters().batchMaxBytes() < needed) {
            // Otherwise a request the front end accepts could never be multicast, and its client would wait forever.
            throw new IllegalArgumentException("batch.maxBytes=" + config.parameters().batchMaxBytes()
                    + " cannot carry a request of jute.maxbuffer=" + options.juteMaxBuffer()
                    + " bytes; set batch.maxBytes to at least " + needed + " in the cluster file");
        }
        this.nodeId = nodeId;
        int[] groups = config.node(nodeId).groups();
        if (groups.length != 1) {
            throw new IllegalArgumentException("node." + nodeId + ".groups must name exactly one partition, got "
                    + java.util.Arrays.toString(groups));
        }
        int[] partitions = config.groups().stream().mapToInt(Integer::intValue).toArray();
        VoleryOracle oracle = new VoleryOracle(new PathPartitioner(partitions, options.partitioning()), groups[0]);
        this.multicast = MulticastNode.builder(config, nodeId).build();
        TreeConfig treeConfig = new TreeConfig(options.tickTimeMillis(), options.juteMaxBuffer(), options.superDigest(), true,
                options.reapsContainers()).withQuotaEnforcement(options.enforceQuota());
        if (options.sasl() != null) {
            treeConfig = treeConfig.withSasl(options.sasl().superUsers());
        }
        if (options.clientTls() != null) {
            treeConfig = treeConfig.withX509(options.clientTls().superUser());
        }
        // ZooKeeper's server user in its audit log: its Kerberos login's principal, else the OS user
        this.auditUser = options.sasl() != null && options.sasl().users().servicePrincipal() != null
                ? options.sasl().users().servicePrincipal() : System.getProperty("user.name", "<NA>");
        this.audit = openAudit(options.auditLog());
        this.replica = new VoleryStateMachine(multicast, oracle, treeConfig);
        replica.setAudit(audit, auditUser);
        replica.setSentPositionsMax(sentPositionsMax);
        if (config.parameters().storage() == ClusterConfig.StorageMode.DURABLE) {
            // the acceptor logs are durable: snapshots make a restart replay only what follows them,
            // and let the acceptors trim
            replica.setCheckpointing(snapshotDirectory(config, nodeId), snapCount, snapMaxAge);
            // peers fetch this replica's newest snapshot from its ring port, with the ring's guard and TLS (ADR 063):
            // the replica serves them (ADR 104) and asks these peers, if any are given, when it has none
            replica.setPeerCheckpoints(snapshotPeers.isEmpty() ? () -> null
                    : new io.eyrie.core.SideChannelCheckpoints(multicast::config, nodeId, snapshotPeers, 10_000));
        }
        replica.runStateMachine();
        this.client = new EyrieClient(multicast, oracle, 100_000, 10_000);
        // The front end's client is its node's only one: it takes the previous process's (killed or
        // stopped) replies out of every partition's reply table (ADR 058).
        client.retireEarlierIncarnations().whenComplete((outcome, t) -> {
            if (t != null) {
                log.warn("node {} could not retire its earlier front-end clients: {}", nodeId, t.toString());
            } else {
                log.info("node {} front-end client {}: {}", nodeId, Long.toHexString(client.clientId()), outcome);
            }
        });
        // This node's replica answers its front end's commands alone while it keeps up (ADR 021).
        int ownPartition = replica.getLocalPartition().getId();
        client.answerLocallyWhile(g -> g == ownPartition && replica.isCaughtUp(LOCAL_REPLY_MAX_LAG_MILLIS));
        // A session's request to this partition goes out behind its multi-partition one once this node's
        // replica delivered that one, not once it is answered (ADR 041).
        client.observeOrderAt(replica);
        // Another partition's commands are answered by one named replica of it, not all three (ADR 030):
        // the front end puts replies in request order per session and events behind the replies that
        // set their watches itself (ADR 028), so it does not need every replica's FIFO reply.
        client.nameRemoteReplier(true);
        // ZooKeeper's globalOutstandingLimit (ADR 064): past it, requests wait here unordered, where no timer
        // runs, instead of queueing behind the replicas' executors until timers multicast copies of them
        client.setServiceLimit(options.outstandingLimit());
        this.service = new VoleryService(multicast, client, oracle, options.touchIntervalMillis());
        service.setAudit(audit);
        int tick = options.tickTimeMillis();
        int minTimeout = options.minSessionTimeout() > 0 ? options.minSessionTimeout() : 2 * tick;
        int maxTimeout = options.maxSessionTimeout() > 0 ? options.maxSessionTimeout() : 20 * tick;
        MonitoredService monitored = new MonitoredService(service, oracle, metrics, minTimeout, maxTimeout);
        this.adminExecutor = Executors.newFixedThreadPool(1, r -> {
            Thread t = new Thread(r, "volery-admin-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        try {
            FourLetterWords[] words = new FourLetterWords[1];
            // a frame's length may be jute.maxbuffer, not more: ZooKeeper's server (NIOServerCnxn.readLength)
            // drops the connection on "len > maxBuffer"; jute's own 1024 bytes of slack apply to one
            // buffer or string being decoded, never to the frame
            this.frontEnd = new ZkFrontEnd(options.clientAddress(), monitored, options.juteMaxBuffer(), 2,
                    () -> new FourLetterWordHandler(words[0], adminExecutor),
                    options.sasl() == null ? null : options.sasl().users(), options.authEnforcement(),
                    options.connectionLimits(), options.clientTls(), options.secureClientAddress());
            // the front end stops reading from its clients while the node's proposer is full
            frontEnd.readThrottle().pauseWhile(client::pressured);
            client.onPressureChange(frontEnd.readThrottle()::changed);
            int partition = groups[0];
            int replicas = (int) config.nodes().values().stream()
                    .filter(n -> n.groups().length == 1 && n.groups()[0] == partition).count();
            NodeMonitor.NodeFacts facts = new NodeMonitor.NodeFacts(nodeId, partition, frontEnd.localAddress().getPort(),
                    config.parameters().dataDir(), null, tick, minTimeout, maxTimeout, options.juteMaxBuffer(),
                    options.partitioning().name().toLowerCase(java.util.Locale.ROOT), config.groups().size(), replicas,
                    frontEnd.secureAddress() == null ? -1 : frontEnd.secureAddress().getPort());
            this.monitor = new NodeMonitor(facts, frontEnd.stats(), monitored, replica.probe(), multicast);
            monitor.frontEndCounters(service::reorderedResends, client::localReplyFallbacks);
            monitor.handoffCounters(service::handoffsFromDeadFrontEnds, service::handoffsTimedOut);
            monitor.replayCounter(service::replayedEventsDropped);
            monitor.serviceCounters(client::inService, client::resends);
            if (options.clientTls() != null) {
                monitor.clientTlsStores(options.clientTls().stores());
            }
            monitor.connectionGates(frontEnd.connectionGates());
            words[0] = new FourLetterWords(monitor, options.fourLetterWords());
            monitor.replicaCounters(replica);
            monitor.durability(new NodeMonitor.Durability() {
                @Override
                public long checkpointPosition() {
                    return replica.durableCheckpointPosition();
                }

                @Override
                public long corruptCheckpoints() {
                    return replica.corruptCheckpointsFound();
                }

                @Override
                public long tornLogBytes() {
                    return multicast.tornBytesDiscardedAtOpen();
                }

                @Override
                public long snapshotsFetched() {
                    return replica.checkpointsFetchedFromPeers();
                }

                @Override
                public long stateTransfers() {
                    return replica.stateTransfers();
                }

                @Override
                public long learnerRepositions() {
                    return replica.learnerRepositions();
                }

                @Override
                public long[] sideRequests() {
                    return multicast.sideRequestCounts();
                }
            });
            Runnable quotaRows = VoleryMetrics.bind(metrics, monitor, multicast);
            this.metricsEndpoint = options.metricsAddress() == null ? null
                    : new MetricsEndpoint(options.metricsAddress(), metrics, () -> {
                        monitor.census();
                        quotaRows.run();
                    });
            this.adminServer = options.adminAddress() == null ? null
                    : new io.volery.server.admin.AdminServer(options.adminAddress(), "/commands",
                    new io.volery.server.admin.AdminCommands(monitor));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Where a node keeps its replica snapshots: {@code dataDir/node-ID/snapshots}, beside its acceptor logs. */
    public static java.nio.file.Path snapshotDirectory(ClusterConfig config, int nodeId) {
        return java.nio.file.Path.of(config.parameters().dataDir(), "node-" + nodeId, "snapshots");
    }

    /** Where ZooKeeper's AdminServer commands are served (ADR 068), or null. */
    public InetSocketAddress adminAddress() {
        return adminServer == null ? null : adminServer.localAddress();
    }

    /** Monitoring's view of this node (what the four-letter words and the metrics report). */
    public NodeMonitor monitor() {
        return monitor;
    }

    /** The node's meter registry (Prometheus). */
    public PrometheusMeterRegistry metrics() {
        return metrics;
    }

    /** Where the Prometheus endpoint listens, or null when it is off. */
    public InetSocketAddress metricsAddress() {
        return metricsEndpoint == null ? null : metricsEndpoint.localAddress();
    }

    public int nodeId() {
        return nodeId;
    }

    /** Where ZooKeeper clients connect. */
    public InetSocketAddress clientAddress() {
        return frontEnd.localAddress();
    }

    /** Where ZooKeeper clients connect over TLS (the secure client port), or null when there is none. */
    public InetSocketAddress secureClientAddress() {
        return frontEnd.secureAddress();
    }

    /** This node's replica (its partition, probe and counters): for tests and tools. */
    public VoleryStateMachine replica() {
        return replica;
    }

    /**
     * Publishes the cluster's front ends in this node's {@code /zookeeper/config} as a ZooKeeper ensemble lists
     * its servers (ADR 097), so that clients given one front end can learn the others.
     */
    public void publishEnsemble(java.util.List<io.volery.server.tree.EnsembleConfig.Member> members) {
        replica.ensembleConfig().publish(members);
    }

    /**
     * Takes up a new version of the cluster file in which other nodes moved (ADR 102): this node dials them, and
     * asks them for snapshots, at their new addresses from now on. The caller publishes the new front ends.
     *
     * @return the ids of the nodes whose ring address changed
     * @throws IllegalArgumentException naming what else changed; nothing is taken up then
     */
    public java.util.List<Integer> readdress(ClusterConfig next) {
        return multicast.readdress(next);
    }

    /** This replica's tree: for tests and tools, read only while no command runs. */
    public ZnodeTree tree() {
        return replica.tree();
    }

    /** The front end's service (Eyrie client of its sessions): for tests and tools. */
    public VoleryService service() {
        return service;
    }

    /** The front end's Eyrie client (its multicast window and refusals): for tests and tools. */
    /** The front end's read throttle (null without a front end). */
    public io.volery.server.frontend.ReadThrottle readThrottle() {
        return frontEnd == null ? null : frontEnd.readThrottle();
    }

    public EyrieClient eyrieClient() {
        return client;
    }

    public MulticastNode multicast() {
        return multicast;
    }

    /**
     * ZooKeeper's audit log at {@code file} (ADR 071), its serverStart line written; null for no file.
     *
     * @throws IllegalArgumentException when the file cannot be opened
     */
    private io.volery.server.audit.AuditLog openAudit(java.nio.file.Path file) {
        if (file == null) {
            return null;
        }
        try {
            io.volery.server.audit.AuditLog a = io.volery.server.audit.AuditLog.open(file);
            a.log(null, auditUser, null, "serverStart", null, null, null, io.volery.server.audit.AuditLog.Result.SUCCESS);
            return a;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot open the audit log " + file + ": " + e.getMessage(), e);
        }
    }

    private final io.volery.server.audit.AuditLog audit;
    private final String auditUser;

    /** The node's audit log (ADR 071), or null when auditing is off. */
    public io.volery.server.audit.AuditLog audit() {
        return audit;
    }

    @Override
    public void close() {
        if (audit != null) {
            audit.log(null, auditUser, null, "serverStop", null, null, null, io.volery.server.audit.AuditLog.Result.INVOKED);
        }
        closeParts();
        if (audit != null) {
            audit.close();
        }
    }

    private void closeParts() {
        if (metricsEndpoint != null) {
            metricsEndpoint.close();
        }
        if (adminServer != null) {
            adminServer.close();
        }
        if (frontEnd != null) {
            frontEnd.close();
        }
        adminExecutor.shutdownNow();
        service.close();
        // no retire: the node's next process retires this client (ADR 058), and a cluster going down
        // together could not confirm it
        client.close(0);
        replica.close();
        multicast.close();
    }
}
