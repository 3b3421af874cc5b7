package io.eyrie.core;

import io.eyrie.multicast.ClusterConfig;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Knows where the state lives: which partition owns each object, which partitions a command
 * involves, and which objects a command reads. Clients and replicas must use oracles that give the
 * same answers; the answers must depend only on the command.
 */
public abstract class PartitioningOracle {

    /** The partitions of the cluster this oracle serves; null until a StateMachine or EyrieClient takes it. */
    private volatile List<Partition> cluster;

    /**
     * The partitions that must deliver {@code c}: the owners of every object it reads or writes. The
     * default, every partition of this oracle's cluster ({@link #getClusterPartitions}), is always correct
     * but makes every partition take part.
     */
    public Set<Partition> getDestinations(Command c) {
        return new LinkedHashSet<>(getClusterPartitions());
    }

    /**
     * Every partition of the cluster this oracle serves, ascending by id: the groups of the cluster file of the
     * {@link StateMachine} or {@link EyrieClient} it was given to. Unlike {@link Partition#getPartitionList()}
     * (the last cluster file installed in the JVM), it stays right in a JVM that also runs or reaches another
     * cluster. Before any was given this oracle: {@link Partition#getPartitionList()}.
     */
    protected final List<Partition> getClusterPartitions() {
        List<Partition> mine = cluster;
        return mine != null ? mine : Partition.getPartitionList();
    }

    /**
     * Makes {@code config}'s partitions this oracle's cluster; a StateMachine or EyrieClient given this oracle
     * calls it. An oracle serves one cluster: given to a second cluster with other partitions it refuses.
     */
    final synchronized void serve(ClusterConfig config) {
        List<Partition> theirs = Partition.of(config);
        List<Partition> mine = cluster;
        if (mine == null) {
            cluster = theirs;
        } else if (!mine.equals(theirs)) {
            throw new IllegalArgumentException("this " + getClass().getName() + " already serves a cluster with partitions "
                    + mine + ", not " + theirs + ": give each cluster its own oracle");
        }
    }

    /**
     * The ids of the objects whose up-to-date value {@code c} needs at a partition that does not own
     * them. Each owner ships its objects among these to the other destinations as soon as it delivers
     * {@code c}. Calling a (non-{@link LocalMethodCall}) method of a remote object not listed here is
     * an error of the oracle. Default: none.
     */
    public Set<Object> getLocalObjects(Command c) {
        return Set.of();
    }

    /**
     * Whether the destinations of {@code c} execute it without execution atomicity (ADR 032): no
     * partition signals the others that it delivered {@code c} or waits for their signals, so each
     * destination executes it and replies as soon as its own order reaches it, however far behind the
     * others are. Default false.
     *
     * <p>Only for a command that no client relies on to have run everywhere when its reply comes:
     * housekeeping that each partition applies to its own state in its own order (Volery's session
     * touches). The reply then says only that one destination executed it. The answer must depend only
     * on the command. Rounds of {@code StateMachine.exchange} during its execution still work (every
     * destination must still make the same number of them). Ignored when {@link #getLocalObjects}
     * lists objects for {@code c}: shipped objects are signals.
     */
    public boolean executesIndependently(Command c) {
        return false;
    }

    /** The partition that owns the object with id {@code objectId}. */
    public abstract Partition getPartition(Object objectId);
}
