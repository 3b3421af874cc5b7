package io.volery.copy;

import java.util.List;
import org.apache.zookeeper.data.ACL;

/**
 * One znode as a source shows it.
 *
 * @param data     null when the node holds null data (ZooKeeper keeps null apart from empty)
 * @param ttl      the TTL in ms of a {@link Kind#TTL} node, else 0
 * @param cversion the client-visible child version; the next sequential child of a ZooKeeper server
 *                 restarted now would get this number, so the copy's counter must not stay below it
 * @param children the child names
 */
record SourceNode(String path, byte[] data, List<ACL> acl, Kind kind, long ttl, int cversion, List<String> children) {

    /**
     * What kind of node: a live ZooKeeper session shows containers and TTL nodes as persistent (ZooKeeper's
     * stat has no field for them); a data directory tells them apart.
     */
    enum Kind { PERSISTENT, CONTAINER, TTL, EPHEMERAL }
}
