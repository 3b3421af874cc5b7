package io.volery.server.internal;

import io.volery.server.frontend.OpCodes;
import io.volery.server.frontend.ZkRequest;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetAllChildrenNumberRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SyncRequest;

import java.util.TreeSet;

/** Which partitions a ZooKeeper request involves, and how they cooperate on it. */
public enum Scope {
    /** The partition owning the request's subtree. */
    OWNER,
    /** Any one partition (whoAmI; reads of the root under hash or without ADR 053): the front end's own. */
    LOCAL,
    /** Every partition, each deciding alone (root writes, top-level creates, auth, close, setWatches). */
    EVERY,
    /** Every partition, following the owner's verdict (deleting a top-level node). */
    OWNER_VERDICT,
    /** A multi over several partitions: verdicts, then all or none. */
    MULTI,
    /** A read whose answer is spread over partitions. */
    GATHER;

    static Scope of(ZkRequest q, PathPartitioner p) {
        int op = q.opCode();
        switch (op) {
            case OpCodes.AUTH, OpCodes.SASL, OpCodes.CLOSE_SESSION, OpCodes.SET_WATCHES, OpCodes.SET_WATCHES2 -> {
                return EVERY;
            }
            case OpCodes.WHO_AM_I -> {
                return LOCAL;
            }
            case OpCodes.GET_EPHEMERALS -> {
                // under hash every partition keeps every ephemeral
                return p.isHash() ? LOCAL : GATHER;
            }
            case OpCodes.MULTI -> {
                return partitionsOf(q, p).size() == 1 && !anyListedEverywhere(q, p) ? OWNER : MULTI;
            }
            case OpCodes.MULTI_READ -> {
                return partitionsOf(q, p).size() == 1 && !readsQuotaStatsShares(q, p) ? OWNER : GATHER;
            }
            default -> {
            }
        }
        String path = pathOf(q.body());
        boolean root = PathPartitioner.isRoot(path);
        boolean everywhere = p.listedEverywhere(path);
        boolean hash = p.isHash();
        return switch (op) {
            case OpCodes.CREATE, OpCodes.CREATE2, OpCodes.CREATE_CONTAINER, OpCodes.CREATE_TTL -> everywhere ? EVERY : OWNER;
            case OpCodes.DELETE, OpCodes.DELETE_CONTAINER -> everywhere ? OWNER_VERDICT : OWNER;
            case OpCodes.SET_DATA -> root ? EVERY : OWNER;
            // under hash a node's ACL guards the creation and deletion of its children, which every partition decides
            // and the quota root's ACL guards creates of quota nodes below it, which every partition lists (ADR 072)
            case OpCodes.SET_ACL -> root || hash || PathPartitioner.listsEverywhere(path) ? EVERY : OWNER;
            case OpCodes.ADD_WATCH -> {
                int mode = ((AddWatchRequest) q.body()).getMode();
                boolean persistent = mode == 0 || mode == 1;
                yield persistent && p.persistentWatchEverywhere(path, mode == 1) ? EVERY : root && !p.rootReadAtOwner() ? LOCAL : OWNER;
            }
            // under hash every partition holds the whole tree's shape
            case OpCodes.GET_ALL_CHILDREN_NUMBER -> hash ? (root ? LOCAL : OWNER) : p.spansPartitions(path) ? GATHER : OWNER;
            // under hash a path's watches may sit in its owner (one-shot) or everywhere (persistent); so may those
            // of a path whose subtree spans partitions (a recursive watch on the root is kept by every partition)
            case OpCodes.REMOVE_WATCHES, OpCodes.CHECK_WATCHES -> hash || p.spansPartitions(path) ? GATHER
                    : root && !p.rootReadAtOwner() ? LOCAL : OWNER;
            // under hash every partition holds a share of a quota's stats: reads of a stats node sum them (ADR 089)
            case OpCodes.GET_DATA, OpCodes.EXISTS -> hash && io.volery.server.tree.ZnodeTree.isQuotaStatsNode(path)
                    ? GATHER : root && !p.rootReadAtOwner() ? LOCAL : OWNER;
            // the root's owner, where the root's readers and watches are (ADR 053), or any partition
            default -> root && !p.rootReadAtOwner() ? LOCAL : OWNER;
        };
    }

    /** A create of a node every partition lists (a top-level node under subtree, any node under hash). */
    static boolean createsListedEverywhere(ZkRequest q, PathPartitioner p) {
        int op = q.opCode();
        boolean create = op == OpCodes.CREATE || op == OpCodes.CREATE2 || op == OpCodes.CREATE_CONTAINER
                || op == OpCodes.CREATE_TTL;
        return create && p.listedEverywhere(pathOf(q.body()));
    }

    /** A multiRead under hash that reads a quota's stats node, whose shares every partition holds (ADR 089). */
    static boolean readsQuotaStatsShares(ZkRequest q, PathPartitioner p) {
        if (!p.isHash()) {
            return false;
        }
        for (ZkRequest op : q.ops()) {
            if (op.opCode() == OpCodes.GET_DATA && io.volery.server.tree.ZnodeTree.isQuotaStatsNode(pathOf(op.body()))) {
                return true;
            }
        }
        return false;
    }

    /** The partitions a multi or multiRead's operations belong to (the root's: the lowest). */
    static TreeSet<Integer> partitionsOf(ZkRequest q, PathPartitioner p) {
        TreeSet<Integer> out = new TreeSet<>();
        for (ZkRequest op : q.ops()) {
            out.add(p.ownerOf(pathOf(op.body())));
        }
        return out;
    }

    /**
     * A multi that creates or deletes a node every partition lists, or writes the root (which every
     * partition keeps whole, as a plain setData of it does), so it goes to every partition.
     */
    static boolean anyListedEverywhere(ZkRequest q, PathPartitioner p) {
        for (ZkRequest op : q.ops()) {
            int t = op.opCode();
            boolean createOrDelete = t == OpCodes.CREATE || t == OpCodes.CREATE2 || t == OpCodes.CREATE_CONTAINER
                    || t == OpCodes.CREATE_TTL || t == OpCodes.DELETE;
            if (createOrDelete && p.listedEverywhere(pathOf(op.body()))
                    || t == OpCodes.SET_DATA && PathPartitioner.isRoot(pathOf(op.body()))) {
                return true;
            }
        }
        return false;
    }

    /** The znode path a request body names; null for bodies without one. */
    static String pathOf(Record b) {
        if (b instanceof CreateRequest r) {
            return r.getPath();
        } else if (b instanceof CreateTTLRequest r) {
            return r.getPath();
        } else if (b instanceof DeleteRequest r) {
            return r.getPath();
        } else if (b instanceof ExistsRequest r) {
            return r.getPath();
        } else if (b instanceof GetDataRequest r) {
            return r.getPath();
        } else if (b instanceof SetDataRequest r) {
            return r.getPath();
        } else if (b instanceof GetACLRequest r) {
            return r.getPath();
        } else if (b instanceof SetACLRequest r) {
            return r.getPath();
        } else if (b instanceof GetChildrenRequest r) {
            return r.getPath();
        } else if (b instanceof GetChildren2Request r) {
            return r.getPath();
        } else if (b instanceof SyncRequest r) {
            return r.getPath();
        } else if (b instanceof CheckVersionRequest r) {
            return r.getPath();
        } else if (b instanceof CheckWatchesRequest r) {
            return r.getPath();
        } else if (b instanceof RemoveWatchesRequest r) {
            return r.getPath();
        } else if (b instanceof AddWatchRequest r) {
            return r.getPath();
        } else if (b instanceof GetAllChildrenNumberRequest r) {
            return r.getPath();
        }
        return null;
    }
}
