package io.eyrie.multicast.internal.transport;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Payloads waiting for one event loop to write them: many producers, one consumer, bounded in bytes
 * (each entry also costs a fixed overhead, so a flood of empty messages is bounded too). A payload
 * larger than the whole limit is still accepted into an empty queue, so it is never unsendable.
 */
final class OutboundQueue {

    /** A rough per-entry cost of the queue node and buffer object. */
    static final int ENTRY_OVERHEAD_BYTES = 64;

    private final Queue<OutboundPayload> items = new ConcurrentLinkedQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final long limitBytes;

    OutboundQueue(long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** Adds {@code payload}, which nobody may modify any more, or returns false when the queue is full. */
    boolean offer(OutboundPayload payload) {
        long cost = cost(payload);
        long after = queuedBytes.addAndGet(cost);
        if (after > limitBytes && after != cost) {
            queuedBytes.addAndGet(-cost);
            return false;
        }
        items.add(payload);
        return true;
    }

    /** The oldest payload, or null. */
    OutboundPayload poll() {
        OutboundPayload payload = items.poll();
        if (payload != null) {
            queuedBytes.addAndGet(-cost(payload));
        }
        return payload;
    }

    /** Discards everything queued and returns how many payloads that was. */
    int clear() {
        int n = 0;
        while (poll() != null) {
            n++;
        }
        return n;
    }

    long queuedBytes() {
        return queuedBytes.get();
    }

    private static long cost(OutboundPayload payload) {
        return payload.length() + ENTRY_OVERHEAD_BYTES;
    }
}
