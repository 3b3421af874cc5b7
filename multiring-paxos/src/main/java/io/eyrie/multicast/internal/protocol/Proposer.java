package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.MulticastException;

import java.util.ArrayList;
import java.util.List;

/**
 * The local proposer: numbers multicasts, keeps them until their ring reports them decided and
 * retransmits them meanwhile. The number pending per ring, the number pending in all and the spread
 * of pending seqs are bounded: the spread bounds the learners' dedup state (see {@link DedupTable}).
 * The bound is per ring so that a node proposing to several rings (a client of several partitions)
 * gives each the pipeline one ring gets alone: a coordinator batches what it holds behind its
 * undecided instances, and a quarter of the proposals in each of four rings made batches a quarter
 * the size and every command pay four times the per-instance messages and wake-ups.
 *
 * <p>Retransmission has two triggers. A timer, whose wait is the configured timeout or four times the
 * recent time to order a proposal, whichever is longer (then doubling per retransmission): under
 * overload a coordinator holds proposals queued for seconds, and resending all of them every timeout
 * spends the coordinator's CPU on duplicates and fills the links until they drop frames. And a gap: a
 * ring reports a proposal ordered that was sent after one of the same ring still pending, so, since a
 * coordinator queues and batches one proposer's proposals in arrival order, the earlier one was most
 * likely lost on the way; it is sent again at once rather than after the timer.
 */
final class Proposer {
    /** Most proposals pending for one ring. */
    static final int MAX_PENDING_PER_RING = 256;
    /** Most proposals pending in all. */
    static final int MAX_PENDING = 4 * MAX_PENDING_PER_RING;
    static final int MAX_SEQ_SPREAD = 2 * MAX_PENDING;
    /** Retransmission waits double up to 2^4 times the timeout. */
    static final int MAX_BACKOFF_DOUBLINGS = 4;

    private final int node;
    private final long incarnation;
    private final long retransmitMillis;
    private long nextSeq;
    /**
     * Pending proposals by seq: seq s at {@code pending[s % MAX_SEQ_SPREAD]}. Pending seqs lie in
     * [lowestPending, nextSeq), which {@link #propose} keeps shorter than the array.
     */
    private final Pending[] pending = new Pending[MAX_SEQ_SPREAD];
    private int pendingCount;
    /** Per ring: its pending seqs in ascending order (ordered ones leave lazily, see {@link #watermark}). */
    private final java.util.Map<Integer, RingPending> byRing = new java.util.HashMap<>();
    /** No seq below it is pending (equal to nextSeq when nothing is). */
    private long lowestPending;
    /** No pending proposal is due before this (a lower bound): ticks before it need not look. */
    private long earliestDueMillis = Long.MAX_VALUE;
    /** Numbers every transmission, first or again, in sending order. */
    private long transmissions;
    /** Moving average of the time from a proposal's first send to its Ordered notice (ms). */
    private double orderMillis;
    /** Proposals a gap showed lost, to send again now (see {@link #takeGapResends}). */
    private final List<Message.Propose> gapResends = new ArrayList<>();
    private long gapResendCount;

    private static final class Pending {
        final int ring;
        final int[] groups;
        final byte[] payload;
        final long firstSentMillis;
        long lastSentMillis;
        /** The transmission number of its latest send. */
        long sent;
        /** Retransmissions so far: each doubles the wait before the next. */
        int retransmissions;

        Pending(int ring, int[] groups, byte[] payload, long now) {
            this.ring = ring;
            this.groups = groups;
            this.payload = payload;
            this.firstSentMillis = now;
            this.lastSentMillis = now;
        }
    }

    /** A ring's pending seqs: a circular queue, ascending; {@code count} of them still pending. */
    private static final class RingPending {
        long[] seqs = new long[16];
        int head;
        int size;
        int count;

        void add(long seq) {
            if (size == seqs.length) {
                long[] bigger = new long[seqs.length * 2];
                for (int i = 0; i < size; i++) {
                    bigger[i] = seqs[(head + i) % seqs.length];
                }
                seqs = bigger;
                head = 0;
            }
            seqs[(head + size++) % seqs.length] = seq;
            count++;
        }
    }

    Proposer(int node, long incarnation, long retransmitMillis) {
        this.node = node;
        this.incarnation = incarnation;
        this.retransmitMillis = retransmitMillis;
    }

    long incarnation() {
        return incarnation;
    }

    int pendingCount() {
        return pendingCount;
    }

    private Pending get(long seq) {
        return seq >= lowestPending && seq < nextSeq ? pending[(int) (seq % MAX_SEQ_SPREAD)] : null;
    }

    /** Registers a new multicast; throws MulticastException when too much is pending. */
    Message.Propose propose(int ring, int[] groups, byte[] payload, long now) {
        RingPending rp = byRing.computeIfAbsent(ring, r -> new RingPending());
        if (rp.count >= MAX_PENDING_PER_RING || pendingCount >= MAX_PENDING) {
            throw new MulticastException("too many multicasts pending (" + rp.count + " for ring " + ring + ", "
                    + pendingCount + " in all): wait for some to be ordered");
        }
        if (pendingCount > 0 && nextSeq - lowestPending >= MAX_SEQ_SPREAD) {
            throw new MulticastException("multicast " + lowestPending + " has been pending while "
                    + MAX_SEQ_SPREAD + " later ones were made: its ring is not ordering; retry later");
        }
        if (pendingCount == 0) {
            lowestPending = nextSeq;
        }
        long seq = nextSeq++;
        Pending p = new Pending(ring, groups.clone(), payload.clone(), now);
        p.sent = ++transmissions;
        pending[(int) (seq % MAX_SEQ_SPREAD)] = p;
        pendingCount++;
        rp.add(seq);
        earliestDueMillis = Math.min(earliestDueMillis, now + retransmitMillis);
        return message(seq, p);
    }

    private Message.Propose message(long seq, Pending p) {
        return new Message.Propose(p.ring, new Proposal(node, incarnation, seq, watermark(p.ring), p.groups, p.payload),
                false);
    }

    /** The lowest seq of {@code ring} still pending: everything of that ring below it is decided. */
    private long watermark(int ring) {
        RingPending rp = byRing.get(ring);
        if (rp == null) {
            return nextSeq;
        }
        while (rp.size > 0) {
            long s = rp.seqs[rp.head];
            Pending p = get(s);
            if (p != null && p.ring == ring) {
                return s;
            }
            rp.head = (rp.head + 1) % rp.seqs.length;
            rp.size--;
        }
        return nextSeq;
    }

    private long wait(Pending p) {
        long base = Math.max(retransmitMillis, (long) (4 * orderMillis));
        return base << Math.min(p.retransmissions, MAX_BACKOFF_DOUBLINGS);
    }

    /** The recent time to order a proposal (a moving average, ms), which stretches the retransmission timer. */
    double orderMillis() {
        return orderMillis;
    }

    /** Proposals sent again because a later one of their ring was ordered first, since the start. */
    long gapResendCount() {
        return gapResendCount;
    }

    /** Marks seqs decided; returns those that were pending (each reported once). */
    long[] ordered(long inc, long[] seqs, long now) {
        if (inc != incarnation) {
            return new long[0];
        }
        long[] done = new long[seqs.length];
        int n = 0;
        int ring = -1;
        long latestSent = 0;
        long highestSeq = -1;
        for (long s : seqs) {
            Pending p = get(s);
            if (p != null) {
                pending[(int) (s % MAX_SEQ_SPREAD)] = null;
                pendingCount--;
                byRing.get(p.ring).count--;
                done[n++] = s;
                if (p.retransmissions == 0) {
                    // a first send's time to order (a retransmitted one's includes the timer's wait)
                    orderMillis += (Math.max(0, now - p.firstSentMillis) - orderMillis) / 16;
                }
                if (p.sent > latestSent) {
                    latestSent = p.sent;
                    ring = p.ring;
                }
                highestSeq = Math.max(highestSeq, s);
            }
        }
        while (lowestPending < nextSeq && pending[(int) (lowestPending % MAX_SEQ_SPREAD)] == null) {
            lowestPending++;
        }
        if (ring >= 0) {
            resendGaps(ring, latestSent, highestSeq, now);
        }
        return n == done.length ? done : java.util.Arrays.copyOf(done, n);
    }

    /**
     * Pending proposals of {@code ring} sent before transmission {@code ordered}, which the ring has
     * ordered. Only seqs below {@code highestSeq} can qualify: first sends go out in seq order and
     * every later send has a higher number, so a higher seq was always sent after {@code ordered}.
     */
    private void resendGaps(int ring, long ordered, long highestSeq, long now) {
        for (long seq = lowestPending; seq < highestSeq; seq++) {
            Pending p = pending[(int) (seq % MAX_SEQ_SPREAD)];
            if (p != null && p.ring == ring && p.sent < ordered) {
                p.sent = ++transmissions;
                p.lastSentMillis = now;
                gapResendCount++;
                gapResends.add(message(seq, p));
            }
        }
    }

    /** The proposals {@link #ordered} found lost, to send now (each returned once). */
    List<Message.Propose> takeGapResends() {
        if (gapResends.isEmpty()) {
            return List.of();
        }
        List<Message.Propose> out = new ArrayList<>(gapResends);
        gapResends.clear();
        return out;
    }

    /** When {@link #due} may next return something; Long.MAX_VALUE when nothing is pending. */
    long nextDueMillis() {
        return pendingCount == 0 ? Long.MAX_VALUE : earliestDueMillis;
    }

    /** Proposals due for retransmission (their timers restart). */
    List<Message.Propose> due(long now) {
        if (now < earliestDueMillis || pendingCount == 0) {
            return List.of();
        }
        List<Message.Propose> out = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (long seq = lowestPending; seq < nextSeq; seq++) {
            Pending p = pending[(int) (seq % MAX_SEQ_SPREAD)];
            if (p == null) {
                continue;
            }
            // Back off: under load a ring can take longer than one timeout to order what it holds,
            // and resending everything pending every timeout would bury it under duplicates.
            if (now - p.lastSentMillis >= wait(p)) {
                p.lastSentMillis = now;
                p.sent = ++transmissions;
                p.retransmissions++;
                out.add(message(seq, p));
            }
            earliest = Math.min(earliest, p.lastSentMillis + wait(p));
        }
        earliestDueMillis = earliest;
        return out;
    }
}
