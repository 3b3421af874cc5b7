package io.eyrie.examples.kv;

import io.eyrie.core.Command;

/** The key-value store's commands, as a client builds them. */
public final class KvCommands {

    public static final String PUT = "put";
    public static final String GET = "get";
    public static final String DELETE = "delete";
    public static final String COPY = "copy";

    private KvCommands() {
    }

    /** Result: the previous value, or null. */
    public static Command put(String key, String value) {
        return new Command(PUT, key, value);
    }

    /** Result: the value, or null. */
    public static Command get(String key) {
        return new Command(GET, key);
    }

    /** Result: the removed value, or null. */
    public static Command delete(String key) {
        return new Command(DELETE, key);
    }

    /** Sets {@code dst} to {@code src}'s value (possibly across partitions). Result: that value. */
    public static Command copy(String src, String dst) {
        return new Command(COPY, src, dst);
    }
}
