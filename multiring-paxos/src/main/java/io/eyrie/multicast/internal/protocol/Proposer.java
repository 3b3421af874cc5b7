package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.MulticastException;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The local proposer: numbers multicasts, keeps them until their ring reports them decided and
 * retransmits them meanwhile. Both the number pending and the spread of pending seqs are bounded:
 * the spread bounds the learners' dedup state (see {@link DedupTable}).
 */
final class Proposer {
    static final int MAX_PENDING = 256;
    static final int MAX_SEQ_SPREAD = 1024;
    /** Retransmission waits double up to 2^4 times the timeout. */
    static final int MAX_BACKOFF_DOUBLINGS = 4;

    private final int node;
    private final long incarnation;
    private final long retransmitMillis;
    private long nextSeq;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    /** No pending proposal is due before this (a lower bound): ticks before it need not look. */
    private long earliestDueMillis = Long.MAX_VALUE;

    private static final class Pending {
        final int ring;
        final int[] groups;
        final byte[] payload;
        long lastSentMillis;
        /** Retransmissions so far: each doubles the wait before the next. */
        int retransmissions;

        Pending(int ring, int[] groups, byte[] payload, long now) {
            this.ring = ring;
            this.groups = groups;
            this.payload = payload;
            this.lastSentMillis = now;
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
        return pending.size();
    }

    /** Registers a new multicast; throws MulticastException when too much is pending. */
    Message.Propose propose(int ring, int[] groups, byte[] payload, long now) {
        if (pending.size() >= MAX_PENDING) {
            throw new MulticastException("too many multicasts pending (" + pending.size()
                    + "): wait for some to be ordered");
        }
        if (!pending.isEmpty() && nextSeq - pending.firstKey() >= MAX_SEQ_SPREAD) {
            throw new MulticastException("multicast " + pending.firstKey() + " has been pending while "
                    + MAX_SEQ_SPREAD + " later ones were made: its ring is not ordering; retry later");
        }
        long seq = nextSeq++;
        pending.put(seq, new Pending(ring, groups.clone(), payload.clone(), now));
        earliestDueMillis = Math.min(earliestDueMillis, now + retransmitMillis);
        return message(seq, pending.get(seq));
    }

    private Message.Propose message(long seq, Pending p) {
        return new Message.Propose(p.ring, new Proposal(node, incarnation, seq, watermark(p.ring), p.groups, p.payload),
                false);
    }

    /** The lowest seq of {@code ring} still pending: everything of that ring below it is decided. */
    private long watermark(int ring) {
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            if (e.getValue().ring == ring) {
                return e.getKey();
            }
        }
        return nextSeq;
    }

    private long wait(Pending p) {
        return retransmitMillis << Math.min(p.retransmissions, MAX_BACKOFF_DOUBLINGS);
    }

    /** Marks seqs decided; returns those that were pending (each reported once). */
    long[] ordered(long inc, long[] seqs) {
        if (inc != incarnation) {
            return new long[0];
        }
        long[] done = new long[seqs.length];
        int n = 0;
        for (long s : seqs) {
            if (pending.remove(s) != null) {
                done[n++] = s;
            }
        }
        return n == done.length ? done : java.util.Arrays.copyOf(done, n);
    }

    /** When {@link #due} may next return something; Long.MAX_VALUE when nothing is pending. */
    long nextDueMillis() {
        return pending.isEmpty() ? Long.MAX_VALUE : earliestDueMillis;
    }

    /** Proposals due for retransmission (their timers restart). */
    List<Message.Propose> due(long now) {
        if (now < earliestDueMillis || pending.isEmpty()) {
            return List.of();
        }
        List<Message.Propose> out = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (Iterator<Map.Entry<Long, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Pending> e = it.next();
            Pending p = e.getValue();
            // Back off: under load a ring can take longer than one timeout to order what it holds,
            // and resending everything pending every timeout would bury it under duplicates.
            if (now - p.lastSentMillis >= wait(p)) {
                p.lastSentMillis = now;
                p.retransmissions++;
                out.add(message(e.getKey(), e.getValue()));
            }
            earliest = Math.min(earliest, p.lastSentMillis + wait(p));
        }
        earliestDueMillis = earliest;
        return out;
    }
}
