package io.volery.server.backtoback;

import java.util.List;

/**
 * Something that answers ZooKeeper operations for a fixed number of client sessions: a real
 * ZooKeeper through its Java client, a {@link io.volery.server.tree.ZnodeTree} directly, or (later)
 * a Volery server. Sessions are numbered 0..n-1; every session uses its default watcher.
 */
public interface ZooKeeperDriver extends AutoCloseable {

    /** A short name for failure messages. */
    String name();

    Outcome execute(int session, DriverOp op) throws Exception;

    /**
     * The watch events the session has received since the last call, as "EventType path", in arrival
     * order. A driver must make sure every event caused by an operation already answered is included.
     */
    List<String> takeEvents(int session) throws Exception;

    /** {@link #takeEvents} of sessions 0..n-1; drivers may ask them all at once. */
    default List<List<String>> takeAllEvents(int sessions) throws Exception {
        List<List<String>> out = new java.util.ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            out.add(takeEvents(s));
        }
        return out;
    }

    /** Closes every session the driver opened. */
    @Override
    void close();
}
