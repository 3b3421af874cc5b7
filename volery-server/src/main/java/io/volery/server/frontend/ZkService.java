package io.volery.server.frontend;

import org.apache.zookeeper.proto.ConnectRequest;

import java.util.concurrent.CompletableFuture;

/**
 * What the front end needs from the service behind it. The front end owns sockets, framing,
 * the handshake, pings, authentication and the order of replies; the service owns sessions and
 * the replicated state.
 */
public interface ZkService {

    /**
     * A connect handshake: a new session ({@code sessionId == 0}) or a reconnect. Completes with
     * the session granted, or with {@link ConnectOutcome#rejected()} when the session is unknown,
     * expired or the password is wrong (the client then sees its session as expired).
     */
    CompletableFuture<ConnectOutcome> connect(ConnectRequest request, ClientConnection connection);

    /**
     * Executes one request of the connection's session. Requests of one session are executed in
     * submission order (ZooKeeper's FIFO promise); replies may complete in any order, the front end
     * writes them in submission order. Events the request triggers for sessions of this front end
     * must be handed to their connections before the future completes.
     */
    CompletableFuture<ZkReply> submit(ClientConnection connection, ZkRequest request);

    /**
     * The reply of a request {@link #submit submitted} on {@code connection}, at {@code zxid}, is to be
     * written now by {@code write} (on the connection's event loop, in submission order). The service
     * runs {@code write} once, after notifying the connection of the watch events that must come
     * before the reply.
     */
    void writeReply(ClientConnection connection, long zxid, Runnable write);

    /** A ping: keeps the session alive; returns the zxid to put in the ping's reply. */
    long ping(ClientConnection connection);

    /** The connection closed (the session lives on until it expires or is closed). */
    void disconnected(ClientConnection connection);

    /** The handshake's result. */
    record ConnectOutcome(boolean accepted, long sessionId, int timeoutMillis, byte[] passwd) {
        public static ConnectOutcome rejected() {
            return new ConnectOutcome(false, 0, 0, new byte[16]);
        }
    }

    /** ZooKeeper's audit log of this server's clients' changes (ADR 071), or null when auditing is off. */
    default io.volery.server.audit.AuditLog audit() {
        return null;
    }
}
