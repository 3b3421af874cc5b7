package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.Position;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The multi-ring merge (Multi-Ring Paxos, DSN 2012): deterministic round-robin over slot streams. */
class MergeTest {

    private static Proposal p(int node, long seq, long watermark, String text, int... groups) {
        return new Proposal(node, 1, seq, watermark, groups, text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] batch(Proposal... ps) {
        return RingValue.encodeBatch(List.of(ps));
    }

    private static List<String> delivered(Merger m, List<Delivery> sink) {
        m.drain(sink::add);
        List<String> out = new ArrayList<>();
        for (Delivery d : sink) {
            out.add(new String(d.payload(), StandardCharsets.UTF_8) + "@" + Position.toString(d.position()));
        }
        return out;
    }

    /** Ring 0: a1 a2 a3; ring 1: [b1 b2] skip3; ring 2: c1 skip1 c2. M = 2. */
    private static List<Object[]> streams() {
        List<Object[]> v = new ArrayList<>();
        v.add(new Object[] {0, 0L, batch(p(1, 0, 0, "a1", 1))});
        v.add(new Object[] {0, 1L, batch(p(1, 1, 0, "a2", 1))});
        v.add(new Object[] {0, 2L, batch(p(1, 2, 0, "a3", 1))});
        v.add(new Object[] {1, 0L, batch(p(2, 0, 0, "b1", 1), p(2, 1, 0, "b2", 1))});
        v.add(new Object[] {1, 1L, RingValue.encodeSkip(3)});
        v.add(new Object[] {2, 0L, batch(p(3, 0, 0, "c1", 1))});
        v.add(new Object[] {2, 1L, RingValue.encodeSkip(1)});
        v.add(new Object[] {2, 2L, batch(p(3, 1, 0, "c2", 1))});
        return v;
    }

    private static final List<String> EXPECTED_BEFORE_RING0_SKIP = List.of(
            "a1@0.0.0.0", "a2@0.0.1.0", "b1@0.1.0.0", "b2@0.1.0.1", "c1@0.2.0.0", "a3@1.0.0.0");

    @Test
    void merge_roundRobinInRingIdOrder_mSlotsPerRingPerRound() {
        Merger m = new Merger(new int[] {0, 1, 2}, 2, new int[] {1}, null);
        for (Object[] v : streams()) {
            m.offer((Integer) v[0], (Long) v[1], (byte[]) v[2]);
        }
        List<Delivery> sink = new ArrayList<>();
        assertEquals(EXPECTED_BEFORE_RING0_SKIP, delivered(m, sink),
                "round 0 takes slots 0-1 of rings 0, 1, 2 in that order; round 1 starts with ring 0");
        assertEquals(0, m.blockedOn().ringId, "the merge should wait on ring 0's slot 3");
        m.offer(0, 3, RingValue.encodeSkip(2));
        List<String> all = delivered(m, sink);
        assertEquals("c2@1.2.0.0", all.get(all.size() - 1), "ring 0's skip and ring 1's skip let c2 through in round 1");
        assertEquals(7, all.size());
    }

    @Test
    void skipRequests_countOnlyBatchesOfTheOtherRings_notTheSlotsTheySkip() {
        Merger m = new Merger(new int[] {0, 1}, 1, new int[] {1}, null);
        m.offer(0, 0, batch(p(1, 0, 0, "a1", 1)));
        List<Delivery> sink = new ArrayList<>();
        assertEquals(List.of("a1@0.0.0.0"), delivered(m, sink));
        Merger.RingStream ring1 = m.blockedOn();
        assertEquals(1, ring1.ringId, "the merge waits on ring 1's slot 0");
        // ring 0 (an idle ring asked by another learner) skipped 20 slots ahead: nothing to deliver
        m.offer(0, 1, RingValue.encodeSkip(20));
        assertEquals(-1, m.slotsNeededFrom(ring1),
                "ring 1 must not skip ahead of its own batches to match slots that ring 0 skipped");
        // a batch behind the skip is something to deliver: ring 1 must reach its round
        m.offer(0, 2, batch(p(1, 1, 0, "a2", 1)));
        assertEquals(21, m.slotsNeededFrom(ring1),
                "a2 takes ring 0's slot 21, in round 21 before ring 1's: ring 1 must pass rounds 0-20, 21 slots");
    }

    /** The target of a skip request by walking every buffered value (the definition). */
    private static long slotsNeededByWalking(Merger m, int[] rings, int slotsPerRound, Merger.RingStream blocked,
                                             int ringIndex) {
        long target = -1;
        for (int i = 0; i < rings.length; i++) {
            Merger.RingStream a = m.stream(rings[i]);
            if (a == blocked || !a.buffered.containsKey(a.nextInstance)) {
                continue;
            }
            long end = a.slotsConsumed + a.pendingSkipSlots;
            long lastBatchEnd = -1;
            for (long k = a.nextInstance; a.buffered.containsKey(k); k++) {
                end += a.buffered.get(k).slots();
                if (a.buffered.get(k) instanceof RingValue.Batch) {
                    lastBatchEnd = end;
                }
            }
            if (lastBatchEnd >= 0) {
                long round = (lastBatchEnd - 1) / slotsPerRound;
                target = Math.max(target, i > ringIndex ? (round + 1) * slotsPerRound : round * slotsPerRound);
            }
        }
        return target > blocked.slotsConsumed ? target : -1;
    }

    @Test
    void skipRequests_resumedWalkAgreesWithWalkingEverything_whateverTheArrivalsAndDeliveries() {
        // slotsNeededFrom resumes its walk of a ring's buffered values where the previous call
        // stopped (it runs every turn); at every step it must give what a full walk gives.
        int[] rings = {0, 1, 2};
        for (long seed = 0; seed < 200; seed++) {
            Random rnd = new Random(seed);
            int slotsPerRound = 1 + rnd.nextInt(3);
            Merger m = new Merger(rings, slotsPerRound, new int[] {1}, null);
            long[] next = new long[rings.length];
            long seq = 0;
            List<Object[]> pending = new ArrayList<>();
            for (int step = 0; step < 300; step++) {
                int r = rnd.nextInt(rings.length);
                if (rnd.nextInt(4) > 0) {
                    byte[] value = rnd.nextInt(3) == 0 ? RingValue.encodeSkip(rnd.nextInt(6))
                            : batch(p(1 + r, seq, 0, "m" + seq, 1));
                    seq++;
                    pending.add(new Object[] {r, next[r]++, value});
                }
                // values arrive out of order: offer a random pending one
                if (!pending.isEmpty() && rnd.nextBoolean()) {
                    Object[] v = pending.remove(rnd.nextInt(pending.size()));
                    m.offer((Integer) v[0], (Long) v[1], (byte[]) v[2]);
                }
                if (rnd.nextInt(3) == 0) {
                    m.drain(d -> { });
                }
                Merger.RingStream blocked = m.blockedOn();
                if (blocked != null) {
                    int ringIndex = blocked.ringId; // rings 0, 1, 2 sit at indexes 0, 1, 2
                    assertEquals(slotsNeededByWalking(m, rings, slotsPerRound, blocked, ringIndex),
                            m.slotsNeededFrom(blocked), "seed " + seed + ", step " + step);
                }
            }
        }
    }

    @Test
    void merge_sameOrderWhateverTheArrivalOrder() {
        for (long seed = 0; seed < 50; seed++) {
            List<Object[]> v = streams();
            v.add(new Object[] {0, 3L, RingValue.encodeSkip(2)});
            Collections.shuffle(v, new Random(seed));
            Merger m = new Merger(new int[] {0, 1, 2}, 2, new int[] {1}, null);
            List<Delivery> sink = new ArrayList<>();
            for (Object[] x : v) {
                m.offer((Integer) x[0], (Long) x[1], (byte[]) x[2]);
                m.drain(sink::add);
            }
            List<String> got = delivered(m, sink);
            List<String> want = new ArrayList<>(EXPECTED_BEFORE_RING0_SKIP);
            want.add("c2@1.2.0.0");
            assertEquals(want, got, "arrival order (shuffle seed " + seed + ") must not change the merge");
        }
    }

    @Test
    void merge_deliversOnlyMessagesAddressedToThisNodesGroups_butKeepsTheirPositions() {
        Merger m = new Merger(new int[] {0}, 1, new int[] {2}, null);
        m.offer(0, 0, batch(p(1, 0, 0, "to1", 1), p(1, 1, 0, "to12", 1, 2), p(1, 2, 0, "to2", 2)));
        assertEquals(List.of("to12@0.0.0.1", "to2@0.0.0.2"), delivered(m, new ArrayList<>()));
    }

    @Test
    void merge_dropsSecondCopyOfARetransmittedProposal_decidedTwice() {
        Merger m = new Merger(new int[] {1}, 1, new int[] {1}, null);
        m.offer(1, 0, batch(p(4, 0, 0, "x", 1)));
        m.offer(1, 1, batch(p(4, 1, 0, "y", 1), p(4, 0, 0, "x", 1)));
        // The proposer learned x ordered, so y's retransmission says everything below seq 1 is decided.
        m.offer(1, 2, batch(p(4, 1, 1, "y", 1), p(4, 0, 0, "x", 1), p(4, 2, 1, "z", 1)));
        assertEquals(List.of("x@0.1.0.0", "y@1.1.0.0", "z@2.1.0.2"), delivered(m, new ArrayList<>()),
                "each proposal once, at the position of its first copy");
    }

    @Test
    void checkpoint_takenInsideDeliver_resumesMidBatchWithoutRedelivery() {
        Merger m = new Merger(new int[] {0, 1}, 1, new int[] {1}, null);
        byte[] b0 = batch(p(1, 0, 0, "m0", 1), p(1, 1, 0, "m1", 1), p(1, 2, 0, "m2", 1));
        m.offer(0, 0, b0);
        byte[][] cp = new byte[1][];
        List<String> first = new ArrayList<>();
        m.drain(d -> {
            String s = new String(d.payload(), StandardCharsets.UTF_8);
            first.add(s);
            if (s.equals("m1")) {
                cp[0] = m.checkpoint();
            }
        });
        assertEquals(List.of("m0", "m1", "m2"), first);

        Merger restored = new Merger(new int[] {0, 1}, 1, new int[] {1}, cp[0]);
        restored.offer(0, 0, b0);
        restored.offer(1, 0, batch(p(2, 0, 0, "n0", 1)));
        assertEquals(List.of("m2@0.0.0.2", "n0@0.1.0.0"), delivered(restored, new ArrayList<>()),
                "a learner restored from a checkpoint taken while delivering m1 continues with m2");
        assertEquals(0L, Merger.checkpointedInstances(cp[0]).get(0),
                "instance 0 was not fully delivered at the checkpoint, so it must not be trimmed");
    }

    @Test
    void checkpoint_ofAnotherNode_isRejectedWithAClearMessage() {
        Merger m = new Merger(new int[] {0, 1}, 1, new int[] {1}, null);
        byte[] cp = m.checkpoint();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Merger(new int[] {0, 2}, 1, new int[] {2}, cp));
        assertEquals(true, e.getMessage().contains("ring"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Merger(new int[] {0, 1}, 1, new int[] {1}, new byte[] {1, 2, 3}));
    }
}
