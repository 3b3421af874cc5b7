package io.eyrie.examples.bank;

import io.eyrie.core.Command;
import io.eyrie.core.StateMachine;
import io.eyrie.multicast.MulticastEndpoint;

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
        throw new IllegalArgumentException("unknown bank command " + c);
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
