package io.eyrie.core.linearizability;

/**
 * A sequential specification: what a single copy of the object does. States must implement
 * equals/hashCode by value (the checker memoizes on them) and must not be mutated.
 */
public interface Model<S> {

    S init();

    /**
     * The state after applying {@code input} in {@code state} if that yields {@code output}; null if
     * the sequential object could not have answered {@code output}. An output of
     * {@link Operation#UNKNOWN} (an operation without a response) must be accepted.
     */
    S step(S state, Object input, Object output);

    /** Readable form of an operation, for failure messages. */
    default String describe(Object input, Object output) {
        return input + " -> " + output;
    }
}
