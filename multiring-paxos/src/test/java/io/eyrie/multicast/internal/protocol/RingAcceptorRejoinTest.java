package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.internal.protocol.Message.Phase1b;
import io.eyrie.multicast.internal.protocol.Message.Vote;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ADR 074, the acceptor's side: an acceptor of ring 1 (acceptors 1, 2, 3; this is node 1) whose log holds
 * no promise rejoins. The whole protocol under faults is SimulationTest's; these pin the rules one by one.
 */
class RingAcceptorRejoinTest {
    private static final int[] OTHERS = {2, 3};
    private static final long B22 = Ballot.of(2, 2);
    private static final long B33 = Ballot.of(3, 3);
    private static final long READ = Ballot.of(4, 0); // above the highest promise reported, (3,3)
    private static final long COMPLETE = RingAcceptor.VotePage.COMPLETE;

    private static RingAcceptor rejoining(MemoryAcceptorLog log) {
        RingAcceptor a = new RingAcceptor(1, log, false, OTHERS, false);
        assertTrue(a.rejoining(), "a log without a promise: rejoining");
        return a;
    }

    private static Phase1b page(long ballot, long from, long lowest, long next, List<Vote> votes) {
        long highest = votes.isEmpty() ? lowest - 1 : votes.get(votes.size() - 1).instance();
        return new Phase1b(1, ballot, from, lowest, highest, next, votes);
    }

    @Test
    void aRejoiningAcceptorNeitherPromisesNorVotes_andLogsNoPromise() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        RingAcceptor a = rejoining(log);
        assertFalse(a.promise(B33), "no promise while rejoining");
        assertThrows(IllegalStateException.class, () -> a.accept(0, B33, RingValue.encodeSkip(0)));
        // a decided value it learns is kept, without a promise that would make a restart look like a joined one
        a.storeDecided(0, B22, RingValue.encodeSkip(1));
        assertTrue(a.isDecided(0));
        assertEquals(Ballot.NONE, log.recovered().promisedBallot());
        assertTrue(new RingAcceptor(1, log, false, OTHERS, false).rejoining(), "restarted before the join: rejoins again");
    }

    @Test
    void theReadStartsOnceEveryOtherAcceptorReported_aboveTheirHighestPromise() {
        RingAcceptor a = rejoining(new MemoryAcceptorLog(100));
        assertFalse(a.peerReported(2, B22));
        assertFalse(a.peerReported(9, Ballot.of(50, 9)), "not an acceptor of the ring: ignored");
        assertTrue(a.readsPending().isEmpty(), "no read before every other acceptor reported");
        assertTrue(a.peerReported(3, B33));
        assertEquals(READ, a.readBallot());
        assertEquals(List.of(2, 3), a.readsPending());
        assertArrayEquals(new long[] {READ, 0}, a.readRequest(2));
        assertFalse(a.peerReported(2, Ballot.of(9, 2)), "reports after the read began change nothing");
        assertEquals(READ, a.readBallot());
    }

    @Test
    void itAdoptsTheHighestVoteOfEachInstance_andJoinsOnlyWhenEveryPeerWasReadToTheEnd() {
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        RingAcceptor a = rejoining(log);
        a.peerReported(2, B22);
        a.peerReported(3, B33);
        byte[] old = RingValue.encodeSkip(1);
        byte[] newer = RingValue.encodeSkip(2);
        byte[] decided = RingValue.encodeSkip(3);
        // node 2: instance 0 decided, instance 1 voted at (2,2); a first page, then the rest
        assertTrue(a.readReply(2, page(READ, 0, 0, 1, List.of(new Vote(0, B22, true, decided)))));
        assertFalse(a.readReply(2, page(READ, 0, 0, 1, List.of())), "a page not asked for (again from 0) is ignored");
        assertEquals(1, a.readRequest(2)[1], "the next page of node 2 starts at 1");
        assertTrue(a.readReply(2, page(READ, 1, 0, COMPLETE, List.of(new Vote(1, B22, false, old)))));
        assertTrue(a.rejoining(), "node 3 not read yet");
        // node 3 refuses the read's ballot: it promised more, which is all the read needs; asked again at it
        long promised = Ballot.of(5, 3);
        assertTrue(a.readRefused(3, promised));
        assertFalse(a.readReply(3, page(READ, 0, 0, COMPLETE, List.of())), "a reply at the old ballot is not the one asked for");
        assertTrue(a.readReply(3, page(promised, 0, 0, COMPLETE, List.of(new Vote(1, B33, false, newer)))));

        assertFalse(a.rejoining(), "every other acceptor read to the end: joined");
        assertEquals(READ, a.promisedBallot(), "the join promises the read's ballot");
        assertEquals(READ, log.recovered().promisedBallot(), "logged: a restart after the join is an ordinary one");
        assertFalse(new RingAcceptor(1, log, false, OTHERS, false).rejoining());
        // instance 1: the (3,3) vote, not the (2,2) one; instance 0 decided
        RingAcceptor.VotePage votes = a.votesFrom(0, 100, 1 << 20);
        assertEquals(2, votes.votes().size());
        assertTrue(votes.votes().get(0).decided());
        assertEquals(B33, votes.votes().get(1).ballot());
        assertArrayEquals(newer, votes.votes().get(1).value());
        // and now it votes, but only above the read's ballot
        assertFalse(a.accept(2, B33, RingValue.encodeSkip(0)), "a ballot below the read's must be refused");
        assertTrue(a.accept(2, Ballot.of(5, 3), RingValue.encodeSkip(0)));
    }

    @Test
    void instancesBelowAPeersTrimPointAreSkipped() {
        RingAcceptor a = rejoining(new MemoryAcceptorLog(100));
        a.peerReported(2, B22);
        a.peerReported(3, B22);
        assertTrue(a.readReply(2, page(Ballot.of(3, 0), 0, 40, COMPLETE, List.of(new Vote(40, B22, true, RingValue.encodeSkip(0))))));
        assertEquals(40, a.lowestInstance(), "below node 2's lowest instance everything is decided and checkpointed");
        assertEquals(41, a.firstUndecided());
    }

    @Test
    void aValuePassedOnWithoutAVoteIsLearnedFromADecisionById() {
        RingAcceptor a = rejoining(new MemoryAcceptorLog(100));
        byte[] v = RingValue.encodeSkip(7);
        a.passOn(0, B22, v);
        assertFalse(a.decide(0, B33), "a Decision of another ballot names another value");
        assertTrue(a.decide(0, B22));
        assertArrayEquals(v, a.decidedValue(0).orElseThrow());
        assertTrue(a.rejoining(), "learning decisions does not end the rejoin");
    }

    @Test
    void aRingsOnlyAcceptor_orAnAcceptorThatPromisedBefore_doesNotRejoin() {
        assertFalse(new RingAcceptor(1, new MemoryAcceptorLog(100), false, new int[0], false).rejoining());
        MemoryAcceptorLog log = new MemoryAcceptorLog(100);
        log.appendPromise(B22);
        assertFalse(new RingAcceptor(1, log, false, OTHERS, false).rejoining());
    }
}
