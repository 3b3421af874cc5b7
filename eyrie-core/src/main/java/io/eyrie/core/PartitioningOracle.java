package io.eyrie.core;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Knows where the state lives: which partition owns each object, which partitions a command
 * involves, and which objects a command reads. Clients and replicas must use oracles that give the
 * same answers; the answers must depend only on the command.
 */
public abstract class PartitioningOracle {

    /**
     * The partitions that must deliver {@code c}: the owners of every object it reads or writes. The
     * default, every partition, is always correct but makes every partition take part.
     */
    public Set<Partition> getDestinations(Command c) {
        return new LinkedHashSet<>(Partition.getPartitionList());
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

    /** The partition that owns the object with id {@code objectId}. */
    public abstract Partition getPartition(Object objectId);
}
