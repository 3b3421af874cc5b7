package io.eyrie.core;

import io.eyrie.multicast.ClusterConfig;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A partition of the state: one group of the cluster file. Its replicas are the nodes whose
 * {@code groups} contain it.
 */
public final class Partition implements Comparable<Partition> {

    private static volatile List<Partition> partitions = List.of();
    /**
     * Every partition of every cluster file installed in this JVM: {@link #get} resolves an id of any of them, so a
     * JVM whose nodes serve one cluster while it starts (or is a client of) another with fewer partitions still
     * names its own partitions; the list of {@link #getPartitionList} stays the last cluster's.
     */
    private static final java.util.concurrent.ConcurrentSkipListMap<Integer, Partition> KNOWN =
            new java.util.concurrent.ConcurrentSkipListMap<>();

    private final int id;

    private Partition(int id) {
        this.id = id;
    }

    /** The group id of the cluster file. */
    public int getId() {
        return id;
    }

    /**
     * Every partition of the cluster, ascending by id. Filled from the cluster file when a
     * {@link StateMachine} or {@link EyrieClient} is created (or by {@link #install}).
     */
    public static List<Partition> getPartitionList() {
        List<Partition> list = partitions;
        if (list.isEmpty()) {
            throw new IllegalStateException("no partitions known yet: create a StateMachine or EyrieClient first, "
                    + "or call Partition.install(clusterConfig)");
        }
        return list;
    }

    /** The partition with group id {@code id}. */
    public static Partition get(int id) {
        for (Partition p : getPartitionList()) {
            if (p.id == id) {
                return p;
            }
        }
        Partition other = KNOWN.get(id);
        if (other != null) {
            return other; // a partition of another cluster file this JVM installed
        }
        throw new IllegalArgumentException("no partition " + id + " in the cluster file (partitions: "
                + getPartitionList() + (KNOWN.size() > getPartitionList().size() ? "; installed in this JVM: "
                + KNOWN.values() : "") + ")");
    }

    /**
     * Makes the groups of {@code config} the partition list. The list is per JVM, as in the paper's
     * API: the last cluster file installed wins; {@link #get} still resolves the partitions of the earlier ones.
     */
    public static synchronized void install(ClusterConfig config) {
        List<Partition> list = of(config);
        for (Partition p : list) {
            KNOWN.putIfAbsent(p.id, p);
        }
        partitions = List.copyOf(list);
    }

    /** The partitions of {@code config}, ascending by id (nothing installed). */
    static List<Partition> of(ClusterConfig config) {
        List<Partition> list = new ArrayList<>();
        for (int g : config.groups()) {
            Partition known = KNOWN.get(g);
            list.add(known != null ? known : new Partition(g));
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("the cluster file names no groups, so there are no partitions");
        }
        Collections.sort(list);
        return List.copyOf(list);
    }

    @Override
    public int compareTo(Partition o) {
        return Integer.compare(id, o.id);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Partition p && p.id == id;
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(id);
    }

    @Override
    public String toString() {
        return "P" + id;
    }
}
