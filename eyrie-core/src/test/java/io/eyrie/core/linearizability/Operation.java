package io.eyrie.core.linearizability;

/**
 * One operation of a history: invoked at {@code callNanos}, answered at {@code returnNanos}
 * ({@link Long#MAX_VALUE} and output {@link #UNKNOWN} when no answer came: it may or may not have
 * taken effect).
 */
public record Operation(int client, long callNanos, long returnNanos, Object input, Object output) {

    /** The output of an operation that never returned. */
    public static final Object UNKNOWN = new Object() {
        @Override
        public String toString() {
            return "?";
        }
    };

    public Operation {
        if (returnNanos < callNanos) {
            throw new IllegalArgumentException("operation returns (" + returnNanos + ") before it is called (" + callNanos + ")");
        }
    }

    public static Operation pending(int client, long callNanos, Object input) {
        return new Operation(client, callNanos, Long.MAX_VALUE, input, UNKNOWN);
    }
}
