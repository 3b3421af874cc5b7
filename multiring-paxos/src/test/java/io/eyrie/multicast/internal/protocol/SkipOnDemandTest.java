package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.internal.protocol.Message.Accept;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Skips on demand instead of URingPaxos' clock-paced skips (ARCHITECTURE.md, "Multi-ring merge"). */
class SkipOnDemandTest {
    private static final long LINK_MILLIS = 1;

    /** Hop 1: the coordinator hands hop 0 to itself, the first hop on the network is hop 1. */
    private static boolean isSkipProposal(TestCluster.Sent s, int ring) {
        return s.message() instanceof Accept a && a.ring() == ring && a.hop() == 1
                && RingValue.decode(a.value()) instanceof RingValue.Skip k && k.slots() > 0;
    }

    @Test
    void idleRing_issuesNoSkipsWhileNobodyWaits() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), LINK_MILLIS);
        c.run(500);
        long skips = c.sent.stream().filter(s -> isSkipProposal(s, 0) || isSkipProposal(s, 1) || isSkipProposal(s, 2)).count();
        assertEquals(0, skips, "with nothing multicast, no ring should order skips (no clock-driven skips)");
    }

    @Test
    void idleRing_issuesSkipOnDemand_andBusyRingIsSlowedByAtMostOneSkipRoundTrip() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, "merge.slotsPerRound = 1\n"), LINK_MILLIS);
        c.run(100);
        c.sent.clear();
        Map<Long, Long> proposedAt = new HashMap<>();
        for (long i = 0; i < 40; i++) {
            byte[] payload = ByteBuffer.allocate(8).putLong(i).array();
            c.propose(3, new int[] {1}, payload);
            proposedAt.put(i, c.now);
            c.run(3);
        }
        c.run(100);
        long idleRingSkips = c.sent.stream().filter(s -> isSkipProposal(s, 2)).count();
        long allRingSkips = c.sent.stream().filter(s -> isSkipProposal(s, 0)).count();
        assertTrue(idleRingSkips >= 1 && allRingSkips >= 1, "the idle rings 0 and 2 should order skips when learners "
                + "wait on them; got " + allRingSkips + " and " + idleRingSkips);
        assertTrue(idleRingSkips <= 5, "one skip should cover many rounds, got " + idleRingSkips + " skips for 40 messages");

        // Ring 1 alone: propose (1 link) + two ring hops to a quorum + one more hop = 3-4 link delays.
        // A skip round trip (request, coordinator, quorum, back) adds about 4 more; never a timer.
        long ringLatency = 4 * LINK_MILLIS;
        long skipRoundTrip = 4 * LINK_MILLIS;
        for (int n = 1; n <= 3; n++) {
            int node = n;
            List<TestCluster.Delivered> got = c.delivered.stream().filter(d -> d.node() == node).toList();
            assertEquals(40, got.size(), "node " + node + " should deliver all 40 messages");
            long worst = 0;
            long total = 0;
            for (TestCluster.Delivered d : got) {
                long latency = d.at() - proposedAt.get(ByteBuffer.wrap(d.delivery().payload()).getLong());
                worst = Math.max(worst, latency);
                total += latency;
            }
            assertTrue(worst <= ringLatency + skipRoundTrip + 1, "node " + node + ": worst latency " + worst
                    + " ms, expected at most the ring's own " + ringLatency + " ms plus one skip round trip ("
                    + skipRoundTrip + " ms)");
            assertTrue(total / 40.0 <= ringLatency + 1, "node " + node + ": mean latency " + total / 40.0
                    + " ms, expected close to the busy ring's own " + ringLatency + " ms");
        }
    }
}
