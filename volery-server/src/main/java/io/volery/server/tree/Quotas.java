package io.volery.server.tree;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * ZooKeeper's quota nodes (ADR 072): a quota on {@code /a/b} is the node {@code /zookeeper/quota/a/b} with the
 * children {@code zookeeper_limits} (what the operator set) and {@code zookeeper_stats} (what the subtree
 * holds, kept up to date by the server), both holding ZooKeeper's "key=value" text, e.g.
 * {@code count=3,bytes=10} or {@code count=-1,bytes=-1=;byteHardLimit=40;countHardLimit=3}.
 */
public final class Quotas {
    public static final String QUOTA_ROOT = "/zookeeper/quota";
    public static final String LIMITS = "zookeeper_limits";
    public static final String STATS = "zookeeper_stats";

    private static final String COUNT = "count";
    private static final String BYTES = "bytes";
    private static final String COUNT_HARD_LIMIT = "countHardLimit";
    private static final String BYTE_HARD_LIMIT = "byteHardLimit";
    private static final Pattern PAIRS = Pattern.compile("[,;]+");

    private Quotas() {
    }

    /**
     * The path a quota node's child stands for when {@code parent} is in the quota tree: "/a/b" for
     * "/zookeeper/quota/a/b", "" for the quota tree's root; null when {@code parent} is not in it.
     */
    static String quotedPath(String parent) {
        if (parent.equals(QUOTA_ROOT)) {
            return "";
        }
        return parent.startsWith(QUOTA_ROOT + "/") ? parent.substring(QUOTA_ROOT.length()) : null;
    }

    static String statPath(String quoted) {
        return QUOTA_ROOT + quoted + "/" + STATS;
    }

    static String limitPath(String quoted) {
        return QUOTA_ROOT + quoted + "/" + LIMITS;
    }

    /**
     * ZooKeeper's StatsTrack text, read: pairs split at ',' or ';', each "key=value" (an empty value is -1).
     * Null when the text is not of that form (a client may write anything into a quota node).
     */
    static Map<String, Long> parse(byte[] data) {
        Map<String, Long> out = new HashMap<>();
        if (data == null || data.length == 0) {
            return out;
        }
        try {
            for (String pair : PAIRS.split(new String(data, StandardCharsets.UTF_8))) {
                String[] kv = pair.split("=");
                if (kv.length == 0) {
                    continue;
                }
                if (kv.length == 1) {
                    return null; // ZooKeeper fails on a key without '='
                }
                out.put(kv[0], kv[1].isEmpty() ? -1L : Long.parseLong(kv[1]));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return out;
    }

    /** ZooKeeper's StatsTrack text, written: count and bytes first, then any other keys sorted after "=;". */
    static byte[] format(Map<String, Long> stats) {
        StringBuilder b = new StringBuilder();
        b.append(COUNT).append('=').append(value(stats, COUNT)).append(',').append(BYTES).append('=')
                .append(value(stats, BYTES));
        List<String> others = new ArrayList<>(stats.keySet());
        others.remove(COUNT);
        others.remove(BYTES);
        if (!others.isEmpty()) {
            b.append('=');
            Collections.sort(others);
            for (String k : others) {
                b.append(';').append(k).append('=').append(stats.get(k));
            }
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static long value(Map<String, Long> stats, String key) {
        Long v = stats.get(key);
        return v == null ? -1 : v;
    }

    /** The stats text with count and bytes moved by the given amounts; null when {@code data} cannot be read. */
    static byte[] added(byte[] data, long bytesDiff, long countDiff) {
        Map<String, Long> stats = parse(data);
        if (stats == null) {
            return null;
        }
        stats.put(COUNT, value(stats, COUNT) + countDiff);
        stats.put(BYTES, value(stats, BYTES) + bytesDiff);
        return format(stats);
    }

    /** {count limit, bytes limit} of a limits node, a hard limit where set (ZooKeeper's metrics); null if unreadable. */
    static long[] limitsOf(byte[] data) {
        Map<String, Long> s = parse(data);
        if (s == null) {
            return null;
        }
        return new long[] {effectiveLimit(s, COUNT, COUNT_HARD_LIMIT), effectiveLimit(s, BYTES, BYTE_HARD_LIMIT)};
    }

    /** {count, bytes} of a stats node; null if unreadable. */
    static long[] usageOf(byte[] data) {
        Map<String, Long> s = parse(data);
        return s == null ? null : new long[] {value(s, COUNT), value(s, BYTES)};
    }

    /** ZooKeeper's namespace of a path: its first component ("a" for "/a/b"). */
    static String namespace(String path) {
        int from = path.startsWith("/") ? 1 : 0;
        int slash = path.indexOf('/', from);
        return slash < 0 ? path.substring(from) : path.substring(from, slash);
    }

    static byte[] counted(long count, long bytes) {
        Map<String, Long> stats = new HashMap<>();
        stats.put(COUNT, count);
        stats.put(BYTES, bytes);
        return format(stats);
    }

    /** A limit a change passes: ZooKeeper's log message, and whether the limit is hard (the change is refused). */
    record Exceeded(String message, boolean hard) {
    }

    /**
     * What a change moving the subtree's count and bytes by these amounts passes (ZooKeeper's
     * {@code zookeeper.enforceQuota} check): null for nothing, else the first hard limit passed, else the soft
     * ones (only logged). A soft limit (count, bytes) counts only where no hard limit of its kind is set.
     * {@code limits} and {@code stats} are the quota's two nodes' data.
     */
    static Exceeded exceeded(String quoted, byte[] limits, byte[] stats, long bytesDiff, long countDiff) {
        Map<String, Long> limit = parse(limits);
        Map<String, Long> now = parse(stats);
        if (limit == null || now == null) {
            return null;
        }
        Exceeded count = countDiff == 0 ? null
                : passed(quoted, "count", "Count", value(now, COUNT) + countDiff, limit, COUNT, COUNT_HARD_LIMIT);
        if (count != null && count.hard()) {
            return count;
        }
        Exceeded bytes = bytesDiff == 0 ? null
                : passed(quoted, "bytes", "Byte", value(now, BYTES) + bytesDiff, limit, BYTES, BYTE_HARD_LIMIT);
        if (bytes != null && bytes.hard() || count == null) {
            return bytes;
        }
        return bytes == null ? count : new Exceeded(count.message() + "; " + bytes.message(), false);
    }

    private static Exceeded passed(String quoted, String what, String limitName, long after, Map<String, Long> limit,
                                   String softKey, String hardKey) {
        boolean hard = value(limit, hardKey) > -1;
        long max = effectiveLimit(limit, softKey, hardKey);
        if (max <= -1 && !hard || after <= max) {
            return null;
        }
        return new Exceeded("Quota exceeded: " + quoted + " [current " + what + "=" + after + ", "
                + (hard ? "hard" : "soft") + limitName + "Limit=" + max + "]", hard);
    }

    /** The hard limit where one is set, else the soft one (-1: none). */
    private static long effectiveLimit(Map<String, Long> limit, String softKey, String hardKey) {
        return value(limit, hardKey) > -1 ? value(limit, hardKey) : value(limit, softKey);
    }
}
