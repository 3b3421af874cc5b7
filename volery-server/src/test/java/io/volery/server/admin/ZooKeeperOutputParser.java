package io.volery.server.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads srvr, stat and mntr the way common monitoring tools do: srvr and stat line by line in
 * ZooKeeper's order with one pattern per line (as the Datadog and Nagios checks do), mntr as
 * "key TAB value" lines (as Telegraf and the Prometheus ZooKeeper exporters do). Anything else
 * in the text is ignored, as those tools ignore it; a missing or misplaced line is an error.
 */
final class ZooKeeperOutputParser {
    private static final Pattern VERSION = Pattern.compile("^Zookeeper version: (\\d+)\\.(\\d+)\\.(\\d+)-(\\S+), built on (.+)$");
    private static final Pattern CLIENT = Pattern.compile("^ /(\\d+\\.\\d+\\.\\d+\\.\\d+):(\\d+)\\[(\\d+)]\\(queued=(\\d+),recved=(\\d+),sent=(\\d+)(,.*)?\\)$");
    private static final String[][] SERVER_LINES = {
            {"latency", "^Latency min/avg/max: (\\d+)/(\\d+(?:\\.\\d+)?)/(\\d+)$"},
            {"received", "^Received: (\\d+)$"},
            {"sent", "^Sent: (\\d+)$"},
            {"connections", "^Connections: (\\d+)$"},
            {"outstanding", "^Outstanding: (\\d+)$"},
            {"zxid", "^Zxid: 0x([0-9a-f]+)$"},
            {"mode", "^Mode: (leader|follower|observer|standalone|read-only)$"},
            {"nodeCount", "^Node count: (\\d+)$"},
    };
    private static final Pattern MNTR_LINE = Pattern.compile("^([a-z][a-z0-9_]*)\t(.*)$");

    /** srvr's values: version, latency (min/avg/max), received, sent, connections, outstanding, zxid, mode, nodeCount. */
    record Server(String version, String latency, Map<String, String> values) {
        long number(String key) {
            return Long.parseLong(values.get(key));
        }
    }

    /** stat: the client lines, then srvr's values. */
    record Stat(List<String> clientAddresses, Server server) {
    }

    static Server srvr(String text) {
        List<String> lines = text.lines().toList();
        return server(lines, 0);
    }

    static Stat stat(String text) {
        List<String> lines = text.lines().toList();
        expect(lines.size() > 2 && lines.get(1).equals("Clients:"), "second line 'Clients:'", text);
        List<String> clients = new ArrayList<>();
        int i = 2;
        for (; i < lines.size() && !lines.get(i).isEmpty(); i++) {
            Matcher m = CLIENT.matcher(lines.get(i));
            expect(m.matches(), "a client line like ' /127.0.0.1:5000[1](queued=0,recved=1,sent=1)' at line " + (i + 1), text);
            clients.add(m.group(1) + ":" + m.group(2));
        }
        expect(i < lines.size(), "an empty line after the clients", text);
        List<String> rest = new ArrayList<>();
        rest.add(lines.get(0));
        rest.addAll(lines.subList(i + 1, lines.size()));
        return new Stat(clients, server(rest, 0));
    }

    private static Server server(List<String> lines, int first) {
        String text = String.join("\n", lines);
        Matcher v = VERSION.matcher(lines.isEmpty() ? "" : lines.get(first));
        expect(v.matches(), "first line 'Zookeeper version: X.Y.Z-..., built on ...'", text);
        Map<String, String> values = new LinkedHashMap<>();
        String latency = null;
        for (int k = 0; k < SERVER_LINES.length; k++) {
            int at = first + 1 + k;
            expect(at < lines.size(), "line " + (at + 1) + " matching " + SERVER_LINES[k][1], text);
            Matcher m = Pattern.compile(SERVER_LINES[k][1]).matcher(lines.get(at));
            expect(m.matches(), "line " + (at + 1) + " matching " + SERVER_LINES[k][1], text);
            if (k == 0) {
                latency = m.group(1) + "/" + m.group(2) + "/" + m.group(3);
            } else {
                values.put(SERVER_LINES[k][0], m.group(1));
            }
        }
        values.put("zxid", String.valueOf(Long.parseLong(values.get("zxid"), 16)));
        return new Server(v.group(1) + "." + v.group(2) + "." + v.group(3), latency, values);
    }

    /** mntr as a map; every line must be "key TAB value". */
    static Map<String, String> mntr(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            if (line.isEmpty()) {
                continue;
            }
            Matcher m = MNTR_LINE.matcher(line);
            expect(m.matches(), "'key<TAB>value' lines, not '" + line + "'", text);
            out.put(m.group(1), m.group(2));
        }
        return out;
    }

    private static void expect(boolean ok, String what, String text) {
        if (!ok) {
            throw new AssertionError("expected " + what + " in:\n" + text);
        }
    }

    private ZooKeeperOutputParser() {
    }
}
