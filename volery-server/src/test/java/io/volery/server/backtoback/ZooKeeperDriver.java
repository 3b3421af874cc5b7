package io.volery.server.backtoback;

/**
 * Something that answers ZooKeeper operations for one client session: a real ZooKeeper through its
 * Java client, a {@link io.volery.server.tree.ZnodeTree} directly, or (later) a Volery server.
 */
public interface ZooKeeperDriver extends AutoCloseable {

    /** A short name for failure messages. */
    String name();

    Outcome execute(DriverOp op) throws Exception;

    @Override
    void close() throws Exception;
}
