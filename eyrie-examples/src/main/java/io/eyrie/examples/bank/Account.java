package io.eyrie.examples.bank;

import io.eyrie.core.PRObject;
import io.eyrie.core.Partition;

/** A bank account. Its balance is its whole state, so the diff is the balance. */
public class Account extends PRObject {

    private long balance;

    /** For checkpoint restore. */
    private Account() {
    }

    public Account(int number, long opening) {
        super(number);
        this.balance = opening;
    }

    public long balance() {
        return balance;
    }

    public void withdraw(long amount) {
        if (amount > balance) {
            throw new IllegalStateException("account " + getId() + " holds " + balance + ", cannot withdraw " + amount);
        }
        balance -= amount;
    }

    public void deposit(long amount) {
        balance += amount;
    }

    @Override
    public Object getDiff(Partition p) {
        return balance;
    }

    @Override
    public void updateFromDiff(Object diff) {
        balance = (Long) diff;
    }
}
