package io.volery.server.admin;

import java.util.Collection;
import java.util.Map;

/**
 * Writes maps, collections, strings, numbers, booleans and null as JSON, indented the way ZooKeeper's
 * AdminServer (Jackson's default pretty printer) writes its answers: two spaces, {@code "key" : value}.
 */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value, 0);
        return b.append('\n').toString();
    }

    private static void write(StringBuilder b, Object v, int depth) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                b.append("{ }");
                return;
            }
            b.append("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                indent(b, depth + 1);
                string(b, String.valueOf(e.getKey()));
                b.append(" : ");
                write(b, e.getValue(), depth + 1);
                b.append(++i < m.size() ? ",\n" : "\n");
            }
            indent(b, depth);
            b.append('}');
        } else if (v instanceof Collection<?> c) {
            if (c.isEmpty()) {
                b.append("[ ]");
                return;
            }
            b.append("[ ");
            int i = 0;
            for (Object x : c) {
                write(b, x, depth);
                b.append(++i < c.size() ? ", " : " ");
            }
            b.append(']');
        } else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            b.append("null");
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else {
            string(b, v.toString());
        }
    }

    private static void indent(StringBuilder b, int depth) {
        b.append("  ".repeat(depth));
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
