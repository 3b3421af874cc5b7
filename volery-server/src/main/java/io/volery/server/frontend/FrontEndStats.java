package io.volery.server.frontend;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Counters of one front end, read by the four-letter words and the metrics endpoint. */
public final class FrontEndStats {
    private final AtomicLong connectionsOpen = new AtomicLong();
    private final AtomicLong connectionsTotal = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong notifications = new AtomicLong();
    private final AtomicLong tlsHandshakeFailures = new AtomicLong();
    private final AtomicLong tlsHandshakesAbandoned = new AtomicLong();
    private final AtomicLongArray requestsByOp = new AtomicLongArray(256);

    void connectionOpened() {
        connectionsOpen.incrementAndGet();
        connectionsTotal.incrementAndGet();
    }

    void connectionClosed() {
        connectionsOpen.decrementAndGet();
    }

    void bytesReceived(long n) {
        bytesReceived.addAndGet(n);
    }

    void bytesSent(long n) {
        bytesSent.addAndGet(n);
    }

    void malformed() {
        malformed.incrementAndGet();
    }

    void tlsHandshakeFailed() {
        tlsHandshakeFailures.incrementAndGet();
    }

    /** TLS handshakes that failed (no certificate where one is needed, an untrusted one, no common protocol). */
    public long tlsHandshakeFailures() {
        return tlsHandshakeFailures.get();
    }

    void tlsHandshakeAbandoned() {
        tlsHandshakesAbandoned.incrementAndGet();
    }

    /**
     * TLS handshakes abandoned before a verdict (ADR 094): the client closed the connection (a TCP health check,
     * a port scan, a client giving up) or sent nothing until the handshake timed out. Not in the failures.
     */
    public long tlsHandshakesAbandoned() {
        return tlsHandshakesAbandoned.get();
    }

    void notification() {
        notifications.incrementAndGet();
    }

    void request(int op) {
        requestsByOp.incrementAndGet(op & 0xff);
    }

    public long connectionsOpen() {
        return connectionsOpen.get();
    }

    public long connectionsTotal() {
        return connectionsTotal.get();
    }

    public long bytesReceived() {
        return bytesReceived.get();
    }

    public long bytesSent() {
        return bytesSent.get();
    }

    public long malformedFrames() {
        return malformed.get();
    }

    public long notificationsSent() {
        return notifications.get();
    }

    public long requests(int op) {
        return requestsByOp.get(op & 0xff);
    }

    public long requestsTotal() {
        long t = 0;
        for (int i = 0; i < requestsByOp.length(); i++) {
            t += requestsByOp.get(i);
        }
        return t;
    }
}
