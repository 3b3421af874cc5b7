package io.volery.server.admin;

import io.eyrie.multicast.MulticastNode;
import io.eyrie.multicast.internal.protocol.NodeStatus;
import io.volery.server.frontend.FrontEndStats;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Everything a node's monitoring reports, in one place: the front end's counters, the measured
 * service, the replica's tree (through its probe) and the rings' state.
 */
public final class NodeMonitor {
    private static final long CENSUS_WAIT_MILLIS = 2_000;

    /** Static facts about the node, as {@code conf} prints them; {@code secureClientPort} -1 for none. */
    public record NodeFacts(int nodeId, int partition, int clientPort, String dataDir, String logDir, int tickTime,
                            int minSessionTimeout, int maxSessionTimeout, int juteMaxBuffer, String partitioning,
                            int partitions, int replicasInPartition, int secureClientPort) {
    }

    private final NodeFacts facts;
    private final FrontEndStats frontEnd;
    private final MonitoredService service;
    private final ReplicaProbe probe;
    private final MulticastNode multicast;
    private final long startMillis = System.currentTimeMillis();
    private volatile java.util.function.LongSupplier reorderedResends = () -> 0;
    private volatile java.util.function.LongSupplier localReplyFallbacks = () -> 0;
    private volatile ReplicaCounters replicaCounters = ReplicaCounters.NONE;
    private volatile TreeCensus lastCensus = TreeCensus.EMPTY;
    private volatile Durability durability = Durability.NONE;

    /** What waits at the replica and what it did: a replica falling behind, and what it sends other partitions. */
    public interface ReplicaCounters {
        ReplicaCounters NONE = new ReplicaCounters() {
        };

        /** Deliveries queued for the replica's executor and not yet taken. */
        default int deliveriesWaiting() {
            return 0;
        }

        /** Commands the replica executed. */
        default long commandsExecuted() {
            return 0;
        }

        /** Deliveries of commands already executed (retries, copies sent again), answered from the reply table. */
        default long duplicatesAnswered() {
            return 0;
        }

        /** Clients (per destination set) in the replica's reply table (ADR 058). */
        default long replyTableClients() {
            return 0;
        }

        /** Clients taken out of the reply table: closed, or succeeded by their node's next client. */
        default long clientsRetired() {
            return 0;
        }

        /** Late copies of retired clients' commands refused instead of executed. */
        default long retiredRefused() {
            return 0;
        }

        /** Clients whose reply-table entry went because they sent nothing for the idle bound (ADR 062). */
        default long clientsExpired() {
            return 0;
        }

        /** Late copies of idle-expired clients' commands refused instead of run again (ADR 062). */
        default long expiredRefused() {
            return 0;
        }

        /** Signals and values sent to other partitions' replicas. */
        default long exchangesSent() {
            return 0;
        }

        /** Asks for late exchanges sent to other partitions' replicas. */
        default long asksSent() {
            return 0;
        }

        /** Asks answered with a kept exchange. */
        default long asksAnswered() {
            return 0;
        }

        /** Kept exchanges sent again to an asker that was far behind. */
        default long catchUpExchangesSent() {
            return 0;
        }

        /** Kept exchanges a catch-up left out: a recent one had carried them to that asker (ADR 055). */
        default long catchUpExchangesSkipped() {
            return 0;
        }

        /** Exchanges that arrived when the replica held a copy, or after their command finished. */
        default long exchangesRedundant() {
            return 0;
        }

        /** Times the replica took over sending its partition's exchanges from the designated one. */
        default long volunteerings() {
            return 0;
        }

        /** Milliseconds the replica spent sending exchanges in place of the designated one. */
        default long volunteeringMillis() {
            return 0;
        }

        /** Multi-partition commands run without signals (session touches, ADR 032). */
        default long independentCommands() {
            return 0;
        }

        /** Nanoseconds the executor waited for other partitions' signals of multi-partition commands. */
        default long signalWaitNanos() {
            return 0;
        }

        /** Nanoseconds the executor waited in value rounds (owner verdicts, gathered lists, multi verdicts). */
        default long valueWaitNanos() {
            return 0;
        }

        /** Waits for one exchange that lasted past 50 exchange timeouts (at least 5 s), each also logged. */
        default long longExchangeWaits() {
            return 0;
        }

        /** Top-level creates and deletes whose reply waited for a continuation (ADR 036). */
        default long deferredCommands() {
            return 0;
        }

        /** Commands this replica executed but left to other partitions to answer (ADR 054). */
        default long repliesLeftToOthers() {
            return 0;
        }

        /** Nanoseconds commands (and checkpoints) waited for such continuations before going on. */
        default long settleWaitNanos() {
            return 0;
        }
    }

    public void replicaCounters(ReplicaCounters c) {
        this.replicaCounters = java.util.Objects.requireNonNull(c, "replicaCounters");
    }

    public ReplicaCounters replicaCounters() {
        return replicaCounters;
    }

    /** What the node's disks went through: its checkpoints and what recovery found damaged. */
    public interface Durability {
        Durability NONE = new Durability() {
        };

        /** The position of the newest checkpoint on disk, or -1 for none. */
        default long checkpointPosition() {
            return -1;
        }

        /** Checkpoint files found damaged (by checksum) and not used. */
        default long corruptCheckpoints() {
            return 0;
        }

        /** Torn-tail bytes the acceptor logs cut off at open. */
        default long tornLogBytes() {
            return 0;
        }

        /** Snapshots restored from a peer because none on disk was usable. */
        default long snapshotsFetched() {
            return 0;
        }

        /** Times the replica took a peer's state because it could not replay what it missed. */
        default long stateTransfers() {
            return 0;
        }

        /** Times the replica, behind the acceptors' trimmed logs, took a peer's snapshot while running. */
        default long learnerRepositions() {
            return 0;
        }

        /** Peers' side requests (snapshot fetches, ADR 063) answered and refused on the ring port. */
        default long[] sideRequests() {
            return new long[] {0, 0};
        }
    }

    public void durability(Durability d) {
        this.durability = d;
    }

    public Durability durability() {
        return durability;
    }

    /** The replica's recent digests, after waiting (briefly) for at least one command to be digested. */
    public List<StateDigest> recentDigests() {
        probe.wantDigests();
        try {
            probe.inspect(t -> null).get(CENSUS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // report what there is
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return probe.digests();
    }

    public NodeMonitor(NodeFacts facts, FrontEndStats frontEnd, MonitoredService service, ReplicaProbe probe,
                       MulticastNode multicast) {
        this.facts = facts;
        this.frontEnd = frontEnd;
        this.service = service;
        this.probe = probe;
        this.multicast = multicast;
    }

    public NodeFacts facts() {
        return facts;
    }

    public FrontEndStats frontEnd() {
        return frontEnd;
    }

    public MonitoredService service() {
        return service;
    }

    public ReplicaProbe probe() {
        return probe;
    }

    public long uptimeMillis() {
        return System.currentTimeMillis() - startMillis;
    }

    /**
     * The replica's tree as of its next command; the last census taken when the replica does not
     * answer in time (it is stuck waiting for its rings, which the ring section then shows).
     */
    public TreeCensus census() {
        try {
            lastCensus = probe.inspect(TreeCensus::of).get(CENSUS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // keep the last one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return lastCensus;
    }

    /** The last census taken, without waiting (for metrics gauges). */
    public TreeCensus lastCensus() {
        return lastCensus;
    }

    public NodeStatus ringStatus() {
        return multicast.status();
    }

    /** Frames this node's transport sent to peers since the start. */
    public long framesSent() {
        return multicast.transportStats().framesSent();
    }

    /** Socket writes (flushes) this node's transport made to peers since the start; -1 if not counted. */
    public long socketWrites() {
        return multicast.transportSocketWrites();
    }

    /** Frames this node's transport dropped (full peer queues, peers down) since the start. */
    /** Whether this node talks to its peers over mutual TLS (sslQuorum, ADR 061). */
    public boolean peerTls() {
        return multicast.config().peerTls() != null;
    }

    public long peerTlsHandshakeFailures() {
        return multicast.transportTlsHandshakeFailures();
    }

    /** Peer TLS handshakes abandoned before a verdict (closed or silent, ADR 094); not in the failures. */
    public long peerTlsHandshakesAbandoned() {
        return multicast.transportTlsHandshakesAbandoned();
    }

    public long framesDropped() {
        return multicast.transportStats().framesDropped();
    }

    /**
     * Where to read the front end's counts: requests sent again after the replicas refused them as
     * reordered, and commands sent again for every replica when the local one did not answer in time.
     */
    public void frontEndCounters(java.util.function.LongSupplier reorderedResends,
                                 java.util.function.LongSupplier localReplyFallbacks) {
        this.reorderedResends = reorderedResends;
        this.localReplyFallbacks = localReplyFallbacks;
    }

    private volatile java.util.function.LongSupplier handoffsFromDeadFrontEnds = () -> 0;
    private volatile java.util.function.LongSupplier handoffsTimedOut = () -> 0;

    /**
     * Where to read how many sessions that moved here went on without their old front end's hand-off: because
     * it refused connections (ADR 082), and because none came in time.
     */
    public void handoffCounters(java.util.function.LongSupplier fromDeadFrontEnds, java.util.function.LongSupplier timedOut) {
        this.handoffsFromDeadFrontEnds = fromDeadFrontEnds;
        this.handoffsTimedOut = timedOut;
    }

    public long handoffsFromDeadFrontEnds() {
        return handoffsFromDeadFrontEnds.getAsLong();
    }

    public long handoffsTimedOut() {
        return handoffsTimedOut.getAsLong();
    }

    private volatile java.util.function.LongSupplier replayedEventsDropped = () -> 0;

    /** Where to read how many events messages of replaying replicas the front end dropped (ADR 099). */
    public void replayCounter(java.util.function.LongSupplier dropped) {
        this.replayedEventsDropped = dropped;
    }

    public long replayedEventsDropped() {
        return replayedEventsDropped.getAsLong();
    }

    private volatile java.util.function.LongSupplier inService = () -> 0;
    private volatile java.util.function.LongSupplier resent = () -> 0;

    /**
     * Where to read the front end's commands in service (ordered, not yet answered; bounded by
     * globalOutstandingLimit, ADR 064) and those multicast again because no reply came in time.
     */
    private io.eyrie.multicast.StoreReloader<?> clientStores;

    /** The client port's TLS stores (ADR 066), or null without TLS. */
    public void clientTlsStores(io.eyrie.multicast.StoreReloader<?> stores) {
        this.clientStores = stores;
    }

    /** Times the client port's TLS stores were taken up again, and changes that could not be used: {reloads, failures}. */
    public long[] clientTlsStoreReloads() {
        io.eyrie.multicast.StoreReloader<?> s = clientStores;
        return s == null ? new long[] {0, 0} : new long[] {s.reloads(), s.failures()};
    }

    /** The same for the TLS stores between nodes. */
    public long[] peerTlsStoreReloads() {
        io.eyrie.multicast.PeerTls tls = multicast.config().peerTls();
        return tls == null ? new long[] {0, 0} : new long[] {tls.stores().reloads(), tls.stores().failures()};
    }

    private volatile java.util.function.LongSupplier clusterFileReloads = () -> 0;
    private volatile java.util.function.LongSupplier clusterFileRefused = () -> 0;

    /** Counts of the cluster file's new versions taken up and refused while the node runs (ADR 102). */
    public void clusterFileCounters(java.util.function.LongSupplier reloads, java.util.function.LongSupplier refused) {
        this.clusterFileReloads = reloads;
        this.clusterFileRefused = refused;
    }

    /** {taken up, refused} new versions of the cluster file (ADR 102); zeros when nothing watches the file. */
    public long[] clusterFileReloads() {
        return new long[] {clusterFileReloads.getAsLong(), clusterFileRefused.getAsLong()};
    }

    public void serviceCounters(java.util.function.LongSupplier inService, java.util.function.LongSupplier resent) {
        this.inService = inService;
        this.resent = resent;
    }

    public long requestsInService() {
        return inService.getAsLong();
    }

    public long requestsResent() {
        return resent.getAsLong();
    }

    private volatile List<io.volery.server.frontend.ConnectionGate> connectionGates = List.of();

    /**
     * The client ports' connection limits (maxClientCnxns, maxCnxns; each port counts its own) and their counts
     * of refused connections.
     */
    public void connectionGates(List<io.volery.server.frontend.ConnectionGate> gates) {
        this.connectionGates = List.copyOf(gates);
    }

    /** The client port's connection limits; none before {@link #connectionGates} is set. */
    public io.volery.server.frontend.ConnectionLimits connectionLimits() {
        List<io.volery.server.frontend.ConnectionGate> g = connectionGates;
        return g.isEmpty() ? io.volery.server.frontend.ConnectionLimits.NONE : g.get(0).limits();
    }

    /** Connections closed as accepted because of a connection limit, on every port (ZooKeeper's connection_rejected). */
    public long connectionsRejected() {
        return connectionGates.stream().mapToLong(io.volery.server.frontend.ConnectionGate::rejected).sum();
    }

    public long localReplyFallbacks() {
        return localReplyFallbacks.getAsLong();
    }

    public long reorderedResends() {
        return reorderedResends.getAsLong();
    }

    /**
     * ZooKeeper's server state, mapped onto Volery: "leader" when this node coordinates its
     * partition's ring, "follower" otherwise, "standalone" for a cluster of one node.
     */
    public String mode() {
        if (multicast.config().nodes().size() == 1) {
            return "standalone";
        }
        int ring = multicast.config().groupToRing().get(facts.partition());
        for (NodeStatus.RingStatus r : multicast.status().rings()) {
            if (r.ringId() == ring) {
                return r.coordinatorId() == facts.nodeId() ? "leader" : "follower";
            }
        }
        return "follower";
    }

    /** Instances decided on a ring but not yet delivered by this node's merge. */
    public static long lag(NodeStatus.RingStatus r) {
        if (r.learnerNextInstance() < 0 || r.highestDecidedInstance() < 0) {
            return 0;
        }
        return Math.max(0, r.highestDecidedInstance() + 1 - r.learnerNextInstance());
    }

    public Map<Integer, Integer> groupToRing() {
        return multicast.config().groupToRing();
    }
}
