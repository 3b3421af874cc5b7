package io.eyrie.core.linearizability;

import java.util.Arrays;
import java.util.List;

/**
 * Bank accounts 0..n-1 with the same opening balance. Inputs: {@code List.of("transfer", from, to,
 * amount)} (output true if the source had enough and the money moved, false otherwise) and
 * {@code List.of("balance", account)} (output the balance).
 */
public final class BankModel implements Model<BankModel.State> {

    public record State(long[] balances) {
        @Override
        public boolean equals(Object o) {
            return o instanceof State s && Arrays.equals(s.balances, balances);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(balances);
        }

        @Override
        public String toString() {
            return Arrays.toString(balances);
        }
    }

    private final int accounts;
    private final long opening;

    public BankModel(int accounts, long opening) {
        this.accounts = accounts;
        this.opening = opening;
    }

    @Override
    public State init() {
        long[] b = new long[accounts];
        Arrays.fill(b, opening);
        return new State(b);
    }

    @Override
    public State step(State s, Object input, Object output) {
        List<?> in = (List<?>) input;
        switch ((String) in.get(0)) {
            case "balance" -> {
                long v = s.balances[(Integer) in.get(1)];
                return output == Operation.UNKNOWN || Long.valueOf(v).equals(output) ? s : null;
            }
            case "transfer" -> {
                int from = (Integer) in.get(1);
                int to = (Integer) in.get(2);
                long amount = (Long) in.get(3);
                boolean possible = s.balances[from] >= amount;
                if (output != Operation.UNKNOWN && !Boolean.valueOf(possible).equals(output)) {
                    return null;
                }
                if (!possible) {
                    return s;
                }
                long[] next = s.balances.clone();
                next[from] -= amount;
                next[to] += amount;
                return new State(next);
            }
            default -> throw new IllegalArgumentException("unknown operation " + input);
        }
    }
}
