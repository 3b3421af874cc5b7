package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.Position;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The learner side: buffers each subscribed ring's decided instances and merges the rings
 * deterministically. Each ring's stream is a sequence of slots (a batch takes one, a skip of k
 * takes k); round r takes slots [r*M, r*M+M) of every subscribed ring in ring-id order.
 *
 * <p>Its whole state (cursor, per-ring progress, dedup table) is the learner checkpoint.
 */
final class Merger {
    /** How far ahead of a ring's next instance decided values are buffered. */
    static final int WINDOW = 1024;
    private static final int CHECKPOINT_MAGIC = 0x4d524c31; // "MRL1"

    /** Bound on the buffered values one skip request accounts for. */
    static final int MAX_SKIP_LOOKAHEAD_VALUES = 65_536;

    static final class RingStream {
        final int ringId;
        long nextInstance;
        /** Slots still to pass of a skip whose first slot was consumed. */
        long pendingSkipSlots;
        long slotsConsumed;
        final TreeMap<Long, RingValue> buffered = new TreeMap<>();
        /**
         * How far {@link #lastReadyBatchEnd} has walked the run of values buffered in a row from
         * {@link #nextInstance}: the first instance past it, the absolute slot there, and the
         * absolute slot just past the last batch in it (-1: none). Absolute slots do not move as the
         * front is delivered, so the walk resumes where it stopped instead of starting over.
         */
        private long scanEnd;
        private long scanEndSlot;
        private long scanLastBatchEndSlot = -1;

        RingStream(int ringId) {
            this.ringId = ringId;
        }

        /**
         * The absolute slot just past the last batch in the run of values buffered in a row from
         * {@link #nextInstance} (at most {@link #MAX_SKIP_LOOKAHEAD_VALUES} of them), or -1 if the run
         * holds no batch. Amortized constant time: called every turn while the merge is blocked, and
         * under load a busy ring holds up to {@link #WINDOW} values (walking them every turn was 15 %
         * of a ring coordinator's CPU at 4 partitions).
         */
        long lastReadyBatchEnd() {
            long start = slotsConsumed + pendingSkipSlots; // the absolute slot where nextInstance starts
            if (scanEnd <= nextInstance) {
                scanEnd = nextInstance;
                scanEndSlot = start;
                scanLastBatchEndSlot = -1;
            }
            RingValue v;
            while (scanEnd - nextInstance < MAX_SKIP_LOOKAHEAD_VALUES && (v = buffered.get(scanEnd)) != null) {
                scanEndSlot += v.slots();
                if (v instanceof RingValue.Batch) {
                    scanLastBatchEndSlot = scanEndSlot;
                }
                scanEnd++;
            }
            return scanLastBatchEndSlot > start ? scanLastBatchEndSlot : -1;
        }
    }

    private final int slotsPerRound;
    private final int[] groups;
    private final RingStream[] streams;
    private long round;
    private int ringIndex;
    private int slotInRound;
    /** Index of the next proposal to consider in the value at the cursor. */
    private int indexInBatch;
    private long lastPosition = Position.NONE;
    private DedupTable dedup = new DedupTable();
    /** Test-only fault: deliver every copy of a proposal. */
    boolean keepDuplicates;

    Merger(int[] rings, int slotsPerRound, int[] groups, byte[] checkpoint) {
        this.slotsPerRound = slotsPerRound;
        this.groups = groups.clone();
        Arrays.sort(this.groups);
        this.streams = new RingStream[rings.length];
        for (int i = 0; i < rings.length; i++) {
            streams[i] = new RingStream(rings[i]);
        }
        if (checkpoint != null) {
            restore(checkpoint);
        }
    }

    int[] ringIds() {
        int[] ids = new int[streams.length];
        for (int i = 0; i < streams.length; i++) {
            ids[i] = streams[i].ringId;
        }
        return ids;
    }

    RingStream stream(int ringId) {
        for (RingStream s : streams) {
            if (s.ringId == ringId) {
                return s;
            }
        }
        return null;
    }

    long lastPosition() {
        return lastPosition;
    }

    /** Buffers a decided value; false if it is old, already held or too far ahead. */
    boolean offer(int ringId, long instance, byte[] value) {
        return offer(ringId, instance, value, null);
    }

    /** As {@link #offer(int, long, byte[])}; {@code decoded}, if not null, is {@code value} decoded. */
    boolean offer(int ringId, long instance, byte[] value, RingValue decoded) {
        RingStream s = stream(ringId);
        if (s == null || instance < s.nextInstance || instance >= s.nextInstance + WINDOW
                || s.buffered.containsKey(instance)) {
            return false;
        }
        s.buffered.put(instance, decoded != null ? decoded : RingValue.decode(value));
        return true;
    }

    /** Delivers everything the merge allows now, in position order. */
    void drain(Consumer<Delivery> out) {
        if (streams.length == 0) {
            return;
        }
        while (true) {
            RingStream s = streams[ringIndex];
            if (s.pendingSkipSlots > 0) {
                s.pendingSkipSlots--;
                advanceSlot(s);
                continue;
            }
            RingValue v = s.buffered.get(s.nextInstance);
            if (v == null) {
                return;
            }
            if (v instanceof RingValue.Skip skip) {
                s.buffered.remove(s.nextInstance);
                s.nextInstance++;
                if (skip.slots() > 0) {
                    s.pendingSkipSlots = skip.slots() - 1;
                    advanceSlot(s);
                }
                continue;
            }
            List<Proposal> batch = ((RingValue.Batch) v).proposals();
            while (indexInBatch < batch.size()) {
                int index = indexInBatch;
                Proposal p = batch.get(index);
                indexInBatch++;
                if (index == batch.size() - 1) {
                    // Move past the instance before handing out its last message, so that a
                    // checkpoint taken inside deliver() does not ask for it again.
                    s.buffered.remove(s.nextInstance);
                    s.nextInstance++;
                    indexInBatch = 0;
                }
                long position = Position.of(round, s.ringId, slotInRound, index);
                boolean deliver = (dedup.firstCopy(s.ringId, p) || keepDuplicates) && addressedHere(p.groups());
                if (index == batch.size() - 1) {
                    advanceSlot(s);
                }
                if (deliver) {
                    lastPosition = position;
                    out.accept(new Delivery(position, p.groups(), p.payload()));
                }
                if (index == batch.size() - 1) {
                    break;
                }
            }
        }
    }

    private boolean addressedHere(int[] msgGroups) {
        for (int g : msgGroups) {
            if (Arrays.binarySearch(groups, g) >= 0) {
                return true;
            }
        }
        return false;
    }

    private void advanceSlot(RingStream s) {
        s.slotsConsumed++;
        slotInRound++;
        if (slotInRound == slotsPerRound) {
            slotInRound = 0;
            ringIndex++;
            if (ringIndex == streams.length) {
                ringIndex = 0;
                round++;
            }
        }
    }

    /** The ring the merge waits on, or null if it can go on (or has nothing to do). */
    RingStream blockedOn() {
        if (streams.length == 0) {
            return null;
        }
        RingStream s = streams[ringIndex];
        if (s.pendingSkipSlots > 0 || s.buffered.containsKey(s.nextInstance)) {
            return null;
        }
        return s;
    }

    /**
     * The slot count the blocked ring must reach so that a value ready on another ring can be
     * delivered, or -1 if no other ring has one ready.
     */
    long slotsNeededFrom(RingStream blocked) {
        long target = -1;
        for (int i = 0; i < streams.length; i++) {
            RingStream a = streams[i];
            if (a == blocked || !a.buffered.containsKey(a.nextInstance)) {
                continue;
            }
            // Ask for enough to merge everything ring a already holds in a row, not just its next
            // value: under load a holds many, and one skip per value would pace a by round trips.
            // Only batches count: slots a skips carry nothing to deliver, and matching them would
            // make a busy ring skip ahead of its own queued batches whenever an idle ring skipped
            // ahead of it (each ring then skipping past the other's lookahead, over and over).
            long lastBatchEnd = a.lastReadyBatchEnd();
            if (lastBatchEnd < 0) {
                continue;
            }
            long roundOfA = (lastBatchEnd - 1) / slotsPerRound;
            long need = i > ringIndex ? (roundOfA + 1) * slotsPerRound : roundOfA * slotsPerRound;
            target = Math.max(target, need);
        }
        return target > blocked.slotsConsumed ? target : -1;
    }

    byte[] checkpoint() {
        ByteBuffer b = ByteBuffer.allocate(4 + 4 + streams.length * 28 + 8 + 4 + 4 + 4 + 8 + dedup.encodedSize());
        b.putInt(CHECKPOINT_MAGIC).putInt(streams.length);
        for (RingStream s : streams) {
            b.putInt(s.ringId).putLong(s.nextInstance).putLong(s.pendingSkipSlots).putLong(s.slotsConsumed);
        }
        b.putLong(round).putInt(ringIndex).putInt(slotInRound).putInt(indexInBatch).putLong(lastPosition);
        dedup.writeTo(b);
        return b.array();
    }

    /**
     * Moves the merge forward to a peer's learner checkpoint: this node's application replaced its state
     * with the peer's of the same position (the acceptors trimmed what this learner still needed). Values
     * buffered below the new place are dropped; those at or past it are kept.
     *
     * @return false, changing nothing, when the checkpoint is not ahead of this learner on every ring
     * @throws IllegalArgumentException when it is corrupt or for other rings
     */
    boolean reposition(byte[] checkpoint) {
        Merger at = new Merger(ringIds(), slotsPerRound, groups, checkpoint);
        if (at.lastPosition <= lastPosition) {
            return false;
        }
        for (int i = 0; i < streams.length; i++) {
            if (at.streams[i].slotsConsumed < streams[i].slotsConsumed) {
                return false;
            }
        }
        for (int i = 0; i < streams.length; i++) {
            RingStream s = streams[i];
            RingStream t = at.streams[i];
            s.nextInstance = t.nextInstance;
            s.pendingSkipSlots = t.pendingSkipSlots;
            s.slotsConsumed = t.slotsConsumed;
            s.buffered.headMap(s.nextInstance).clear();
            s.scanEnd = 0; // the walk starts over at the new next instance
        }
        round = at.round;
        ringIndex = at.ringIndex;
        slotInRound = at.slotInRound;
        indexInBatch = at.indexInBatch;
        lastPosition = at.lastPosition;
        dedup = at.dedup;
        return true;
    }

    /** The per-ring instance below which this checkpoint needs nothing. */
    static TreeMap<Integer, Long> checkpointedInstances(byte[] checkpoint) {
        try {
            WireReader r = new WireReader(ByteBuffer.wrap(checkpoint));
            if (r.i32("magic") != CHECKPOINT_MAGIC) {
                throw new MalformedMessageException("bad magic");
            }
            int n = r.count("rings", 28);
            TreeMap<Integer, Long> out = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                int id = r.i32("ring");
                out.put(id, r.i64("next instance"));
                r.i64("pending skip");
                r.i64("slots consumed");
            }
            return out;
        } catch (MalformedMessageException e) {
            throw new IllegalArgumentException("corrupt learner checkpoint: " + e.getMessage(), e);
        }
    }

    private void restore(byte[] checkpoint) {
        try {
            WireReader r = new WireReader(ByteBuffer.wrap(checkpoint));
            if (r.i32("magic") != CHECKPOINT_MAGIC) {
                throw new MalformedMessageException("not a learner checkpoint (bad magic)");
            }
            int n = r.count("rings", 28);
            if (n != streams.length) {
                throw new IllegalArgumentException("learner checkpoint has " + n + " rings, this node learns "
                        + streams.length + ": was it taken on another node or with another cluster file?");
            }
            for (RingStream s : streams) {
                int id = r.i32("ring");
                if (s.ringId != id) {
                    throw new IllegalArgumentException("learner checkpoint is for ring " + id + ", this node learns ring "
                            + s.ringId + " there: was it taken on another node or with another cluster file?");
                }
                s.nextInstance = r.nonNegative(r.i64("next instance"), "next instance");
                s.pendingSkipSlots = r.nonNegative(r.i64("pending skip"), "pending skip");
                s.slotsConsumed = r.nonNegative(r.i64("slots consumed"), "slots consumed");
            }
            round = r.nonNegative(r.i64("round"), "round");
            ringIndex = r.i32("ring index");
            slotInRound = r.i32("slot in round");
            indexInBatch = r.i32("index in batch");
            lastPosition = r.i64("last position");
            dedup = DedupTable.readFrom(r);
            r.end("learner checkpoint");
            if (n > 0 && (ringIndex < 0 || ringIndex >= n || slotInRound < 0 || slotInRound >= slotsPerRound
                    || indexInBatch < 0)) {
                throw new MalformedMessageException("cursor out of range");
            }
        } catch (MalformedMessageException e) {
            throw new IllegalArgumentException("corrupt learner checkpoint: " + e.getMessage(), e);
        }
    }
}
