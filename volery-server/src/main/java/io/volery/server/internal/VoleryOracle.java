package io.volery.server.internal;

import io.eyrie.core.Command;
import io.eyrie.core.Partition;
import io.eyrie.core.PartitioningOracle;
import io.volery.server.frontend.OpCodes;
import io.volery.server.frontend.ZkCodec;
import io.volery.server.frontend.ZkRequest;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Volery's partitioning oracle: the partitions each request goes to, from its paths
 * ({@link PathPartitioner}) and its {@link Scope}. Reads any partition can answer go to the front
 * end's own partition.
 */
public final class VoleryOracle extends PartitioningOracle {
    private final PathPartitioner partitioner;
    private final int localPartition;
    /**
     * Whether top-level creates run without signals (ADR 037); {@code -Dvolery.independentCreates=false}
     * gives them signals again, for comparison. Every node of a cluster must agree on it.
     */
    private final boolean independentCreates = !"false".equals(System.getProperty("volery.independentCreates"));
    /**
     * Whether deletes of such nodes run without signals too (ADR 046); {@code -Dvolery.independentDeletes=false}
     * gives them signals again, for comparison. Every node of a cluster must agree on it.
     */
    private final boolean independentDeletes = !"false".equals(System.getProperty("volery.independentDeletes"));

    /**
     * Whether the replicas finish top-level creates and deletes in continuations (ADR 036): the state machine's
     * own rule ({@code VoleryStateMachine.defersTopLevel}).
     */
    private final boolean topLevelDeferred;

    public VoleryOracle(PathPartitioner partitioner, int localPartition) {
        this.partitioner = partitioner;
        this.localPartition = localPartition;
        this.topLevelDeferred = VoleryStateMachine.defersTopLevel(partitioner);
    }

    /** The partition of the replica on this oracle's node. */
    public int localPartition() {
        return localPartition;
    }

    public PathPartitioner partitioner() {
        return partitioner;
    }

    @Override
    public Set<Partition> getDestinations(Command c) {
        c.rewind();
        VoleryRequest r = (VoleryRequest) c.getNext();
        c.rewind();
        return partitions(destinations(r));
    }

    /**
     * Touches and ticks run in each partition without waiting for the others (ADR 032): every
     * partition holds the same sessions and session time and applies them in its own order, and the
     * front end that orders a touch does not wait for it. Session creation, reconnection and close
     * keep their signals: a client acts on their replies.
     *
     * <p>So does the create of a node every partition lists (ADR 037): each partition applies it and
     * then exchanges its watch events with every other ({@code VoleryStateMachine.applyEverywhere}), and
     * no replica answers before every other partition's part is in. A partition sends its part only
     * once it executed the create, which says more than the signal of its delivery, so the signals
     * (each partition's designated replica to every replica of the others) would only cost messages.
     * Under subtree partitioning only the node's owner and the root's owner send parts and every replica
     * waits for those two alone (ADR 053): the root is read in its owner only, the node in its owner, so
     * no later read can miss the create once they applied it, and the other partitions send nothing.
     * A create refused before it applies anything (no session, a bad path) is answered alike by every
     * partition from the session table and the request alone, which every partition holds the same.
     *
     * <p>And so does the delete of such a node (ADR 046): its owner decides and tells the others (one
     * way), each follower applies the verdict, and then every partition, refused delete or not, sends its
     * part of the watch events as the create's do; no replica answers before every part is in.
     */
    @Override
    public boolean executesIndependently(Command c) {
        c.rewind();
        VoleryRequest r = (VoleryRequest) c.getNext();
        c.rewind();
        if (r.kind == VoleryRequest.TOUCH || r.kind == VoleryRequest.TICK) {
            return true;
        }
        return r.kind == VoleryRequest.ZK && changesTheListEverywhere(r);
    }

    /**
     * Whether {@code r} is a create every partition applies, or a delete every partition follows its
     * owner in, and then exchanges events for.
     */
    private boolean changesTheListEverywhere(VoleryRequest r) {
        ZkRequest q = independentCreates || independentDeletes ? decoded(r) : null;
        if (q == null) {
            return false;
        }
        // such a create is always Scope.EVERY, and zk() sends every one of them to applyEverywhere;
        // such a delete is Scope.OWNER_VERDICT, and zk() sends every one of them to ownerVerdict
        return independentCreates && Scope.createsListedEverywhere(q, partitioner)
                || independentDeletes && Scope.of(q, partitioner) == Scope.OWNER_VERDICT;
    }

    /**
     * Whether every destination of a request to several partitions runs the commands after it only once every
     * destination delivered it: Algorithm 1, whose executor awaits the other partitions' signals before it goes
     * on, so nothing a session sends behind the request can be seen before it, wherever that is read (ADRs 041,
     * 076, 083). Not so for the ones that run without signals or finish in a continuation while later commands
     * run: top-level creates and deletes under subtree partitioning (ADRs 036, 037, 046) and writes of the root
     * (ADR 053). A session's next request waits for their answers. Under hash (or with deferral off) the creates
     * and deletes every partition lists run without signals too, but no continuation: each partition's executor
     * waits in the all-to-all exchange of their events until every other partition's part is in, which each
     * sends once it executed the change, so they are placed on delivery (ADR 085).
     */
    public boolean placedOnDelivery(VoleryRequest r) {
        ZkRequest q = r.kind == VoleryRequest.ZK ? decoded(r) : null;
        if (q == null) {
            return false;
        }
        Scope scope = Scope.of(q, partitioner);
        if (scope == Scope.EVERY && q.opCode() == OpCodes.SET_DATA) {
            return false; // a write of the root: its owner tells the others and goes on
        }
        return !topLevelDeferred
                || scope != Scope.OWNER_VERDICT && !(scope == Scope.EVERY && Scope.createsListedEverywhere(q, partitioner));
    }

    /** A ZooKeeper request's body, or null if it is malformed (the replicas answer that). */
    private static ZkRequest decoded(VoleryRequest r) {
        try {
            return r.zkRequest();
        } catch (ZkCodec.MalformedRequestException e) {
            return null;
        }
    }

    /** The partition ids a request goes to. */
    public int[] destinations(VoleryRequest r) {
        if (r.kind != VoleryRequest.ZK) {
            return partitioner.partitions();
        }
        ZkRequest q;
        try {
            q = r.zkRequest();
        } catch (ZkCodec.MalformedRequestException e) {
            // The front end decoded it once already; any single partition will answer the error.
            return new int[] {localPartition};
        }
        return switch (Scope.of(q, partitioner)) {
            case OWNER -> q.opCode() == OpCodes.MULTI || q.opCode() == OpCodes.MULTI_READ
                    ? new int[] {Scope.partitionsOf(q, partitioner).first()}
                    : new int[] {partitioner.ownerOf(Scope.pathOf(q.body()))};
            case LOCAL -> new int[] {localPartition};
            case EVERY, OWNER_VERDICT -> partitioner.partitions();
            case MULTI -> Scope.anyListedEverywhere(q, partitioner) ? partitioner.partitions()
                    : Scope.partitionsOf(q, partitioner).stream().mapToInt(Integer::intValue).toArray();
            case GATHER -> q.opCode() == OpCodes.MULTI_READ && !Scope.readsQuotaStatsShares(q, partitioner)
                    ? Scope.partitionsOf(q, partitioner).stream().mapToInt(Integer::intValue).toArray()
                    : partitioner.partitions();
        };
    }

    private static Set<Partition> partitions(int[] ids) {
        Set<Partition> out = new LinkedHashSet<>();
        for (int id : ids) {
            out.add(Partition.get(id));
        }
        return out;
    }

    @Override
    public Partition getPartition(Object objectId) {
        return Partition.get(partitioner.ownerOf(String.valueOf(objectId)));
    }
}
