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

    @Test
    void budget_logsShareItEqually_andTheShareGrowsBackWhenOneCloses() {
        MemoryLogBudget budget = new MemoryLogBudget(4L * 1024 * 1024);
        int kept = 8;
        MemoryAcceptorLog a = new MemoryAcceptorLog(1_000_000, budget, kept);
        MemoryAcceptorLog b = new MemoryAcceptorLog(1_000_000, budget, kept);
        assertEquals(2, budget.openLogs());
        assertEquals(2L * 1024 * 1024, a.maxBytes());
        long ballot = Ballot.of(1, 1);
        for (long i = 0; i < 10_000; i++) {
            a.appendAccept(i, ballot, new byte[1024]);
            b.appendAccept(i, ballot, new byte[1024]);
        }
        // 10,000 KiB each against a 4 MiB budget for two: each holds its 2 MiB share, the newest 2048 values
        assertEquals(2L * 1024 * 1024, a.heldBytes());
        assertEquals(2L * 1024 * 1024, b.heldBytes());
        assertEquals(10_000 - 2048, a.lowestInstance());
        assertTrue(a.read(9_999).isPresent(), "the newest is kept");

        MemoryAcceptorLog c = new MemoryAcceptorLog(1_000_000, budget, kept);
        c.appendAccept(0, ballot, new byte[1024]);
        a.appendAccept(10_000, ballot, new byte[1024]);
        assertEquals(3, budget.openLogs());
        assertTrue(a.heldBytes() <= 4L * 1024 * 1024 / 3, "a third log opened: a gives back what is over its share"
                + " at its next append, holds " + a.heldBytes());

        b.close();
        c.close();
        b.close(); // a second close does not give the budget back twice
        assertEquals(1, budget.openLogs());
        for (long i = 10_001; i < 20_000; i++) {
            a.appendAccept(i, ballot, new byte[1024]);
        }
        assertEquals(4L * 1024 * 1024, a.heldBytes(), "alone, a log holds the whole budget");
        b.reopen();
        assertEquals(2, budget.openLogs(), "a reopened log counts again");
    }

    @Test
    void budget_shareNeverExceedsTheCeiling_andTheProcessBudgetIsAQuarterOfTheHeap() {
        MemoryLogBudget huge = new MemoryLogBudget(64L * 1024 * 1024 * 1024);
        MemoryAcceptorLog only = new MemoryAcceptorLog(1_000_000, huge, 8);
        assertEquals(MemoryLogBudget.PER_LOG_CEILING, only.maxBytes());
        assertEquals(Runtime.getRuntime().maxMemory() / 4, MemoryLogBudget.process().totalBytes());
        assertThrows(IllegalArgumentException.class, () -> new MemoryLogBudget(0));
    }
}
