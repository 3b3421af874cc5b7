package io.eyrie.examples.bank;

import io.eyrie.core.Command;
import io.eyrie.core.StateMachine;
import io.eyrie.multicast.MulticastEndpoint;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.TreeMap;

/**
 * A replica of one partition of the bank. Every replica holds an Account object for every account:
 * its own partition's are up to date, the others are copies that Eyrie refreshes when a transfer
 * needs them. The code is what it would be on a single server.
 */
public class BankServer extends StateMachine {

    public BankServer(MulticastEndpoint endpoint, int accounts, long opening) {
        super(endpoint, new BankOracle());
        for (int n = 0; n < accounts; n++) {
            registerObject(new Account(n, opening));
        }
    }

    @Override
    public Object executeCommand(Command c) {
        String op = (String) c.getNext();
        if (op.equals(BankCommands.TRANSFER)) {
            Account from = (Account) getObject(c.getNext());
            Account to = (Account) getObject(c.getNext());
            long amount = (Long) c.getNext();
            if (amount <= 0 || from.balance() < amount) {
                return false;
            }
            from.withdraw(amount);
            to.deposit(amount);
            return true;
        }
        if (op.equals(BankCommands.BALANCE)) {
            return ((Account) getObject(c.getNext())).balance();
        }
        if (op.equals(BankCommands.DIGEST)) {
            return stateDigest();
        }
        throw new IllegalArgumentException("unknown bank command " + c);
    }

    /**
     * A hash of the accounts of this replica's partition (ids and balances), as hex: replicas of a
     * partition that executed the same commands have the same digest. Copies of remote accounts are
     * left out: they are caches that the owner refreshes, not this partition's state.
     */
    public String stateDigest() {
        TreeMap<Integer, Long> balances = new TreeMap<>();
        getObjects().forEach((id, o) -> {
            if (getOracle().getPartition(id).equals(getLocalPartition())) {
                balances.put((Integer) id, ((Account) o).balance());
            }
        });
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is part of every Java platform", e);
        }
        ByteBuffer b = ByteBuffer.allocate(12);
        balances.forEach((id, balance) -> {
            b.clear();
            b.putInt(id).putLong(balance);
            sha.update(b.array());
        });
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    /** The money in this replica's own partition (read outside any command). */
    public long localMoney() {
        long sum = 0;
        for (Object id : getObjects().keySet()) {
            if (getOracle().getPartition(id).equals(getLocalPartition())) {
                sum += ((Account) getObject(id)).balance();
            }
        }
        return sum;
    }
}
