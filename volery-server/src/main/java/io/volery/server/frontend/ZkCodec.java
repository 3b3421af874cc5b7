package io.volery.server.frontend;

import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetAllChildrenNumberRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetEphemeralsRequest;
import org.apache.zookeeper.proto.GetSASLRequest;
import org.apache.zookeeper.proto.MultiHeader;
import org.apache.zookeeper.proto.ReconfigRequest;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetWatches;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.SyncRequest;
import org.apache.zookeeper.proto.WatcherEvent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * ZooKeeper's wire format with the official jute record classes: decoding requests into
 * {@link ZkRequest}, encoding replies, notifications and the connect handshake. Pure functions
 * over byte arrays; no sessions, no sockets.
 */
public final class ZkCodec {

    private ZkCodec() {
    }

    /** A frame the server cannot understand; ZooKeeper closes the connection on these. */
    public static class MalformedRequestException extends IOException {
        public MalformedRequestException(String message) {
            super(message);
        }
    }

    /**
     * A request whose header was read but whose body was not. ZooKeeper answers these with
     * MarshallingError under the request's xid and keeps the connection.
     */
    public static final class MalformedBodyException extends MalformedRequestException {
        private final int xid;
        private final int opCode;

        public MalformedBodyException(int xid, int opCode, String message) {
            super(message);
            this.xid = xid;
            this.opCode = opCode;
        }

        public int xid() {
            return xid;
        }

        public int opCode() {
            return opCode;
        }
    }

    /** The decoded handshake; {@code readOnly} is absent from old clients' frames. */
    public static ConnectRequest decodeConnect(byte[] frame) throws MalformedRequestException {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(frame));
            BinaryInputArchive a = BinaryInputArchive.getArchive(in);
            ConnectRequest r = new ConnectRequest();
            r.setProtocolVersion(a.readInt("protocolVersion"));
            r.setLastZxidSeen(a.readLong("lastZxidSeen"));
            r.setTimeOut(a.readInt("timeOut"));
            r.setSessionId(a.readLong("sessionId"));
            r.setPasswd(a.readBuffer("passwd"));
            r.setReadOnly(in.available() > 0 && a.readBool("readOnly"));
            return r;
        } catch (IOException | RuntimeException e) {
            throw new MalformedRequestException("malformed connect request: " + e);
        }
    }

    public static byte[] encodeConnectResponse(ConnectResponse r) {
        return write(a -> r.serialize(a, "connect"));
    }

    /** A request frame (header and body, without the length prefix), as a client would send it. */
    public static byte[] encodeRequest(int xid, int opCode, Record body) {
        return write(a -> {
            new RequestHeader(xid, opCode).serialize(a, "header");
            if (body != null) {
                body.serialize(a, "request");
            }
        });
    }

    /**
     * Decodes one request frame.
     *
     * @throws MalformedRequestException when the header or a known body cannot be read
     */
    public static ZkRequest decodeRequest(byte[] frame) throws MalformedRequestException {
        return decodeRequestBody(frame).withFrame(frame);
    }

    private static ZkRequest decodeRequestBody(byte[] frame) throws MalformedRequestException {
        BinaryInputArchive a = new BinaryInputArchive(new ByteArrayDataInput(frame));
        RequestHeader h = new RequestHeader();
        try {
            h.deserialize(a, "header");
        } catch (IOException | RuntimeException e) {
            throw new MalformedRequestException("malformed request header: " + e);
        }
        int op = h.getType();
        try {
            if (op == OpCodes.MULTI || op == OpCodes.MULTI_READ) {
                return new ZkRequest(h.getXid(), op, null, decodeMulti(a, op), null);
            }
            Supplier<Record> body = bodyOf(op);
            if (body == null) {
                return ZkRequest.of(h.getXid(), op, null);
            }
            Record r = body.get();
            r.deserialize(a, "request");
            return ZkRequest.of(h.getXid(), op, r);
        } catch (IOException | RuntimeException e) {
            throw new MalformedBodyException(h.getXid(), op, "malformed body of operation " + op + ": " + e.getMessage());
        }
    }

    /** The record type of each operation's body; null for bodiless and unknown operations. */
    static Supplier<Record> bodyOf(int op) {
        return switch (op) {
            case OpCodes.CREATE, OpCodes.CREATE2, OpCodes.CREATE_CONTAINER -> CreateRequest::new;
            case OpCodes.CREATE_TTL -> CreateTTLRequest::new;
            case OpCodes.DELETE, OpCodes.DELETE_CONTAINER -> DeleteRequest::new;
            case OpCodes.EXISTS -> ExistsRequest::new;
            case OpCodes.GET_DATA -> GetDataRequest::new;
            case OpCodes.SET_DATA -> SetDataRequest::new;
            case OpCodes.GET_ACL -> GetACLRequest::new;
            case OpCodes.SET_ACL -> SetACLRequest::new;
            case OpCodes.GET_CHILDREN -> GetChildrenRequest::new;
            case OpCodes.GET_CHILDREN2 -> GetChildren2Request::new;
            case OpCodes.SYNC -> SyncRequest::new;
            case OpCodes.CHECK -> CheckVersionRequest::new;
            case OpCodes.RECONFIG -> ReconfigRequest::new;
            case OpCodes.CHECK_WATCHES -> CheckWatchesRequest::new;
            case OpCodes.REMOVE_WATCHES -> RemoveWatchesRequest::new;
            case OpCodes.AUTH -> AuthPacket::new;
            case OpCodes.SET_WATCHES -> SetWatches::new;
            case OpCodes.SET_WATCHES2 -> SetWatches2::new;
            case OpCodes.SASL -> GetSASLRequest::new;
            case OpCodes.GET_EPHEMERALS -> GetEphemeralsRequest::new;
            case OpCodes.GET_ALL_CHILDREN_NUMBER -> GetAllChildrenNumberRequest::new;
            case OpCodes.ADD_WATCH -> AddWatchRequest::new;
            default -> null;
        };
    }

    private static List<ZkRequest> decodeMulti(BinaryInputArchive a, int multiOp) throws IOException {
        List<ZkRequest> ops = new ArrayList<>();
        MultiHeader mh = new MultiHeader();
        mh.deserialize(a, "multiheader");
        while (!mh.getDone()) {
            int t = mh.getType();
            boolean allowed = multiOp == OpCodes.MULTI
                    ? t == OpCodes.CREATE || t == OpCodes.CREATE2 || t == OpCodes.CREATE_CONTAINER
                      || t == OpCodes.CREATE_TTL || t == OpCodes.DELETE || t == OpCodes.SET_DATA || t == OpCodes.CHECK
                    : t == OpCodes.GET_CHILDREN || t == OpCodes.GET_DATA;
            if (!allowed) {
                throw new MalformedRequestException("operation " + t + " not allowed in "
                        + (multiOp == OpCodes.MULTI ? "multi" : "multiRead"));
            }
            Record r = bodyOf(t).get();
            r.deserialize(a, "op");
            ops.add(ZkRequest.of(0, t, r));
            if (ops.size() > 100_000) {
                throw new MalformedRequestException("multi with too many operations");
            }
            mh.deserialize(a, "multiheader");
        }
        return ops;
    }

    /** A reply frame body (without the length prefix). */
    public static byte[] encodeReply(ZkReply r) {
        if (r.encoded() != null) {
            return withXid(r.encoded(), r.xid());
        }
        return write(a -> {
            new ReplyHeader(r.xid(), r.zxid(), r.err()).serialize(a, "header");
            if (r.multi() && r.err() == 0) {
                for (ZkReply.OpResult op : r.results()) {
                    new MultiHeader(op.opCode(), false, op.err()).serialize(a, "multiheader");
                    if (op.opCode() == OpCodes.ERROR) {
                        new ErrorResponse(op.err()).serialize(a, "error");
                    } else if (op.body() != null) {
                        op.body().serialize(a, "op");
                    }
                }
                new MultiHeader(-1, true, -1).serialize(a, "multiheader");
            } else if (r.body() != null) {
                r.body().serialize(a, "response");
            }
        });
    }

    /** One operation's part of a multi reply: its multi header and response (or error). */
    public static byte[] encodeMultiFragment(ZkReply.OpResult op) {
        return write(a -> {
            new MultiHeader(op.opCode(), false, op.err()).serialize(a, "multiheader");
            if (op.opCode() == OpCodes.ERROR) {
                new ErrorResponse(op.err()).serialize(a, "error");
            } else if (op.body() != null) {
                op.body().serialize(a, "op");
            }
        });
    }

    /** A multi reply assembled from per-operation fragments, in operation order. */
    public static byte[] encodeMultiReply(int xid, long zxid, java.util.List<byte[]> fragments) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.writeBytes(write(a -> new ReplyHeader(xid, zxid, 0).serialize(a, "header")));
        for (byte[] f : fragments) {
            out.writeBytes(f);
        }
        out.writeBytes(write(a -> new MultiHeader(-1, true, -1).serialize(a, "multiheader")));
        return out.toByteArray();
    }

    /** Rewrites the xid of an encoded reply (replicas answer with xid 0; the front end knows the real one). */
    public static byte[] withXid(byte[] reply, int xid) {
        byte[] copy = reply.clone();
        java.nio.ByteBuffer.wrap(copy).putInt(0, xid);
        return copy;
    }

    /** A watch notification: xid -1, the triggering zxid (as ZooKeeper 3.9 does), the event. */
    public static byte[] encodeNotification(long zxid, int eventType, int state, String path) {
        return write(a -> {
            new ReplyHeader(OpCodes.XID_NOTIFICATION, zxid, 0).serialize(a, "header");
            new WatcherEvent(eventType, state, path).serialize(a, "event");
        });
    }

    interface ArchiveWriter {
        void write(BinaryOutputArchive a) throws IOException;
    }

    /**
     * Encodes with a per-thread archive over a reused buffer: a jute archive allocates a 1 KiB
     * scratch buffer when made, which was most of the garbage of every reply. A buffer grown past
     * {@link #KEPT_BUFFER_BYTES_MAX} (a large getData) is not kept; a write inside a write gets its own.
     */
    static byte[] write(ArchiveWriter w) {
        Encoder[] slot = ENCODER.get();
        Encoder e = slot[0];
        slot[0] = null;
        if (e == null) {
            e = new Encoder();
        }
        try {
            e.bytes.reset();
            w.write(e.archive);
            return e.bytes.toByteArray();
        } catch (IOException ex) {
            throw new IllegalStateException("in-memory serialization cannot fail", ex);
        } finally {
            if (e.bytes.capacity() <= KEPT_BUFFER_BYTES_MAX) {
                slot[0] = e;
            }
        }
    }

    private static final int KEPT_BUFFER_BYTES_MAX = 64 * 1024;
    private static final ThreadLocal<Encoder[]> ENCODER = ThreadLocal.withInitial(() -> new Encoder[1]);

    private static final class Encoder {
        final GrowableDataOutput bytes = new GrowableDataOutput(512);
        final BinaryOutputArchive archive = new BinaryOutputArchive(bytes);
    }
}
