package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import io.eyrie.core.internal.SentExchanges.Lookup;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Beyond its bound, a replica forgets a command's exchanges only once some replica of every partition
 * they are for has reported finishing the command, or past sixteen times the bound (ADR 049).
 */
class SentExchangesTest {

    private static final byte[] BYTES = {1};

    private static void keep(SentExchanges sent, long position, int... partitions) {
        Map<Integer, byte[]> m = new java.util.HashMap<>();
        for (int p : partitions) {
            m.put(p, BYTES);
        }
        sent.put(position, 0, m);
    }

    @Test
    void exchangesAPartitionHasNotReportedFinishingAreKeptBeyondTheBound() {
        SentExchanges sent = new SentExchanges(4);
        for (long p = 1; p <= 10; p++) {
            keep(sent, p, 2);
        }
        assertEquals(10, sent.size(), "partition 2 reported nothing: all ten are still needed");
        assertNotNull(sent.get(1, 2, 0));

        sent.progress(2, 3);
        assertEquals(7, sent.size(), "partition 2 finished 1..3: those go, the other seven are still needed");
        assertNull(sent.get(3, 2, 0));
        assertNotNull(sent.get(4, 2, 0));

        sent.progress(2, 100);
        assertEquals(4, sent.size(), "everything reported finished: back to the bound, the newest kept");
        assertNotNull(sent.get(7, 2, 0));
        assertNull(sent.get(6, 2, 0));
        assertEquals(0, sent.forgottenWhileNeeded());
        assertTrue(sent.whyNotKept(6).startsWith("forgotten"), sent.whyNotKept(6));
        assertTrue(sent.whyNotKept(50).startsWith("never kept"), sent.whyNotKept(50));
    }

    @Test
    void aReplicaRestoredFromAnImageSaysSoOfWhatTheImageDidNotCarry() {
        // session 24's kill run logged "never kept here" for such exchanges: a restarted replica forgets
        // what it had forgotten before its checkpoint
        SentExchanges source = new SentExchanges(4);
        for (long p = 5; p <= 8; p++) {
            keep(source, p, 2);
        }
        SentExchanges restored = new SentExchanges(4);
        restored.restore(source.copy(), 10);
        assertNotNull(restored.get(5, 2, 0));
        assertTrue(restored.whyNotKept(3).startsWith("not in the checkpoint image"), restored.whyNotKept(3));
        assertTrue(restored.whyNotKept(12).startsWith("never kept"), restored.whyNotKept(12));
    }

    @Test
    void aCommandForSeveralPartitionsIsKeptUntilEachOfThemReported() {
        SentExchanges sent = new SentExchanges(1);
        keep(sent, 1, 2, 3);
        keep(sent, 2, 2, 3);
        sent.progress(2, 5);
        assertEquals(2, sent.size(), "partition 3 has not reported finishing position 1");
        sent.progress(3, 1);
        assertEquals(1, sent.size());
        assertNotNull(sent.get(2, 3, 0));
        sent.progress(3, 0);
        assertEquals(1, sent.size(), "an older report changes nothing");
    }

    @Test
    void pastSixteenTimesTheBoundEvenNeededExchangesGo() {
        SentExchanges sent = new SentExchanges(2);
        for (long p = 1; p <= 40; p++) {
            keep(sent, p, 2);
        }
        assertEquals(2 * SentExchanges.HARD_FACTOR, sent.size());
        assertEquals(40 - 2 * SentExchanges.HARD_FACTOR, sent.forgottenWhileNeeded());
        assertNull(sent.get(1, 2, 0));
        assertNotNull(sent.get(40, 2, 0));
    }

    /** ADR 055: a catch-up holds every round after the asked one, by position then round, minus what went already. */
    @Test
    void followingHoldsEveryRoundAfterTheAskedOneInOrderAndLeavesOutWhatWentAlready() {
        SentExchanges sent = new SentExchanges(64);
        for (long p = 1; p <= 4; p++) {
            for (int round : new int[] {2, 0, 1}) { // kept out of order: a deferred round after the next signal
                sent.put(p, round, Map.of(2, new byte[] {(byte) p, (byte) round}, 3, BYTES));
            }
        }
        java.util.List<String> got = new java.util.ArrayList<>();
        for (SentExchanges.Kept k : sent.following(2, 1, 2, 5, (p, r) -> p == 3 && r == 1)) {
            assertEquals(k.position(), k.encoded()[0]);
            assertEquals(k.round(), k.encoded()[1]);
            got.add(k.position() + "/" + k.round());
        }
        assertEquals(java.util.List.of("2/2", "3/0", "3/2", "4/0", "4/1"), got,
                "after round 1 of position 2, partition 2's exchanges, five at most, without the one sent already");
    }

    @Test
    void anExchangeItsContinuationKeepsWhileTheAskIsLookedUpIsAnsweredNotGone() {
        // The executor ends a deferred continuation (it keeps round 2 for partition 3, then leaves the
        // unfinished positions) while an ask for that round is looked up. The predicate plays the executor
        // at the moment the ask consults it: with the look-up first and the decision after, the answer was
        // "gone" for an exchange that was there (session 30, "never kept here" in a fault-free run).
        SentExchanges sent = new SentExchanges(16);
        sent.passed(7);
        sent.passed(9); // executed past 7, whose continuation waits for a round
        Lookup found = sent.lookup(7, 3, 2, position -> {
            sent.put(7, 2, Map.of(3, BYTES));
            return false; // ended just now
        });
        assertFalse(found.gone(), "the continuation kept it before ending: not gone");
        assertArrayEquals(BYTES, found.kept());
    }

    @Test
    void aPositionIsGoneOnlyOnceExecutedPastAndNoContinuationOfItWaits() {
        SentExchanges sent = new SentExchanges(16);
        keep(sent, 5, 2);
        sent.passed(5);
        assertSame(Lookup.NOT_YET, sent.lookup(6, 2, 0, p -> false), "not executed yet");
        assertArrayEquals(BYTES, sent.lookup(5, 2, 0, p -> false).kept(), "kept: answered");
        assertSame(Lookup.NOT_YET, sent.lookup(5, 3, 0, p -> false), "5 is the highest passed: not past it");
        sent.passed(8);
        assertSame(Lookup.NOT_YET, sent.lookup(5, 3, 1, p -> p == 5), "its continuation still waits: it may keep it yet");
        assertSame(Lookup.GONE, sent.lookup(5, 3, 1, p -> false), "executed past, nothing waits, never kept");
    }
}
