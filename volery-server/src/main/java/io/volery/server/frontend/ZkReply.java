package io.volery.server.frontend;

import org.apache.jute.Record;

import java.util.List;

/**
 * The answer to one request: ZooKeeper's reply header (xid, zxid, err) and, when err is 0, the
 * response record. A multi or multiRead answers with {@code results}, one per operation, even
 * when one failed (the header's err is then still 0, as in ZooKeeper).
 */
public record ZkReply(int xid, long zxid, int err, Record body, boolean multi, List<OpResult> results) {
    public ZkReply {
        results = results == null ? List.of() : List.copyOf(results);
    }

    public static ZkReply ok(int xid, long zxid, Record body) {
        return new ZkReply(xid, zxid, 0, body, false, List.of());
    }

    public static ZkReply error(int xid, long zxid, int err) {
        return new ZkReply(xid, zxid, err, null, false, List.of());
    }

    public static ZkReply multi(int xid, long zxid, List<OpResult> results) {
        return new ZkReply(xid, zxid, 0, null, true, results);
    }

    /** One operation's outcome in a multi: its opcode (or -1 for an error) and response. */
    public record OpResult(int opCode, int err, Record body) {
    }
}
