package io.eyrie.multicast.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** When the local proposer sends a pending multicast again. */
class ProposerTest {
    private static final int[] GROUPS = {1};
    private static final long TIMEOUT = 100;

    private static List<Long> seqs(List<Message.Propose> ps) {
        return ps.stream().map(p -> p.proposal().seq()).toList();
    }

    @Test
    void aProposalSentBeforeOneTheRingOrderedIsSentAgainAtOnce() {
        Proposer proposer = new Proposer(1, 7, TIMEOUT);
        for (int i = 0; i < 5; i++) {
            proposer.propose(1, GROUPS, new byte[] {(byte) i}, 1000);
        }
        // seq 0 and 1 were lost on the way to the coordinator; 2 is ordered
        assertEquals(List.of(2L), java.util.Arrays.stream(proposer.ordered(7, new long[] {2}, 1010)).boxed().toList());
        assertEquals(List.of(0L, 1L), seqs(proposer.takeGapResends()), "the ones sent before 2 are resent now");
        assertTrue(proposer.takeGapResends().isEmpty(), "each returned once");
        // 3 and 4 were sent before the resends: ordering them shows no new gap
        proposer.ordered(7, new long[] {3, 4}, 1012);
        assertTrue(proposer.takeGapResends().isEmpty(), "0 and 1 went out again after 3 and 4");
        assertEquals(2, proposer.gapResendCount());
        proposer.ordered(7, new long[] {0, 1}, 1020);
        assertEquals(0, proposer.pendingCount());
    }

    @Test
    void aGapInOneRingSaysNothingAboutAnother() {
        Proposer proposer = new Proposer(1, 7, TIMEOUT);
        proposer.propose(1, GROUPS, new byte[1], 1000);  // seq 0, ring 1
        proposer.propose(2, new int[] {2}, new byte[1], 1000);  // seq 1, ring 2
        proposer.ordered(7, new long[] {1}, 1005);
        assertTrue(proposer.takeGapResends().isEmpty(), "ring 1's proposal may simply be queued at its coordinator");
    }

    @Test
    void theRetransmissionTimerStretchesWithTheTimeTheRingTakesToOrder() {
        Proposer proposer = new Proposer(1, 7, TIMEOUT);
        long now = 0;
        // the ring takes about 2 s to order each proposal (a coordinator with a long queue)
        for (int i = 0; i < 200; i++) {
            proposer.propose(1, GROUPS, new byte[1], now);
            now += 2000;
            proposer.ordered(7, new long[] {i}, now);
        }
        assertTrue(proposer.orderMillis() > 1900, "average time to order: " + proposer.orderMillis());
        long seq = proposer.propose(1, GROUPS, new byte[1], now).proposal().seq();
        assertTrue(proposer.due(now + 5 * TIMEOUT).isEmpty(), "not resent after the configured timeout alone");
        assertTrue(proposer.due(now + 7000).isEmpty(), "not resent before about 4x the time to order");
        assertEquals(List.of(seq), seqs(proposer.due(now + 8100)));
    }

    @Test
    void withAFastRingTheConfiguredTimeoutRules() {
        Proposer proposer = new Proposer(1, 7, TIMEOUT);
        for (int i = 0; i < 50; i++) {
            proposer.propose(1, GROUPS, new byte[1], i * 10L);
            proposer.ordered(7, new long[] {i}, i * 10L + 2);
        }
        long seq = proposer.propose(1, GROUPS, new byte[1], 1000).proposal().seq();
        assertTrue(proposer.due(1000 + TIMEOUT - 1).isEmpty());
        assertEquals(List.of(seq), seqs(proposer.due(1000 + TIMEOUT)), "lost and resent after the timeout");
        assertTrue(proposer.due(1000 + 2 * TIMEOUT).isEmpty(), "then backing off");
        assertEquals(List.of(seq), seqs(proposer.due(1000 + 3 * TIMEOUT)));
    }

    @Test
    void eachRingHasItsOwnBoundOfPendingProposals() {
        Proposer proposer = new Proposer(1, 7, TIMEOUT);
        for (int i = 0; i < Proposer.MAX_PENDING_PER_RING; i++) {
            proposer.propose(1, GROUPS, new byte[1], 0);
        }
        io.eyrie.multicast.MulticastException full = org.junit.jupiter.api.Assertions.assertThrows(
                io.eyrie.multicast.MulticastException.class, () -> proposer.propose(1, GROUPS, new byte[1], 0));
        assertTrue(full.getMessage().contains("ring 1"), full.getMessage());
        // a ring that is full leaves the others their whole pipeline (a client of four partitions)
        for (int ring = 2; ring <= 4; ring++) {
            for (int i = 0; i < Proposer.MAX_PENDING_PER_RING; i++) {
                proposer.propose(ring, new int[] {ring}, new byte[1], 0);
            }
        }
        assertEquals(Proposer.MAX_PENDING, proposer.pendingCount());
        org.junit.jupiter.api.Assertions.assertThrows(io.eyrie.multicast.MulticastException.class,
                () -> proposer.propose(5, new int[] {5}, new byte[1], 0), "the bound over all rings holds");
        // ordering one of ring 1's makes room for ring 1 only
        proposer.ordered(7, new long[] {0}, 1);
        proposer.propose(1, GROUPS, new byte[1], 1);
        org.junit.jupiter.api.Assertions.assertThrows(io.eyrie.multicast.MulticastException.class,
                () -> proposer.propose(1, GROUPS, new byte[1], 1));
    }

    @Test
    void aProposalCarriesTheLowestSeqStillPendingOfItsOwnRing() {
        Proposer proposer = new Proposer(1, 7, TIMEOUT);
        proposer.propose(1, GROUPS, new byte[1], 0);            // seq 0, ring 1
        proposer.propose(2, new int[] {2}, new byte[1], 0);     // seq 1, ring 2
        proposer.propose(1, GROUPS, new byte[1], 0);            // seq 2, ring 1
        proposer.propose(1, GROUPS, new byte[1], 0);            // seq 3, ring 1
        proposer.ordered(7, new long[] {0, 3}, 1);
        assertEquals(2, proposer.propose(1, GROUPS, new byte[1], 1).proposal().watermark(),
                "ring 1: 0 and 3 are ordered, 2 is not");
        assertEquals(1, proposer.propose(2, new int[] {2}, new byte[1], 1).proposal().watermark(),
                "ring 2: 1 is pending");
        proposer.ordered(7, new long[] {1, 2, 4, 5}, 2);
        assertEquals(6, proposer.propose(1, GROUPS, new byte[1], 2).proposal().watermark(),
                "nothing of ring 1 pending: the next seq");
        assertEquals(7, proposer.propose(3, new int[] {3}, new byte[1], 2).proposal().watermark(),
                "a ring never proposed to before");
    }
}
