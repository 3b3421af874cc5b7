package io.volery.copy;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.server.DataNode;
import org.apache.zookeeper.server.DataTree;
import org.apache.zookeeper.server.EphemeralType;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

/**
 * A ZooKeeper data directory (its newest snapshot and the transaction logs after it), loaded with ZooKeeper
 * 3.9's own reader into memory, as the server does at start. Read-only: a directory without a snapshot is
 * refused rather than initialised. The image is the state as of the last complete logged transaction: stop
 * the ensemble (or take the directory of a server that is stopped) for a point-in-time copy. Unlike a live
 * session it tells containers and TTL nodes (with their TTL) from persistent ones, and needs no ACL.
 */
final class DataDirSource implements TreeSource {

    private final DataTree tree = new DataTree();
    private final String description;
    private final long lastZxid;

    /**
     * @param dataDir    ZooKeeper's dataDir (holding version-2/snapshot.*)
     * @param dataLogDir its dataLogDir when the logs are kept apart, else null
     */
    DataDirSource(File dataDir, File dataLogDir) throws IOException {
        File logs = dataLogDir == null ? dataDir : dataLogDir;
        for (File dir : new File[] {dataDir, logs}) {
            if (!new File(dir, "version-2").isDirectory()) {
                throw new CopyException(dir + " is not a ZooKeeper data directory: it has no version-2 directory");
            }
        }
        String[] snapshots = new File(dataDir, "version-2").list((d, name) -> name.startsWith("snapshot."));
        if (snapshots == null || snapshots.length == 0) {
            throw new CopyException(dataDir + "/version-2 holds no snapshot: nothing to read (a server writes one at its first start)");
        }
        FileTxnSnapLog files = new FileTxnSnapLog(logs, dataDir);
        try {
            lastZxid = files.restore(tree, new HashMap<>(), (hdr, rec, digest) -> { });
        } finally {
            files.close();
        }
        description = "ZooKeeper data directory " + dataDir + (dataLogDir == null ? "" : " (logs " + dataLogDir + ")")
                + String.format(" as of zxid 0x%x", lastZxid);
    }

    @Override
    public CompletableFuture<List<SourceNode>> read(List<String> paths) {
        List<SourceNode> nodes = new ArrayList<>(paths.size());
        for (String path : paths) {
            nodes.add(readOne(path));
        }
        return CompletableFuture.completedFuture(nodes);
    }

    private SourceNode readOne(String path) {
        DataNode node = tree.getNode(path);
        if (node == null) {
            return null;
        }
        long owner = node.stat.getEphemeralOwner();
        SourceNode.Kind kind;
        long ttl = 0;
        if (owner == 0) {
            kind = SourceNode.Kind.PERSISTENT;
        } else if (owner == EphemeralType.CONTAINER_EPHEMERAL_OWNER) {
            kind = SourceNode.Kind.CONTAINER;
        } else if (owner < 0) {
            // an extended type: ZooKeeper 3.9 has one, TTL, with the TTL in the low bits
            kind = SourceNode.Kind.TTL;
            ttl = EphemeralType.TTL.getValue(owner);
        } else {
            kind = SourceNode.Kind.EPHEMERAL;
        }
        List<String> children;
        synchronized (node) {
            children = new ArrayList<>(node.getChildren());
        }
        java.util.Collections.sort(children);
        return new SourceNode(path, node.getData(), tree.getACL(node), kind, ttl, node.stat.getCversion(), children);
    }

    @Override
    public boolean knowsNodeKinds() {
        return true;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
    }
}
