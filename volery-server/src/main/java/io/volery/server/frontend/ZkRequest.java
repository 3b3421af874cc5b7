package io.volery.server.frontend;

import org.apache.jute.Record;

import java.util.List;

/**
 * One decoded client request: its header fields and its jute body ({@code null} for operations
 * without one, such as ping, closeSession and whoAmI). For multi and multiRead, {@code ops} holds
 * the operations in order and {@code body} is null. {@code frame} keeps the bytes it was decoded
 * from (null for the operations inside a multi), so they can be forwarded unchanged.
 */
public record ZkRequest(int xid, int opCode, Record body, List<ZkRequest> ops, byte[] frame) {
    public ZkRequest {
        ops = ops == null ? List.of() : List.copyOf(ops);
    }

    public ZkRequest withFrame(byte[] bytes) {
        return new ZkRequest(xid, opCode, body, ops, bytes);
    }

    public static ZkRequest of(int xid, int opCode, Record body) {
        return new ZkRequest(xid, opCode, body, List.of(), null);
    }

    @Override
    public String toString() {
        return "ZkRequest[xid=" + xid + " op=" + opCode + (ops.isEmpty() ? "" : " ops=" + ops.size()) + "]";
    }
}
