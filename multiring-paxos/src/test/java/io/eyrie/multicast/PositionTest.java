package io.eyrie.multicast;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PositionTest {

    @Property
    void positionsRoundTripAndArePositive(@ForAll @LongRange(max = Position.MAX_ROUND) long round,
                                          @ForAll @IntRange(max = Position.MAX_RINGS - 1) int ring,
                                          @ForAll @IntRange(max = Position.MAX_SLOTS_PER_ROUND - 1) int slot,
                                          @ForAll @IntRange(max = Position.MAX_BATCH_MESSAGES - 1) int index) {
        long p = Position.of(round, ring, slot, index);
        assertTrue(p >= 0, "positions are positive zxids");
        assertEquals(round, Position.round(p));
        assertEquals(ring, Position.ringId(p));
        assertEquals(slot, Position.slotInRound(p));
        assertEquals(index, Position.index(p));
    }

    @Property
    void comparingPositionsComparesMergeKeys(@ForAll @LongRange(max = 1000) long r1, @ForAll @IntRange(max = 127) int g1,
                                             @ForAll @IntRange(max = 15) int s1, @ForAll @IntRange(max = 4095) int i1,
                                             @ForAll @LongRange(max = 1000) long r2, @ForAll @IntRange(max = 127) int g2,
                                             @ForAll @IntRange(max = 15) int s2, @ForAll @IntRange(max = 4095) int i2) {
        int byKey = r1 != r2 ? Long.compare(r1, r2) : g1 != g2 ? Integer.compare(g1, g2)
                : s1 != s2 ? Integer.compare(s1, s2) : Integer.compare(i1, i2);
        assertEquals(Integer.signum(byKey),
                Integer.signum(Long.compare(Position.of(r1, g1, s1, i1), Position.of(r2, g2, s2, i2))));
    }

    @Property
    void ballotsOrderByRoundThenNode(@ForAll @LongRange(max = 1 << 20) long r1, @ForAll @IntRange(min = 1, max = 65535) int n1,
                                     @ForAll @LongRange(max = 1 << 20) long r2, @ForAll @IntRange(min = 1, max = 65535) int n2) {
        int byPair = r1 != r2 ? Long.compare(r1, r2) : Integer.compare(n1, n2);
        assertEquals(Integer.signum(byPair), Integer.signum(Long.compare(Ballot.of(r1, n1), Ballot.of(r2, n2))));
        assertEquals(n1, Ballot.nodeId(Ballot.of(r1, n1)));
        assertEquals(r1, Ballot.round(Ballot.of(r1, n1)));
    }
}
