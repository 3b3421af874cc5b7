package io.eyrie.examples.bank;

import io.eyrie.core.Command;
import io.eyrie.core.Partition;
import io.eyrie.core.PartitioningOracle;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Account {@code n} lives in partition number {@code n mod P} of the partition list. A transfer goes
 * to the partitions of both accounts, and both balances travel: the source's (to decide whether the
 * money is there) and the destination's (the deposit updates it).
 */
public class BankOracle extends PartitioningOracle {

    @Override
    public Set<Partition> getDestinations(Command c) {
        c.rewind();
        Set<Partition> dests = new TreeSet<>();
        String op = (String) c.getNext();
        if (op.equals(BankCommands.DIGEST)) {
            dests.add(Partition.get((Integer) c.getNext()));
            c.rewind();
            return dests;
        }
        dests.add(getPartition(c.getNext()));
        if (op.equals(BankCommands.TRANSFER)) {
            dests.add(getPartition(c.getNext()));
        }
        c.rewind();
        return dests;
    }

    @Override
    public Set<Object> getLocalObjects(Command c) {
        c.rewind();
        Set<Object> read = new HashSet<>();
        if (c.getNext().equals(BankCommands.TRANSFER)) {
            read.add(c.getNext());
            read.add(c.getNext());
        }
        c.rewind();
        return read;
    }

    @Override
    public Partition getPartition(Object accountNumber) {
        var partitions = getClusterPartitions();
        return partitions.get(Math.floorMod((Integer) accountNumber, partitions.size()));
    }
}
