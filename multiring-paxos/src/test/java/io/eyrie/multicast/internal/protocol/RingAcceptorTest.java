package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Paxos acceptor rules, over a real (in-memory) log that survives a restart. */
class RingAcceptorTest {
    private static final long LOW = Ballot.of(1, 1);
    private static final long HIGH = Ballot.of(2, 2);

    @Test
    void acceptor_afterPromisingAHigherBallot_rejectsLowerOnes_evenAfterRestart() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        RingAcceptor a = new RingAcceptor(1, log, false);
        assertTrue(a.promise(HIGH));
        assertFalse(a.accept(0, LOW, RingValue.encodeSkip(0)), "a lower ballot's Phase 2 must be refused");
        assertFalse(a.promise(LOW), "a lower ballot's Phase 1 must be refused");

        RingAcceptor restarted = new RingAcceptor(1, log, false);
        assertEquals(HIGH, restarted.promisedBallot(), "the promise must survive a restart");
        assertFalse(restarted.accept(0, LOW, RingValue.encodeSkip(0)));
    }

    @Test
    void acceptor_reportsItsVotesInPhase1_andKeepsADecidedValue() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        RingAcceptor a = new RingAcceptor(1, log, false);
        byte[] v = RingValue.encodeSkip(3);
        assertTrue(a.accept(0, LOW, v));
        assertTrue(a.decide(0, LOW));
        assertEquals(1, a.firstUndecided());
        assertTrue(a.accept(0, HIGH, RingValue.encodeSkip(9)), "a decided instance keeps its value");
        assertArrayEquals(v, a.decidedValue(0).orElseThrow());
        RingAcceptor.VotePage page = a.votesFrom(0, 1000, 1 << 20);
        assertEquals(1, page.votes().size());
        assertTrue(page.votes().get(0).decided());
        assertEquals(Long.MAX_VALUE, page.nextFrom(), "a complete page says so");
    }

    /** Voting and deciding need the ballots and decided flags only: a durable log would read every value back from disk. */
    @Test
    void votingAndDecidingNeverReadValuesBackFromTheLog() {
        int[] valueReads = {0};
        MemoryAcceptorLog log = new MemoryAcceptorLog(10_000) {
            @Override
            public synchronized java.util.Optional<AcceptedValue> read(long instance) {
                valueReads[0]++;
                return super.read(instance);
            }
        };
        RingAcceptor a = new RingAcceptor(1, log, false);
        assertTrue(a.promise(LOW));
        for (long i = 0; i < 200; i++) {
            assertFalse(a.isDecided(i));
            assertTrue(a.accept(i, LOW, RingValue.encodeSkip(1)));
            assertTrue(a.accept(i, LOW, RingValue.encodeSkip(1)), "a retransmitted Phase 2 is a vote again");
            assertTrue(a.decide(i, LOW));
        }
        a.storeDecided(200, LOW, RingValue.encodeSkip(2));
        assertEquals(201, a.firstUndecided(), "decided prefix");
        assertEquals(0, valueReads[0], "values read back from the log while voting and deciding");
    }

    @Test
    void storingADecidedValue_promisesItsBallot_soAStaleLowerBallotCannotVote() {
        RingAcceptor a = new RingAcceptor(1, new MemoryAcceptorLog(100), false);
        a.storeDecided(4, HIGH, RingValue.encodeSkip(1));
        assertFalse(a.accept(4, LOW, RingValue.encodeSkip(7)),
                "a stale Phase 2 below the decided ballot must not count as a vote for a decided instance");
    }

    @Test
    void trimming_waitsForEveryLearner_andStaysBelowTheDecidedPrefix() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        RingAcceptor a = new RingAcceptor(1, log, false);
        for (long i = 0; i < 10; i++) {
            a.accept(i, LOW, RingValue.encodeSkip(1));
            if (i < 6) {
                a.decide(i, LOW);
            }
        }
        a.learnerCheckpointed(1, 8, new int[] {1, 2});
        assertEquals(0, log.lowestInstance(), "learner 2 has not checkpointed yet");
        a.learnerCheckpointed(2, 9, new int[] {1, 2});
        assertEquals(6, log.lowestInstance(), "trim below min(8, 9) but never past the decided prefix 6");
    }

    @Test
    void phase1Votes_comeInPagesBoundedByInstancesAndBytes() {
        RingAcceptor a = new RingAcceptor(1, new MemoryAcceptorLog(100), false);
        for (long i = 0; i < 10; i++) {
            a.accept(i, LOW, new byte[100]);
        }
        RingAcceptor.VotePage byCount = a.votesFrom(2, 3, 1 << 20);
        assertEquals(3, byCount.votes().size());
        assertEquals(5, byCount.nextFrom());
        RingAcceptor.VotePage byBytes = a.votesFrom(0, 1000, 300);
        assertEquals(2, byBytes.votes().size(), "300 bytes hold two 100-byte votes (132 bytes each with overhead), not three");
        assertEquals(2, byBytes.nextFrom());
        RingAcceptor.VotePage tiny = a.votesFrom(7, 1000, 1);
        assertEquals(1, tiny.votes().size(), "a page holds at least one vote, so Phase 1 always progresses");
    }

    /**
     * Catch-up and Phase 1 pages travel in one frame, whose limit is batch.maxBytes plus 64 KiB: a page
     * of several large values would be dropped at every request, and the learner (or the coordinator
     * taking over) would wait forever. Pages stop before maxBytes, and always carry at least one value.
     */
    @Test
    void pagesOfLargeValuesStayWithinTheirByteBoundAndStillMove() {
        int max = 1 << 20;
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        RingAcceptor a = new RingAcceptor(1, log, false);
        assertTrue(a.promise(LOW));
        for (long i = 0; i < 5; i++) {
            byte[] value = new byte[max - 100]; // a batch close to batch.maxBytes
            value[0] = (byte) i;
            assertTrue(a.accept(i, LOW, value));
            assertTrue(a.decide(i, LOW));
        }
        long next = 0;
        while (next < 5) {
            java.util.List<Message.Vote> page = a.decidedFrom(next, 64, max);
            assertEquals(1, page.size(), "one large value per catch-up page, from " + next);
            assertEquals(next, page.get(0).instance());
            next++;
        }
        RingAcceptor.VotePage p1 = a.votesFrom(0, 1000, max);
        assertEquals(1, p1.votes().size(), "one large value per Phase 1 page");
        assertEquals(1, p1.nextFrom(), "the next page starts after it");

        // small values: many per page, still within the bound
        RingAcceptor b = new RingAcceptor(1, new MemoryAcceptorLog(10_000), false);
        assertTrue(b.promise(LOW));
        for (long i = 0; i < 100; i++) {
            assertTrue(b.accept(i, LOW, new byte[1000]));
            assertTrue(b.decide(i, LOW));
        }
        java.util.List<Message.Vote> small = b.decidedFrom(0, 64, 10_000);
        long bytes = small.stream().mapToLong(v -> v.value().length + RingAcceptor.VOTE_OVERHEAD_BYTES).sum();
        assertTrue(bytes <= 10_000 && small.size() == 9, small.size() + " values, " + bytes + " bytes");
    }
}
