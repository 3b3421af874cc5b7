package io.eyrie.examples.cli;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** {@code --name value} command-line options of the example mains; unknown names are an error. */
public final class Args {

    private final Map<String, String> values = new HashMap<>();
    private final String usage;

    public Args(String[] args, Set<String> known, String usage) {
        this.usage = usage;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!name.startsWith("--") || !known.contains(name.substring(2))) {
                throw new IllegalArgumentException("unknown option '" + name + "'\n" + usage);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + name + " needs a value\n" + usage);
            }
            values.put(name.substring(2), args[++i]);
        }
    }

    public String required(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing option --" + name + "\n" + usage);
        }
        return v;
    }

    public String get(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    public int getInt(String name, int defaultValue) {
        String v = values.get(name);
        try {
            return v == null ? defaultValue : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + v + "'\n" + usage);
        }
    }

    public double getDouble(String name, double defaultValue) {
        String v = values.get(name);
        try {
            return v == null ? defaultValue : Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number, got '" + v + "'\n" + usage);
        }
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }
}
