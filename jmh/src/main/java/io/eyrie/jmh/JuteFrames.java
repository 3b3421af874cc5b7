package io.eyrie.jmh;

import io.volery.server.frontend.OpCodes;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.proto.SetDataRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Request frames (header and body, without the length prefix) as the ZooKeeper Java client writes
 * them, serialised with the jute records themselves, so the benchmarks decode what a client sends.
 */
public final class JuteFrames {

    /** world:anyone with every permission (31), ZooKeeper's OPEN_ACL_UNSAFE. */
    private static final List<ACL> OPEN = List.of(new ACL(31, new Id("world", "anyone")));

    private JuteFrames() {
    }

    public static byte[] setData(int xid, String path, byte[] data) {
        return frame(xid, OpCodes.SET_DATA, new SetDataRequest(path, data, -1));
    }

    public static byte[] getData(int xid, String path) {
        return frame(xid, OpCodes.GET_DATA, new GetDataRequest(path, false));
    }

    public static byte[] create(int xid, String path, byte[] data) {
        // the client's create() with a Stat callback sends create2 with the open ACL, persistent
        return frame(xid, OpCodes.CREATE2, new CreateRequest(path, data, OPEN, 0));
    }

    public static byte[] delete(int xid, String path) {
        return frame(xid, OpCodes.DELETE, new DeleteRequest(path, -1));
    }

    private static byte[] frame(int xid, int op, Record body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 16);
            BinaryOutputArchive a = BinaryOutputArchive.getArchive(bytes);
            new RequestHeader(xid, op).serialize(a, "header");
            body.serialize(a, "request");
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A payload of {@code size} bytes that is not all zeros (no codec may shortcut it). */
    public static byte[] payload(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }
}
