package io.eyrie.multicast.internal.transport;

import java.util.ArrayList;
import java.util.List;

/**
 * Payloads that {@link FrameEncoder} frames into one buffer, so that a burst of small messages costs
 * one socket write entry instead of one each (Netty's per-write bookkeeping, not the bytes, is what
 * limits small-message throughput).
 */
public final class FrameBatch {

    private final List<OutboundPayload> payloads = new ArrayList<>();
    private long payloadBytes;

    public void add(byte[] payload) {
        add(OutboundPayload.of(payload));
    }

    void add(OutboundPayload payload) {
        payloads.add(payload);
        payloadBytes += payload.length();
    }

    List<OutboundPayload> payloads() {
        return payloads;
    }

    public int size() {
        return payloads.size();
    }

    /** Bytes on the wire: every payload with its header. */
    public long frameBytes() {
        return payloadBytes + (long) FrameFormat.HEADER_BYTES * payloads.size();
    }
}
