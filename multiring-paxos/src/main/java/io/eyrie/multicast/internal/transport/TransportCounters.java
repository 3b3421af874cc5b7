package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.Transport.TransportStats;

import java.util.concurrent.atomic.LongAdder;

/** The monotone counters behind {@link io.eyrie.multicast.Transport#stats()}; updated from any thread. */
public final class TransportCounters {

    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    // Not part of TransportStats: it shows whether flush coalescing works, for tests and tuning.
    private final LongAdder flushes = new LongAdder();
    private final java.util.concurrent.atomic.AtomicLong tlsFailures = new java.util.concurrent.atomic.AtomicLong();
    private final LongAdder tlsAbandoned = new LongAdder();

    void frameSent() {
        sent.increment();
    }

    void framesSent(long n) {
        sent.add(n);
    }

    void frameReceived() {
        received.increment();
    }

    void frameDropped() {
        dropped.increment();
    }

    void framesDropped(long n) {
        dropped.add(n);
    }

    void frameRejected() {
        rejected.increment();
    }

    void flushed() {
        flushes.increment();
    }

    /** Counts a failed TLS handshake with a peer; returns how many there were so far. */
    long tlsHandshakeFailed() {
        return tlsFailures.incrementAndGet();
    }

    /** TLS handshakes with peers that failed, in either direction (ADR 061). */
    public long tlsHandshakeFailures() {
        return tlsFailures.get();
    }

    /** Counts a TLS handshake with a peer that was abandoned (ADR 094): closed or silent before a verdict. */
    void tlsHandshakeAbandoned() {
        tlsAbandoned.increment();
    }

    /** TLS handshakes with peers abandoned before a verdict, in either direction (ADR 094); not failures. */
    public long tlsHandshakesAbandoned() {
        return tlsAbandoned.sum();
    }

    /** Socket flushes of outbound connections; far fewer than frames sent when coalescing works. */
    public long flushes() {
        return flushes.sum();
    }

    public TransportStats snapshot() {
        return new TransportStats(sent.sum(), received.sum(), dropped.sum(), rejected.sum());
    }
}
