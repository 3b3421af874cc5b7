package io.volery.bench;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A minimal streaming JSON writer: objects, arrays, strings, numbers, booleans. Commas and
 * indentation are tracked here so the report code only states structure. Not thread-safe.
 */
final class JsonWriter {

    private final StringBuilder out = new StringBuilder(4096);
    /** One entry per open container: whether it has no element yet. */
    private final Deque<boolean[]> open = new ArrayDeque<>();
    private boolean afterName;

    JsonWriter beginObject() {
        beforeValue();
        out.append('{');
        open.push(new boolean[] {true});
        return this;
    }

    JsonWriter endObject() {
        return close('}');
    }

    JsonWriter beginArray() {
        beforeValue();
        out.append('[');
        open.push(new boolean[] {true});
        return this;
    }

    JsonWriter endArray() {
        return close(']');
    }

    JsonWriter name(String name) {
        beforeValue();
        string(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    JsonWriter value(String s) {
        beforeValue();
        if (s == null) {
            out.append("null");
        } else {
            string(s);
        }
        return this;
    }

    JsonWriter value(long n) {
        beforeValue();
        out.append(n);
        return this;
    }

    JsonWriter value(double d) {
        beforeValue();
        // JSON has no NaN or infinity; a missing measurement is written as null.
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.append("null");
        } else {
            out.append(Math.round(d * 1000.0) / 1000.0);
        }
        return this;
    }

    JsonWriter value(boolean b) {
        beforeValue();
        out.append(b);
        return this;
    }

    JsonWriter field(String name, String s) {
        return name(name).value(s);
    }

    JsonWriter field(String name, long n) {
        return name(name).value(n);
    }

    JsonWriter field(String name, double d) {
        return name(name).value(d);
    }

    JsonWriter field(String name, boolean b) {
        return name(name).value(b);
    }

    /** The document; every container must be closed. */
    String toJson() {
        if (!open.isEmpty()) {
            throw new IllegalStateException(open.size() + " JSON containers still open");
        }
        return out.append('\n').toString();
    }

    private JsonWriter close(char c) {
        boolean empty = open.pop()[0];
        if (!empty) {
            newline();
        }
        out.append(c);
        return this;
    }

    private void beforeValue() {
        if (afterName) {
            afterName = false;
            return;
        }
        boolean[] first = open.peek();
        if (first == null) {
            return;
        }
        if (!first[0]) {
            out.append(',');
        }
        first[0] = false;
        newline();
    }

    private void newline() {
        out.append('\n');
        out.append("  ".repeat(open.size()));
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
