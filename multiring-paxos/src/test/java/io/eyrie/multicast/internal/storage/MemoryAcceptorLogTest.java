package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.Ballot;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemoryAcceptorLogTest {

    @Test
    void recovered_reportsPromiseAcceptsAndDecisions_appendedBefore() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        assertEquals(Ballot.NONE, log.recovered().promisedBallot());
        assertEquals(-1, log.recovered().highestInstance(), "a fresh log holds no instance");
        long b = Ballot.of(3, 2);
        log.appendPromise(b);
        log.appendAccept(0, b, new byte[] {1});
        log.appendAccept(5, b, new byte[] {2});
        log.appendDecision(0, b);
        log.appendDecision(5, Ballot.of(2, 2)); // a decision for another ballot's value is not this value's
        log.sync();
        AcceptorLog.RecoveredState rs = log.recovered();
        assertEquals(b, rs.promisedBallot());
        assertEquals(5, rs.highestInstance());
        assertTrue(rs.accepted().get(0L).decided());
        assertFalse(rs.accepted().get(5L).decided());
        assertArrayEquals(new byte[] {2}, log.read(5).orElseThrow().value());
    }

    @Test
    void promise_neverGoesDown() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(10);
        log.appendPromise(Ballot.of(5, 1));
        log.appendPromise(Ballot.of(4, 9));
        assertEquals(Ballot.of(5, 1), log.recovered().promisedBallot());
    }

    @Test
    void bound_evictsTheLowestInstances() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(3);
        for (long i = 0; i < 5; i++) {
            log.appendAccept(i, 1, new byte[] {(byte) i});
        }
        assertEquals(2, log.lowestInstance());
        assertTrue(log.read(1).isEmpty());
        assertTrue(log.read(4).isPresent());
    }

    @Test
    void trimBelow_forgetsOlderInstances_andIgnoresLateAppendsThere() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        for (long i = 0; i < 10; i++) {
            log.appendAccept(i, 1, new byte[] {(byte) i});
        }
        log.trimBelow(6);
        assertEquals(6, log.lowestInstance());
        assertTrue(log.read(5).isEmpty());
        log.appendAccept(3, 2, new byte[] {3});
        assertTrue(log.read(3).isEmpty(), "an instance below the trim point must stay forgotten");
        log.trimBelow(2);
        assertEquals(6, log.lowestInstance(), "trimming never moves back");
        assertEquals(6, log.recovered().lowestInstance());
    }

    @Test
    void closedLog_refusesAppends_untilReopened() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(10);
        log.close();
        assertThrows(IllegalStateException.class, () -> log.appendPromise(1));
        log.reopen();
        log.appendPromise(1);
        assertEquals(1, log.recovered().promisedBallot());
    }

    @Test
    void valuesBeyondTheByteBoundAreEvictedOldestFirst_butNeverTheNewestInstances() {
        int kept = 128;
        MemoryAcceptorLog log = new MemoryAcceptorLog(1_000_000, 1024 * 1024, kept);
        long ballot = Ballot.of(1, 1);
        int n = 20_000;
        for (long i = 0; i < n; i++) {
            log.appendAccept(i, ballot, new byte[1024]);
        }
        // 20,000 KiB appended against a 1 MiB bound: the newest 1 MiB (1024 values) remain
        assertEquals(n - 1024, log.lowestInstance());
        assertTrue(log.read(n - 1025).isEmpty(), "evicted");
        assertTrue(log.read(n - 1).isPresent(), "the newest is kept");

        MemoryAcceptorLog big = new MemoryAcceptorLog(1_000_000, 1024 * 1024, kept);
        for (long i = 0; i < 1000; i++) {
            big.appendAccept(i, ballot, new byte[64 * 1024]);
        }
        assertEquals(1000 - kept, big.lowestInstance(), "values over the byte bound, but the newest " + kept
                + " (more than can be undecided) are never evicted");

        MemoryAcceptorLog small = new MemoryAcceptorLog(1_000_000, 1024 * 1024, kept);
        for (long i = 0; i < n; i++) {
            small.appendAccept(i, ballot, new byte[16]);
        }
        assertEquals(0, small.lowestInstance(), "320 KB of values fit under 1 MiB: nothing evicted");
        small.trimBelow(n / 2);
        for (long i = n; i < 2L * n; i++) {
            small.appendAccept(i, ballot, new byte[16]);
        }
        assertEquals(n / 2, small.lowestInstance(), "trimming gave the bytes back");
    }
}
