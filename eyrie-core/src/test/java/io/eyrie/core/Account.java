package io.eyrie.core;

/** A bank account whose balance is the whole state (and the whole diff). */
public class Account extends PRObject {

    private long balance;

    @SuppressWarnings("unused")
    private Account() {
    }

    public Account(int id, long opening) {
        super(id);
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
