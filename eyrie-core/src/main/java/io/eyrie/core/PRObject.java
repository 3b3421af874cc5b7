package io.eyrie.core;

import java.util.Objects;

/**
 * A partially replicated object: it belongs to one partition (its owner, as the
 * {@link PartitioningOracle} says), whose replicas hold its up-to-date value. Other partitions may
 * hold a copy of it; when a command they execute calls one of its methods, Eyrie first brings their
 * copy up to date with the owner's value for that command (see {@link #getDiff} and
 * {@link #updateFromDiff}). Methods marked {@link LocalMethodCall} skip that step.
 *
 * <p>Subclasses need a no-argument constructor (it may be private) so that checkpoints can restore
 * them, and fields that Kryo can serialize.
 */
public abstract class PRObject {

    private Object id;

    /** For checkpoint restore only. */
    protected PRObject() {
    }

    /** @param id the object's identity across partitions; equal ids name the same object */
    protected PRObject(Object id) {
        this.id = Objects.requireNonNull(id, "a PRObject needs a non-null id");
    }

    public final Object getId() {
        return id;
    }

    /**
     * The value partition {@code p} needs to bring its copy up to date, computed by the owner before
     * the command executes. The simplest diff is a copy of the whole state. It is serialized with
     * Kryo, so it must not share mutable structure with this object after the call returns.
     */
    public abstract Object getDiff(Partition p);

    /** Applies a value that the owner computed with {@link #getDiff}. */
    public abstract void updateFromDiff(Object diff);

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + id + "]";
    }
}
