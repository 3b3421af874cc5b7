package io.eyrie.examples.bank;

import io.eyrie.core.Command;

/** The bank's commands, as a client builds them. */
public final class BankCommands {

    public static final String TRANSFER = "transfer";
    public static final String BALANCE = "balance";
    public static final String DIGEST = "digest";

    private BankCommands() {
    }

    /** Moves {@code amount} if {@code from} holds it; the result is true if it moved. */
    public static Command transfer(int from, int to, long amount) {
        return new Command(TRANSFER, from, to, amount);
    }

    /** The result is the balance. */
    public static Command balance(int account) {
        return new Command(BALANCE, account);
    }

    /**
     * Asks every replica of partition {@code partitionId} (a group id) for a hash of its state at this
     * command's place in the order. The result is {@link BankServer#stateDigest()} of the replica
     * that answers first; all of them compute it at the same point, so all must agree.
     */
    public static Command digest(int partitionId) {
        return new Command(DIGEST, partitionId);
    }

    /** A digest command carrying {@code tag}, so its executions can be told apart in logs. */
    public static Command digest(int partitionId, String tag) {
        return new Command(DIGEST, partitionId, tag);
    }
}
