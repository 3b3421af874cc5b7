package io.volery.server.tree;

/** A znode's metadata as a client sees it; the fields and their order are those of ZooKeeper's Stat. */
public record Stat(long czxid, long mzxid, long ctime, long mtime, int version, int cversion, int aversion,
                   long ephemeralOwner, int dataLength, int numChildren, long pzxid) {

    /** This Stat with another data length (a stats node answered with other text than the copy holds). */
    public Stat withDataLength(int length) {
        return new Stat(czxid, mzxid, ctime, mtime, version, cversion, aversion, ephemeralOwner, length, numChildren,
                pzxid);
    }

    /** The fields in their order, to travel between partitions as an array; {@link #ofFields} reads them back. */
    public long[] fields() {
        return new long[] {czxid, mzxid, ctime, mtime, version, cversion, aversion, ephemeralOwner, dataLength,
                numChildren, pzxid};
    }

    /** The Stat whose {@link #fields} are {@code f}. */
    public static Stat ofFields(long[] f) {
        return new Stat(f[0], f[1], f[2], f[3], (int) f[4], (int) f[5], (int) f[6], f[7], (int) f[8], (int) f[9], f[10]);
    }
}
