package io.volery.server.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When a front end orders its touches (ADR 075): at wall-clock multiples of the interval, never more than one apart. */
class TouchScheduleTest {

    private static final long INTERVAL = 500;

    @Test
    void frontEndsStartedAtDifferentTimesTouchAtTheSameInstants() {
        long a = VoleryService.alignedAfter(1_000_123, INTERVAL);
        long b = VoleryService.alignedAfter(1_000_377, INTERVAL);
        assertEquals(1_000_500, a);
        assertEquals(a, b);
        assertEquals(1_001_000, VoleryService.alignedAfter(1_000_500, INTERVAL), "a multiple itself is not after itself");
        assertEquals(0, VoleryService.alignedAfter(-1, INTERVAL));
    }

    @Test
    void theNextTouchIsTheNextMultipleEvenWhenTheTimerFiredALittleEarlyOrLate() {
        assertEquals(1_001_000, VoleryService.nextTouchAfter(1_000_500, 1_000_498, INTERVAL), "early: not the same instant again");
        assertEquals(1_001_000, VoleryService.nextTouchAfter(1_000_500, 1_000_500, INTERVAL));
        assertEquals(1_001_000, VoleryService.nextTouchAfter(1_000_500, 1_000_620, INTERVAL), "late: still aligned");
    }

    @Test
    void aWallClockStepRealignsInsteadOfLeavingSessionsUntouched() {
        // forward past the next planned instant (or a timer held up for longer than an interval): the first multiple after now
        assertEquals(1_010_000, VoleryService.nextTouchAfter(1_000_500, 1_009_700, INTERVAL));
        // backward by an hour: the planned instant is an hour ahead; touch at the next multiple of the new time
        long now = 1_000_480 - 3_600_000;
        long next = VoleryService.nextTouchAfter(1_000_500, now, INTERVAL);
        assertTrue(next > now && next - now <= INTERVAL, "next touch " + (next - now) + " ms away");
    }

    @Test
    void overManyTicksOfADriftingClockNoGapExceedsAnInterval() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        long planned = VoleryService.alignedAfter(5_000_000, INTERVAL);
        long now = planned;
        for (int i = 0; i < 10_000; i++) {
            // the timer fires up to 5 ms early or 50 ms late, and now and then the wall clock steps
            long fired = now + random.nextLong(-5, 50);
            if (random.nextInt(500) == 0) {
                fired += random.nextLong(-600_000, 600_000);
            }
            long next = VoleryService.nextTouchAfter(planned, fired, INTERVAL);
            assertTrue(next > fired, "the next touch is in the future");
            assertTrue(next - fired <= INTERVAL + 5, "gap " + (next - fired));
            assertEquals(0, Math.floorMod(next, INTERVAL), "aligned");
            planned = next;
            now = next;
        }
    }
}
