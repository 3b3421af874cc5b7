package io.eyrie.core;

import io.eyrie.multicast.MulticastEndpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A partitioned bank: account a lives in partition {@code a % partitions + 1}. Commands
 * {@code transfer from to amount} (true if done, false if the source lacked the money) and
 * {@code balance a}. Records, for the tests, the partition's money after each command and at each
 * checkpoint, with the position they reflect.
 */
public class BankMachine extends StateMachine {

    public static final class Oracle extends PartitioningOracle {
        private final int partitions;

        public Oracle(int partitions) {
            this.partitions = partitions;
        }

        @Override
        public Set<Partition> getDestinations(Command c) {
            Set<Partition> dests = new TreeSet<>();
            c.rewind();
            String op = (String) c.getNext();
            dests.add(getPartition(c.getNext()));
            if (op.equals("transfer")) {
                dests.add(getPartition(c.getNext()));
            }
            c.rewind();
            return dests;
        }

        @Override
        public Set<Object> getLocalObjects(Command c) {
            c.rewind();
            Set<Object> ids = new java.util.HashSet<>();
            if (c.getNext().equals("transfer")) {
                ids.add(c.getNext());
                ids.add(c.getNext());
            }
            c.rewind();
            return ids;
        }

        @Override
        public Partition getPartition(Object accountId) {
            return Partition.get((Integer) accountId % partitions + 1);
        }
    }

    /** The partition's total money as of a position. */
    public record Money(long position, long total) {
    }

    private final int accounts;
    private final long opening;
    private final List<Money> afterCommand = new ArrayList<>();
    private final List<Money> atCheckpoint = new ArrayList<>();

    private final int nodeId;

    public BankMachine(MulticastEndpoint endpoint, int partitions, int accounts, long opening) {
        super(endpoint, new Oracle(partitions));
        this.nodeId = endpoint.nodeId();
        this.accounts = accounts;
        this.opening = opening;
        for (int a = 0; a < accounts; a++) {
            registerObject(new Account(a, opening));
        }
    }

    @Override
    public Object executeCommand(Command c) {
        String op = (String) c.getNext();
        Object result;
        if (op.equals("transfer")) {
            Account from = (Account) getObject(c.getNext());
            Account to = (Account) getObject(c.getNext());
            long amount = (Long) c.getNext();
            if (from.balance() >= amount) {
                from.withdraw(amount);
                to.deposit(amount);
                result = true;
            } else {
                result = false;
            }
        } else {
            result = ((Account) getObject(c.getNext())).balance();
        }
        synchronized (this) {
            afterCommand.add(new Money(runtime().executingPosition(), localMoney()));
        }
        return result;
    }

    /** The money in this partition's own accounts. */
    public long localMoney() {
        long sum = 0;
        for (int a = 0; a < accounts; a++) {
            if (getOracle().getPartition(a).equals(getLocalPartition())) {
                sum += ((Account) getObject(a)).balance();
            }
        }
        return sum;
    }

    @Override
    protected Object snapshotState() {
        synchronized (this) {
            atCheckpoint.add(new Money(runtime().lastPosition(), localMoney()));
        }
        return super.snapshotState();
    }

    public synchronized List<Money> afterCommand() {
        return new ArrayList<>(afterCommand);
    }

    public synchronized List<Money> atCheckpoint() {
        return new ArrayList<>(atCheckpoint);
    }

    public int nodeId() {
        return nodeId;
    }

    public long opening() {
        return opening;
    }
}
