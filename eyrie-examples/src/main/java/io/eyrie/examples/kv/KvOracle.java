package io.eyrie.examples.kv;

import io.eyrie.core.Command;
import io.eyrie.core.Partition;
import io.eyrie.core.PartitioningOracle;

import java.util.Set;
import java.util.TreeSet;

/**
 * Keys are hashed to partitions. {@code put}, {@code get} and {@code delete} touch one partition;
 * {@code copy src dst} touches the partitions of both keys, and ships {@code src}'s value.
 */
public class KvOracle extends PartitioningOracle {

    @Override
    public Set<Partition> getDestinations(Command c) {
        c.rewind();
        Set<Partition> dests = new TreeSet<>();
        String op = (String) c.getNext();
        dests.add(getPartition(c.getNext()));
        if (op.equals(KvCommands.COPY)) {
            dests.add(getPartition(c.getNext()));
        }
        c.rewind();
        return dests;
    }

    @Override
    public Set<Object> getLocalObjects(Command c) {
        c.rewind();
        Set<Object> read = c.getNext().equals(KvCommands.COPY) ? Set.of(c.getNext()) : Set.of();
        c.rewind();
        return read;
    }

    @Override
    public Partition getPartition(Object key) {
        var partitions = getClusterPartitions();
        return partitions.get(Math.floorMod(key.hashCode(), partitions.size()));
    }
}
