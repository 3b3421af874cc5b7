package io.volery.server.tree;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
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

    /** The path whose quota a limits node at {@code path} sets ("/a/b" for its limits node); null for other nodes. */
    static String limitsOf(String path) {
        if (!path.endsWith("/" + LIMITS)) {
            return null;
        }
        String quoted = quotedPath(PathRules.parent(path));
        return quoted == null || quoted.isEmpty() ? null : quoted; // ZooKeeper has no quota on the root
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

    private static long value(Map<String, Long> stats, String key) {
        Long v = stats.get(key);
        return v == null ? -1 : v;
    }

    /**
     * A stats node's text, read: count, bytes, and what else it holds as ZooKeeper writes it back ("" or
     * "=;key=value;..." in key order); {@code source} is the data it was read from, so that a tree can keep it
     * while the node holds that very array (reading the text is most of what a counted write costs);
     * {@code canonical} when the text is spelled as ZooKeeper writes it.
     */
    record Stats(byte[] source, long count, long bytes, String rest, boolean canonical) {
        /** null when the data is not of that form. */
        static Stats of(byte[] data) {
            Map<String, Long> s = parse(data);
            if (s == null) {
                return null;
            }
            long count = value(s, COUNT);
            long bytes = value(s, BYTES);
            s.remove(COUNT);
            s.remove(BYTES);
            String rest = restText(s);
            return new Stats(data, count, bytes, rest, java.util.Arrays.equals(data, of(count, bytes, rest).source()));
        }

        /** The stats moved by these amounts, with their new text. */
        Stats plus(long bytesDiff, long countDiff) {
            return of(count + countDiff, bytes + bytesDiff, rest);
        }

        /** Stats in ZooKeeper's own spelling. */
        static Stats of(long count, long bytes, String rest) {
            byte[] text = (COUNT + "=" + count + "," + BYTES + "=" + bytes + rest).getBytes(StandardCharsets.UTF_8);
            return new Stats(text, count, bytes, rest, true);
        }
    }

    /** A limits node's text, read (-1: not set); {@code source} as in {@link Stats}. */
    record Limits(byte[] source, long count, long bytes, long countHard, long bytesHard) {
        static Limits of(byte[] data) {
            Map<String, Long> s = parse(data);
            return s == null ? null : new Limits(data, value(s, COUNT), value(s, BYTES), value(s, COUNT_HARD_LIMIT),
                    value(s, BYTE_HARD_LIMIT));
        }

        /** The count limit ZooKeeper's metrics show: the hard one where set, else the soft one. */
        long countLimit() {
            return countHard > -1 ? countHard : count;
        }

        long bytesLimit() {
            return bytesHard > -1 ? bytesHard : bytes;
        }
    }

    /** ZooKeeper's way of writing the keys other than count and bytes: after "=", sorted, each after ';'. */
    private static String restText(Map<String, Long> others) {
        if (others.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("=");
        new java.util.TreeMap<>(others).forEach((k, v) -> b.append(';').append(k).append('=').append(v));
        return b.toString();
    }

    /** ZooKeeper's namespace of a path: its first component ("a" for "/a/b"). */
    static String namespace(String path) {
        int from = path.startsWith("/") ? 1 : 0;
        int slash = path.indexOf('/', from);
        return slash < 0 ? path.substring(from) : path.substring(from, slash);
    }

    /** A limit a change passes: ZooKeeper's log message, and whether the limit is hard (the change is refused). */
    record Exceeded(String message, boolean hard) {
    }

    /**
     * What a change moving the subtree's count and bytes by these amounts passes (ZooKeeper's
     * {@code zookeeper.enforceQuota} check): null for nothing, else the first hard limit passed, else the soft
     * ones (only logged). A soft limit (count, bytes) counts only where no hard limit of its kind is set.
     */
    static Exceeded exceeded(String quoted, Limits limit, Stats now, long bytesDiff, long countDiff) {
        Exceeded count = countDiff == 0 ? null
                : passed(quoted, "count", "Count", now.count() + countDiff, limit.count(), limit.countHard());
        if (count != null && count.hard()) {
            return count;
        }
        Exceeded bytes = bytesDiff == 0 ? null
                : passed(quoted, "bytes", "Byte", now.bytes() + bytesDiff, limit.bytes(), limit.bytesHard());
        if (bytes != null && bytes.hard() || count == null) {
            return bytes;
        }
        return bytes == null ? count : new Exceeded(count.message() + "; " + bytes.message(), false);
    }

    private static Exceeded passed(String quoted, String what, String limitName, long after, long soft, long hardLimit) {
        boolean hard = hardLimit > -1;
        long max = hard ? hardLimit : soft;
        if (max <= -1 && !hard || after <= max) {
            return null;
        }
        return new Exceeded("Quota exceeded: " + quoted + " [current " + what + "=" + after + ", "
                + (hard ? "hard" : "soft") + limitName + "Limit=" + max + "]", hard);
    }
}
