package io.volery.server.backtoback;

import io.volery.server.tree.Stat;
import java.util.Arrays;
import java.util.List;

/**
 * What a driver answered, reduced to what must agree between ZooKeeper and Volery: the result code,
 * created path, Stat without zxids and times (and the ephemeral owner only as "owned or not", since
 * session ids differ), data, children (sorted) and per-op results of a multi.
 */
public record Outcome(int code, String path, ComparableStat stat, String data, List<String> children,
                      List<Outcome> results) {

    /** The Stat fields that must agree. */
    public record ComparableStat(int version, int cversion, int aversion, boolean ephemeral, int dataLength,
                                 int numChildren) {
        static ComparableStat of(Stat s) {
            return s == null ? null : new ComparableStat(s.version(), s.cversion(), s.aversion(),
                    s.ephemeralOwner() != 0, s.dataLength(), s.numChildren());
        }
    }

    public static Outcome error(int code) {
        return new Outcome(code, null, null, null, null, null);
    }

    public static Outcome of(int code, String path, Stat stat, byte[] data, List<String> children,
                             List<Outcome> results) {
        return new Outcome(code, path, ComparableStat.of(stat), data == null ? null : Arrays.toString(data),
                children == null ? null : children.stream().sorted().toList(), results);
    }
}
