package io.volery.server.frontend;

import org.apache.zookeeper.data.Id;

import java.net.InetSocketAddress;
import java.util.List;

/** A client's connection as the service sees it. Thread-safe. */
public interface ClientConnection {

    /** The session bound by the handshake, 0 before. */
    long sessionId();

    InetSocketAddress remoteAddress();

    /** The identities this connection authenticated as (ip always, plus digest/super from auth packets). */
    List<Id> authInfo();

    /**
     * The subject DN of the certificate the client presented over TLS (ADR 060), or null: not over TLS,
     * or no certificate.
     */
    default String x509Identity() {
        return null;
    }

    /** Whether the connection speaks TLS (ADR 060). */
    default boolean secure() {
        return false;
    }

    /** Queues a watch notification; it is written before any reply that completes after this call. */
    void notify(long zxid, int eventType, String path);

    /**
     * Runs {@code task} where the connection writes its replies (its event loop), after what was queued
     * for it so far, and then flushes what it wrote.
     */
    default void inOrder(Runnable task) {
        task.run();
    }

    /** Closes the connection (the session survives unless the service ends it). */
    void close(String reason);
}
