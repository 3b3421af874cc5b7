package io.volery.server.tree;

import java.util.List;

/**
 * One node of the tree, mutable, owned by {@link ZnodeTree}. Like ZooKeeper it keeps the count of
 * child creations rather than the client-visible cversion: the sequential suffix is that count, and
 * the client sees {@code 2 * creations - numChildren} (every child that is gone was created and
 * deleted, each a change).
 */
final class Znode {

    enum Kind { PERSISTENT, EPHEMERAL, CONTAINER, TTL }

    /** Null when a client gave null data: ZooKeeper keeps and returns null, distinct from empty. */
    byte[] data;
    List<Acl> acl;
    long czxid;
    long mzxid;
    long pzxid;
    long ctime;
    long mtime;
    int version;
    int childCreations;
    int aversion;
    Kind kind;
    /** The owning session for ephemerals, the TTL in ms for TTL nodes, else 0. */
    long owner;
    /** Child names, iterable in ZooKeeper's order (getChildren shows it). */
    final HashOrderedSet children = new HashOrderedSet(HashOrderedSet.CHILDREN_TABLE);

    Znode(byte[] data, List<Acl> acl, Kind kind, long owner, long zxid, long time) {
        this.data = data;
        this.acl = acl;
        this.kind = kind;
        this.owner = owner;
        this.czxid = zxid;
        this.mzxid = zxid;
        this.pzxid = zxid;
        this.ctime = time;
        this.mtime = time;
    }

    /** The fields as they are now; the data array and ACL list are shared, as the tree never changes them in place. */
    TreeMirror.FrozenNode freeze() {
        return new TreeMirror.FrozenNode(data, acl, czxid, mzxid, pzxid, ctime, mtime, version, childCreations,
                aversion, kind, owner);
    }

    Stat stat() {
        return new Stat(czxid, mzxid, ctime, mtime, version, childCreations * 2 - children.size(), aversion,
                kind == Kind.EPHEMERAL ? owner : 0, data == null ? 0 : data.length, children.size(), pzxid);
    }
}
