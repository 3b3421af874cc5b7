package io.eyrie.transport.dpdk;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Puts fragmented messages back together; one per receiving thread, so not thread-safe.
 *
 * <p>Memory is bounded twice: a message above {@code maxFrameBytes} is refused from its first
 * fragment, and at most {@code maxPartial} messages are in progress, the oldest given up when a
 * new one starts. Partial messages older than the timeout are given up too: a lost fragment is
 * never resent at this layer (the protocol resends the whole message), so waiting longer is useless.
 */
final class Reassembler {

    private record Key(int from, long messageId) {
    }

    private static final class Partial {
        final byte[] frame;
        final BitSet received;
        final int count;
        final long startedNanos;

        Partial(int frameLength, int count, long now) {
            this.frame = new byte[frameLength];
            this.received = new BitSet(count);
            this.count = count;
            this.startedNanos = now;
        }
    }

    private final int maxFrameBytes;
    private final int maxPartial;
    private final long timeoutNanos;
    private final LinkedHashMap<Key, Partial> partial = new LinkedHashMap<>();
    /** Recently completed messages, so a late duplicate fragment does not start a doomed new one. */
    private final LinkedHashMap<Key, Boolean> completed = new LinkedHashMap<>();
    private static final int COMPLETED_REMEMBERED = 1024;
    private long abandoned;
    private long refused;

    Reassembler(int maxFrameBytes, int maxPartial, long timeoutNanos) {
        this.maxFrameBytes = maxFrameBytes;
        this.maxPartial = maxPartial;
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Takes the fragment whose bytes are {@code data} (position to limit). Returns the whole frame
     * once complete — for a single-fragment message a view of {@code data} itself, without a copy —
     * else null.
     */
    ByteBuffer accept(Fragment f, ByteBuffer data, long nowNanos) {
        if (f.frameLength() > maxFrameBytes || f.count() > Fragment.MAX_COUNT) {
            refused++;
            return null;
        }
        if (f.count() == 1) {
            if (data.remaining() != f.frameLength()) {
                refused++;
                return null;
            }
            return data;
        }
        expire(nowNanos);
        Key key = new Key(f.from(), f.messageId());
        Partial p = partial.get(key);
        if (p == null && completed.containsKey(key)) {
            return null;
        }
        if (p == null) {
            if (partial.size() >= maxPartial) {
                Iterator<Map.Entry<Key, Partial>> oldest = partial.entrySet().iterator();
                oldest.next();
                oldest.remove();
                abandoned++;
            }
            p = new Partial(f.frameLength(), f.count(), nowNanos);
            partial.put(key, p);
        } else if (p.frame.length != f.frameLength() || p.count != f.count()) {
            // Fragments that disagree on the message's shape: drop both rather than guess.
            partial.remove(key);
            refused++;
            abandoned++;
            return null;
        }
        if (p.received.get(f.index())) {
            return null; // a duplicate fragment
        }
        data.duplicate().get(p.frame, f.offset(), data.remaining());
        p.received.set(f.index());
        if (p.received.cardinality() == p.count) {
            partial.remove(key);
            completed.put(key, Boolean.TRUE);
            if (completed.size() > COMPLETED_REMEMBERED) {
                Iterator<Key> oldest = completed.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
            return ByteBuffer.wrap(p.frame);
        }
        return null;
    }

    private void expire(long now) {
        Iterator<Partial> it = partial.values().iterator();
        while (it.hasNext()) {
            Partial p = it.next();
            if (now - p.startedNanos < timeoutNanos) {
                return; // insertion order: the rest are younger
            }
            it.remove();
            abandoned++;
        }
    }

    /** Messages given up incomplete (evicted, timed out, inconsistent). */
    long abandoned() {
        return abandoned;
    }

    /** Fragments refused outright (message too large, sizes that do not add up). */
    long refused() {
        return refused;
    }

    int inProgress() {
        return partial.size();
    }
}
