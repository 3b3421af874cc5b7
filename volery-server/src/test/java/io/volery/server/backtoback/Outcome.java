package io.volery.server.backtoback;

import io.volery.server.tree.Stat;
import java.util.Arrays;
import java.util.List;

/**
 * What a driver answered, reduced to what must agree between ZooKeeper and Volery: the result code,
 * created path, Stat without zxids and times (and the ephemeral owner only as "owned or not", since
 * session ids differ), data, a list (children sorted, ephemerals sorted, ACL entries as
 * "perms scheme:id" in order), a count, and per-op results of a multi.
 */
public record Outcome(int code, String path, ComparableStat stat, String data, List<String> list, Integer count,
                      List<Outcome> results) {

    /** The Stat fields that must agree. */
    public record ComparableStat(int version, int cversion, int aversion, boolean ephemeral, int dataLength,
                                 int numChildren) {
        static ComparableStat of(Stat s) {
            return s == null ? null : new ComparableStat(s.version(), s.cversion(), s.aversion(),
                    s.ephemeralOwner() != 0, s.dataLength(), s.numChildren());
        }
    }

    public static Outcome code(int code) {
        return new Outcome(code, null, null, null, null, null, null);
    }

    public static Outcome created(String path, Stat stat) {
        return new Outcome(0, path, ComparableStat.of(stat), null, null, null, null);
    }

    public static Outcome stat(Stat stat) {
        return new Outcome(0, null, ComparableStat.of(stat), null, null, null, null);
    }

    public static Outcome data(byte[] data, Stat stat) {
        return new Outcome(0, null, ComparableStat.of(stat), data == null ? "null" : Arrays.toString(data), null, null, null);
    }

    public static Outcome list(List<String> items, boolean sort, Stat stat) {
        return new Outcome(0, null, ComparableStat.of(stat), null, sort ? items.stream().sorted().toList() : List.copyOf(items),
                null, null);
    }

    public static Outcome count(int count) {
        return new Outcome(0, null, null, null, null, count, null);
    }

    public static Outcome multi(int code, List<Outcome> results) {
        return new Outcome(code, null, null, null, null, null, List.copyOf(results));
    }
}
