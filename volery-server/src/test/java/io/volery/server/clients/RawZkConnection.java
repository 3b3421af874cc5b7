package io.volery.server.clients;

import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * A client that speaks ZooKeeper's wire protocol byte by byte, so a test can send what no real
 * client would: broken frames, unknown operations, paths the client library would refuse.
 */
final class RawZkConnection implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    final long sessionId;

    /** Connects and completes the handshake for a new session. */
    RawZkConnection(InetSocketAddress server, int sessionTimeoutMillis) throws IOException {
        this(server, sessionTimeoutMillis, null);
    }

    /** @param local the local address to connect from (e.g. 127.0.0.2), or null for any */
    RawZkConnection(InetSocketAddress server, int sessionTimeoutMillis, java.net.InetAddress local) throws IOException {
        this(server, sessionTimeoutMillis, local, 0, new byte[16]);
    }

    /**
     * Connects to session {@code session} with its password (0 and any password: a new session).
     *
     * @throws IOException when the server refuses the session (its answer names session 0)
     */
    RawZkConnection(InetSocketAddress server, int sessionTimeoutMillis, java.net.InetAddress local, long session,
                    byte[] password) throws IOException {
        socket = new Socket();
        if (local != null) {
            socket.bind(new InetSocketAddress(local, 0));
        }
        socket.connect(server, 10_000);
        socket.setSoTimeout(15_000);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
        sendFrame(serialize(new ConnectRequest(0, 0, sessionTimeoutMillis, session, password, false)));
        ConnectResponse r = new ConnectResponse();
        r.deserialize(BinaryInputArchive.getArchive(new ByteArrayInputStream(readFrame())), "connect");
        if (r.getSessionId() == 0) {
            throw new IOException("the server refused " + (session == 0 ? "a new session" : "the session"));
        }
        sessionId = r.getSessionId();
        this.password = r.getPasswd();
    }

    /** The session's password, from the server's answer to the handshake. */
    private final byte[] password;

    byte[] password() {
        return password.clone();
    }

    /** Sends a request and reads its answer: the header, then {@code body} read from the rest (when not null). */
    ReplyHeader call(int xid, int op, Record request, Record body) throws IOException {
        sendFrame(request(xid, op, request));
        while (true) {
            BinaryInputArchive a = BinaryInputArchive.getArchive(new ByteArrayInputStream(readFrame()));
            ReplyHeader h = new ReplyHeader();
            h.deserialize(a, "header");
            if (h.getXid() == -1) {
                continue; // a watch event
            }
            if (h.getErr() == 0 && body != null) {
                body.deserialize(a, "body");
            }
            return h;
        }
    }

    static byte[] serialize(Record... records) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryOutputArchive a = BinaryOutputArchive.getArchive(bytes);
            for (Record r : records) {
                r.serialize(a, "r");
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request frame body: header, then the operation's record (if any). */
    static byte[] request(int xid, int op, Record body) {
        return body == null ? serialize(new RequestHeader(xid, op)) : serialize(new RequestHeader(xid, op), body);
    }

    void sendFrame(byte[] body) throws IOException {
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    /** Raw bytes, no length prefix added: for lying about lengths. */
    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    byte[] readFrame() throws IOException {
        int length = in.readInt();
        if (length < 0 || length > 16 << 20) {
            throw new IOException("server sent a frame of length " + length);
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }

    /** The next reply's header, skipping watch notifications; null once the server has closed. */
    ReplyHeader nextReply() throws IOException {
        while (true) {
            byte[] frame;
            try {
                frame = readFrame();
            } catch (EOFException | SocketException closed) {
                return null;
            } catch (SocketTimeoutException silent) {
                throw new IOException("the server neither answered nor closed within 15 s");
            }
            ReplyHeader h = new ReplyHeader();
            h.deserialize(BinaryInputArchive.getArchive(new ByteArrayInputStream(frame)), "header");
            if (h.getXid() != -1) {
                return h;
            }
        }
    }

    private volatile boolean closedByServer;

    /** For connections whose replies nobody reads: a daemon thread reads and drops them, noting a close. */
    void drainRepliesInBackground() {
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    readFrame();
                }
            } catch (IOException e) {
                closedByServer = true;
            }
        }, "raw-zk-drain");
        t.setDaemon(true);
        t.start();
    }

    boolean closedByServer() {
        return closedByServer;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
