package io.volery.copy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * A running server (ZooKeeper or Volery) read through the ZooKeeper client: data with its stat, ACL and
 * children of each node. Not a point-in-time image: writes that land during the copy may or may not be in
 * it (the verify pass reports what differs at its end).
 */
final class LiveSource implements TreeSource {

    private final AsyncSession session;

    LiveSource(AsyncSession session) {
        this.session = session;
    }

    @Override
    public CompletableFuture<List<SourceNode>> read(List<String> paths) {
        List<CompletableFuture<SourceNode>> nodes = new ArrayList<>(paths.size());
        for (String path : paths) {
            nodes.add(readOne(path));
        }
        return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new))
                .thenApply(x -> nodes.stream().map(CompletableFuture::join).toList());
    }

    private CompletableFuture<SourceNode> readOne(String path) {
        var data = session.getData(path);
        var acl = session.getAcl(path);
        var children = session.getChildren(path);
        return CompletableFuture.allOf(data, acl, children).thenApply(x -> {
            var d = data.join();
            var a = acl.join();
            var c = children.join();
            if (d.code() == Code.NONODE || a.code() == Code.NONODE || c.code() == Code.NONODE) {
                return null;
            }
            for (var o : List.of(d, a, c)) {
                if (!o.ok()) {
                    throw new CopyException("cannot read " + path + " at the source: " + AsyncSession.describe(o.code(), path)
                            + (o.code() == Code.NOAUTH ? " (give --from-auth with an identity that may read it, or copy from the data directory)" : ""));
                }
            }
            byte[] bytes = (byte[]) d.value()[0];
            Stat stat = (Stat) d.value()[1];
            List<ACL> acls = a.value();
            for (ACL entry : acls) {
                if (TreeCopier.redacted(entry)) {
                    throw new CopyException("the source hides the ACL of " + path + " (ZooKeeper shows a digest id as "
                            + entry.getId().getId() + " to a reader without ADMIN there): give --from-auth with the super"
                            + " digest, or copy from --from-datadir");
                }
            }
            SourceNode.Kind kind = stat.getEphemeralOwner() != 0 ? SourceNode.Kind.EPHEMERAL : SourceNode.Kind.PERSISTENT;
            return new SourceNode(path, bytes, acls, kind, 0, stat.getCversion(), c.value());
        });
    }

    @Override
    public boolean knowsNodeKinds() {
        return false;
    }

    @Override
    public String describe() {
        return session.connectString();
    }

    @Override
    public void close() {
        session.close();
    }
}
