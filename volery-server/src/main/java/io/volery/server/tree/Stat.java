package io.volery.server.tree;

/** A znode's metadata as a client sees it; the fields and their order are those of ZooKeeper's Stat. */
public record Stat(long czxid, long mzxid, long ctime, long mtime, int version, int cversion, int aversion,
                   long ephemeralOwner, int dataLength, int numChildren, long pzxid) {
}
