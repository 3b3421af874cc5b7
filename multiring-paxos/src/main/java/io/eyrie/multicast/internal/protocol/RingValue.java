package io.eyrie.multicast.internal.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What one instance of a ring decides: a batch of proposals (one merge slot) or a skip of
 * {@code slots} merge slots (zero: a no-op that fills a gap without touching the merge).
 */
sealed interface RingValue {
    byte BATCH = 0;
    byte SKIP = 1;

    long slots();

    record Batch(List<Proposal> proposals) implements RingValue {
        @Override
        public long slots() {
            return 1;
        }
    }

    record Skip(long slots) implements RingValue {
    }

    static byte[] encodeSkip(long slots) {
        return ByteBuffer.allocate(9).put(SKIP).putLong(slots).array();
    }

    /** A batch's bytes before its proposals: the kind and the count. */
    static final int BATCH_HEADER_BYTES = 1 + 4;

    static byte[] encodeBatch(List<Proposal> proposals) {
        int size = BATCH_HEADER_BYTES;
        for (Proposal p : proposals) {
            size += p.encodedSize();
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(BATCH).putInt(proposals.size());
        for (Proposal p : proposals) {
            writeProposal(b, p);
        }
        return b.array();
    }

    static void writeProposal(ByteBuffer b, Proposal p) {
        b.putInt(p.node()).putLong(p.incarnation()).putLong(p.seq()).putLong(p.watermark());
        b.putInt(p.groups().length);
        for (int g : p.groups()) {
            b.putInt(g);
        }
        b.putInt(p.payload().length).put(p.payload());
    }

    static Proposal readProposal(WireReader r) {
        int node = r.i32("proposal node");
        long inc = r.i64("proposal incarnation");
        long seq = r.nonNegative(r.i64("proposal seq"), "proposal seq");
        long wm = r.nonNegative(r.i64("proposal watermark"), "proposal watermark");
        int[] groups = r.ints("proposal groups");
        if (groups.length == 0) {
            throw new MalformedMessageException("proposal without groups");
        }
        for (int i = 1; i < groups.length; i++) {
            if (groups[i] <= groups[i - 1]) {
                throw new MalformedMessageException("proposal groups not strictly ascending");
            }
        }
        byte[] payload = r.bytes("proposal payload");
        return new Proposal(node, inc, seq, wm, groups, payload);
    }

    /**
     * Checks a value as {@link #decode} would, without building it: acceptors only store and
     * forward values, so they need them well-formed but never look inside.
     */
    static void validate(byte[] value) {
        WireReader r = new WireReader(ByteBuffer.wrap(value));
        byte kind = r.u8("value kind");
        if (kind == SKIP) {
            r.nonNegative(r.i64("skip slots"), "skip slots");
            r.end("skip");
            return;
        }
        if (kind != BATCH) {
            throw new MalformedMessageException("unknown value kind " + kind);
        }
        int n = r.count("batch size", 36);
        if (n == 0 || n > io.eyrie.multicast.Position.MAX_BATCH_MESSAGES) {
            throw new MalformedMessageException("batch of " + n + " proposals");
        }
        for (int i = 0; i < n; i++) {
            r.i32("proposal node");
            r.i64("proposal incarnation");
            r.nonNegative(r.i64("proposal seq"), "proposal seq");
            r.nonNegative(r.i64("proposal watermark"), "proposal watermark");
            int groups = r.count("proposal groups", 4);
            if (groups == 0) {
                throw new MalformedMessageException("proposal without groups");
            }
            int previous = r.i32("proposal group");
            for (int g = 1; g < groups; g++) {
                int group = r.i32("proposal group");
                if (group <= previous) {
                    throw new MalformedMessageException("proposal groups not strictly ascending");
                }
                previous = group;
            }
            r.skip(r.count("proposal payload", 1), "proposal payload");
        }
        r.end("batch");
    }

    /** Decodes and validates a value; throws MalformedMessageException on bad bytes. */
    static RingValue decode(byte[] value) {
        WireReader r = new WireReader(ByteBuffer.wrap(value));
        byte kind = r.u8("value kind");
        if (kind == SKIP) {
            long slots = r.nonNegative(r.i64("skip slots"), "skip slots");
            r.end("skip");
            return new Skip(slots);
        }
        if (kind != BATCH) {
            throw new MalformedMessageException("unknown value kind " + kind);
        }
        int n = r.count("batch size", 36);
        if (n == 0 || n > io.eyrie.multicast.Position.MAX_BATCH_MESSAGES) {
            throw new MalformedMessageException("batch of " + n + " proposals");
        }
        List<Proposal> ps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ps.add(readProposal(r));
        }
        r.end("batch");
        return new Batch(ps);
    }
}
