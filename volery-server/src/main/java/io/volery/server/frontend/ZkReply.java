package io.volery.server.frontend;

import org.apache.jute.Record;

import java.util.List;

/**
 * The answer to one request: ZooKeeper's reply header (xid, zxid, err) and, when err is 0, the
 * response record. A multi or multiRead answers with {@code results}, one per operation, even
 * when one failed (the header's err is then still 0, as in ZooKeeper).
 */
public record ZkReply(int xid, long zxid, int err, Record body, boolean multi, List<OpResult> results, byte[] encoded) {
    public ZkReply {
        results = results == null ? List.of() : List.copyOf(results);
    }

    /**
     * A reply already encoded elsewhere (by a replica, with xid 0 and its err in the header): only the
     * xid is rewritten on the way out.
     */
    public static ZkReply encoded(int xid, byte[] encoded) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(encoded);
        return new ZkReply(xid, b.getLong(4), b.getInt(12), null, false, List.of(), encoded);
    }

    public static ZkReply ok(int xid, long zxid, Record body) {
        return new ZkReply(xid, zxid, 0, body, false, List.of(), null);
    }

    public static ZkReply error(int xid, long zxid, int err) {
        return new ZkReply(xid, zxid, err, null, false, List.of(), null);
    }

    public static ZkReply multi(int xid, long zxid, List<OpResult> results) {
        return new ZkReply(xid, zxid, 0, null, true, results, null);
    }

    /** One operation's outcome in a multi: its opcode (or -1 for an error) and response. */
    public record OpResult(int opCode, int err, Record body) {
    }
}
