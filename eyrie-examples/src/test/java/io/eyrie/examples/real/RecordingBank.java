package io.eyrie.examples.real;

import io.eyrie.core.Command;
import io.eyrie.examples.bank.BankServer;
import io.eyrie.multicast.MulticastEndpoint;

import java.util.ArrayList;
import java.util.List;

/**
 * The example bank, recording for the tests its partition's money after every command and at every
 * checkpoint, each with the global position it reflects.
 */
final class RecordingBank extends BankServer {

    /** The partition's own money as of a position. */
    record Money(long position, long total) {
    }

    private final int nodeId;
    private final List<Money> afterCommand = new ArrayList<>();
    private final List<Money> atCheckpoint = new ArrayList<>();
    private long lastExecuted = io.eyrie.multicast.Position.NONE;

    RecordingBank(MulticastEndpoint endpoint, int accounts, long opening) {
        super(endpoint, accounts, opening);
        this.nodeId = endpoint.nodeId();
    }

    @Override
    public Object executeCommand(Command c) {
        Object result = super.executeCommand(c);
        long position = getCurrentPosition();
        long money = localMoney();
        synchronized (this) {
            afterCommand.add(new Money(position, money));
            lastExecuted = position;
        }
        return result;
    }

    @Override
    protected Object snapshotState() {
        // runs on the executor between commands: the state is exactly that after lastExecuted
        long money = localMoney();
        synchronized (this) {
            atCheckpoint.add(new Money(lastExecuted, money));
        }
        return super.snapshotState();
    }

    synchronized List<Money> afterCommand() {
        return new ArrayList<>(afterCommand);
    }

    synchronized List<Money> atCheckpoint() {
        return new ArrayList<>(atCheckpoint);
    }

    int nodeId() {
        return nodeId;
    }
}
