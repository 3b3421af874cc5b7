package io.eyrie.multicast.internal.protocol;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DedupTableTest {

    private static Proposal p(long incarnation, long seq, long watermark) {
        return new Proposal(5, incarnation, seq, watermark, new int[] {1}, new byte[0]);
    }

    @Test
    void firstCopyOnly_perRing() {
        DedupTable t = new DedupTable();
        assertTrue(t.firstCopy(1, p(1, 0, 0)));
        assertFalse(t.firstCopy(1, p(1, 0, 0)), "the second copy in the same ring is a duplicate");
        assertTrue(t.firstCopy(2, p(1, 0, 0)), "rings are independent streams");
        assertTrue(t.firstCopy(1, p(2, 0, 0)), "a new incarnation numbers from 0 again");
    }

    @Test
    void stateStaysBounded_byWatermarks_andByIncarnationCount() {
        DedupTable t = new DedupTable();
        for (long seq = 0; seq < 10_000; seq++) {
            assertTrue(t.firstCopy(1, p(1, seq, Math.max(0, seq - 10))));
        }
        int size = t.encodedSize();
        assertTrue(size < 400, "seqs below the watermark are forgotten: " + size + " bytes for 10,000 proposals");
        assertFalse(t.firstCopy(1, p(1, 3, 3)), "a seq below the watermark is a late duplicate");

        for (long inc = 2; inc < 2 + 3 * DedupTable.INCARNATIONS; inc++) {
            t.firstCopy(1, p(inc, 0, 0));
        }
        assertFalse(t.firstCopy(1, p(1, 20_000, 20_000)), "an incarnation older than the last "
                + DedupTable.INCARNATIONS + " is dropped");
        assertTrue(t.encodedSize() < 1000, "incarnations are bounded: " + t.encodedSize() + " bytes");
    }

    @Test
    void survivesTheCheckpointRoundTrip() {
        DedupTable t = new DedupTable();
        t.firstCopy(1, p(1, 4, 2));
        t.firstCopy(1, p(1, 7, 2));
        ByteBuffer b = ByteBuffer.allocate(t.encodedSize());
        t.writeTo(b);
        b.flip();
        DedupTable back = DedupTable.readFrom(new WireReader(b));
        assertFalse(back.firstCopy(1, p(1, 7, 2)));
        assertFalse(back.firstCopy(1, p(1, 1, 2)));
        assertTrue(back.firstCopy(1, p(1, 5, 2)));
        assertEquals(t.encodedSize() + 8, back.encodedSize(), "one more seq held after the round trip");
    }
}
