package io.eyrie.core.linearizability;

import java.util.ArrayList;
import java.util.List;

/** A thread-safe recorder of operations as concurrent clients perform them. */
public final class History {

    private final List<Operation> operations = new ArrayList<>();

    /** Records an operation that returned {@code output}; times from {@link System#nanoTime}. */
    public synchronized void add(int client, long callNanos, long returnNanos, Object input, Object output) {
        operations.add(new Operation(client, callNanos, returnNanos, input, output));
    }

    /** Records an operation that got no answer. */
    public synchronized void addPending(int client, long callNanos, Object input) {
        operations.add(Operation.pending(client, callNanos, input));
    }

    public synchronized List<Operation> operations() {
        return new ArrayList<>(operations);
    }

    public synchronized int size() {
        return operations.size();
    }
}
