package io.volery.server.tree;

import java.util.Objects;

/** An identity: a scheme ({@code world}, {@code auth}, {@code digest}, {@code ip}, {@code super}) and an id. */
public record Id(String scheme, String id) implements Comparable<Id> {
    public static final Id ANYONE = new Id("world", "anyone");
    public static final Id AUTH_IDS = new Id("auth", "");

    public Id {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(id, "id");
    }

    @Override
    public int compareTo(Id o) {
        int c = scheme.compareTo(o.scheme);
        return c != 0 ? c : id.compareTo(o.id);
    }
}
