package io.eyrie.core.linearizability;

import java.util.Arrays;
import java.util.List;

/**
 * Named integer registers, all starting at 0. Inputs: {@code List.of("write", reg, value)} (output
 * "ok"), {@code List.of("read", reg)} (output the value), {@code List.of("writeAll", value)} (every
 * register at once; output "ok").
 */
public final class RegistersModel implements Model<RegistersModel.State> {

    public record State(int[] values) {
        @Override
        public boolean equals(Object o) {
            return o instanceof State s && Arrays.equals(s.values, values);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(values);
        }

        @Override
        public String toString() {
            return Arrays.toString(values);
        }
    }

    private final int registers;

    public RegistersModel(int registers) {
        this.registers = registers;
    }

    @Override
    public State init() {
        return new State(new int[registers]);
    }

    @Override
    public State step(State s, Object input, Object output) {
        List<?> in = (List<?>) input;
        switch ((String) in.get(0)) {
            case "read" -> {
                int v = s.values[(Integer) in.get(1)];
                return output == Operation.UNKNOWN || Integer.valueOf(v).equals(output) ? s : null;
            }
            case "write" -> {
                int[] next = s.values.clone();
                next[(Integer) in.get(1)] = (Integer) in.get(2);
                return new State(next);
            }
            case "writeAll" -> {
                int[] next = new int[registers];
                Arrays.fill(next, (Integer) in.get(1));
                return new State(next);
            }
            default -> throw new IllegalArgumentException("unknown operation " + input);
        }
    }
}
