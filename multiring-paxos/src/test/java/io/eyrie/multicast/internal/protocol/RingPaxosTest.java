package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.ClusterConfig.ConfigException;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.internal.protocol.Message.Accept;
import io.eyrie.multicast.internal.protocol.Message.Decision;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Claims of Ring Paxos (Marandi et al., DSN 2010) as this implementation realises them. */
class RingPaxosTest {

    static String cluster(int nodes, String extra) {
        StringBuilder sb = new StringBuilder();
        StringBuilder ids = new StringBuilder();
        for (int i = 1; i <= nodes; i++) {
            sb.append("node.").append(i).append(" = 127.0.0.1:").append(7000 + i).append('\n');
            sb.append("node.").append(i).append(".groups = 1,2\n");
            ids.append(i == 1 ? "" : ",").append(i);
        }
        for (int r = 0; r <= 2; r++) {
            sb.append("ring.").append(r).append(".acceptors = ").append(ids).append('\n');
        }
        sb.append("ring.all = 0\ngroup.1.ring = 1\ngroup.2.ring = 2\n");
        sb.append("timeout.heartbeatMillis = 10\ntimeout.suspectMillis = 50\ntimeout.retransmitMillis = 20\n");
        return sb + extra;
    }

    static byte[] payload(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void ringPaxos_payloadCrossesEachLinkOnce() {
        TestCluster c = new TestCluster(cluster(3, ""), 1);
        c.run(100);
        c.sent.clear();
        byte[] payload = payload(7, 600);
        c.propose(3, new int[] {1}, payload);
        c.run(60);

        Map<String, Integer> payloadCrossings = new HashMap<>();
        for (TestCluster.Sent s : c.sent) {
            if (s.carries(payload)) {
                payloadCrossings.merge(s.from() + "->" + s.to(), 1, Integer::sum);
            }
        }
        // Proposer 3 -> coordinator 1, then along the ring 1 -> 2 -> 3.
        assertEquals(Map.of("3->1", 1, "1->2", 1, "2->3", 1), payloadCrossings,
                "the payload should cross each link of the ring once (links and crossings)");
        List<TestCluster.Sent> decisions = c.sent.stream().filter(s -> s.message() instanceof Decision).toList();
        assertTrue(!decisions.isEmpty() && decisions.stream().allMatch(s -> s.bytes().length < 64),
                "the decision should reach the coordinator as ids only, got " + decisions.size() + " decisions");
        for (int n = 1; n <= 3; n++) {
            List<Delivery> d = c.deliveriesAt(n);
            assertEquals(1, d.size(), "node " + n + " should deliver the message once");
            assertArrayEquals(payload, d.get(0).payload());
        }
        assertEquals(1, c.ordered.size(), "the proposer should be told once that its multicast was ordered");
    }

    @Test
    void coordinatorFailover_higherBallotRecoversAcceptedValue() {
        TestCluster c = new TestCluster(cluster(5, ""), 1);
        c.run(100);
        byte[] payload = payload(11, 100);
        // Phase 2 of ring 1 never gets past acceptor 2: only acceptors 1 and 2 (no quorum of 3) vote.
        c.drop = s -> s.message() instanceof Accept a && a.ring() == 1 && s.from() == 2 && s.to() == 3;
        c.propose(1, new int[] {1}, payload);
        c.run(40);
        assertTrue(c.delivered.isEmpty(), "nothing can be decided without a quorum, yet got " + c.delivered);
        long firstBallot = c.sent.stream().filter(s -> s.message() instanceof Accept a && a.ring() == 1)
                .mapToLong(s -> ((Accept) s.message()).ballot()).max().orElseThrow();

        // The coordinator (and with it the proposer) dies; the value survives only in acceptor 2's vote.
        c.crash(1);
        c.drop = s -> false;
        c.run(300);

        Accept decided = c.sent.stream().filter(s -> s.message() instanceof Accept a && a.ring() == 1 && a.decided()
                && s.carries(payload)).map(s -> (Accept) s.message()).findFirst().orElseThrow(
                () -> new AssertionError("the accepted value was never decided after failover"));
        assertEquals(2, Ballot.nodeId(decided.ballot()), "the next acceptor in ring order should take over");
        assertTrue(decided.ballot() > firstBallot, "the new ballot " + Ballot.toString(decided.ballot())
                + " should exceed the old one " + Ballot.toString(firstBallot));
        for (int n = 2; n <= 5; n++) {
            List<Delivery> d = c.deliveriesAt(n);
            assertEquals(1, d.size(), "node " + n + " should deliver the recovered message once, got " + d);
            assertArrayEquals(payload, d.get(0).payload());
        }
    }

    @Test
    void coordinatorFailover_cutOffLeaderStepsDownOnHigherBallot_thenLeadsAgainAfterHealing() {
        TestCluster c = new TestCluster(cluster(3, ""), 1);
        c.run(100);
        // Node 1 is partitioned away long enough for node 2 to take over with a higher ballot.
        c.drop = s -> s.from() == 1 || s.to() == 1;
        c.run(150);
        long duelBallot = c.nodes.get(3).status().rings().get(2).ballot();
        assertEquals(2, Ballot.nodeId(duelBallot), "while node 1 was cut off, node 2 should have taken ring 2 over: "
                + Ballot.toString(duelBallot));
        byte[] payload = payload(3, 50);
        c.drop = s -> false;
        c.run(150);
        c.propose(3, new int[] {2}, payload);
        c.run(100);
        for (int n = 1; n <= 3; n++) {
            assertEquals(1, c.deliveriesAt(n).size(), "node " + n + " should deliver once after the healed duel");
        }
        long after = c.nodes.get(3).status().rings().get(2).ballot();
        assertEquals(1, Ballot.nodeId(after), "after healing node 1, first in ring order, should lead again with a"
                + " ballot above node 2's " + Ballot.toString(duelBallot) + ", got " + Ballot.toString(after));
        assertTrue(after > duelBallot);
        assertEquals(1, c.nodes.get(3).status().rings().get(2).coordinatorId(),
                "node 3 should see node 1 as coordinator again: " + c.nodes.get(3).status());
    }

    @Test
    void batching_isOpportunistic_andCapped() {
        TestCluster c = new TestCluster(cluster(3, "batch.maxMessages = 4\n"), 1);
        c.run(100);
        c.sent.clear();
        for (int i = 0; i < 10; i++) {
            c.propose(1, new int[] {1}, payload(i, 20));
        }
        c.run(50);
        List<Integer> batchSizes = launchedBatches(c);
        assertEquals(1, batchSizes.get(0), "the first proposal should go out at once, not wait for a batch");
        assertTrue(batchSizes.stream().allMatch(n -> n <= 4), "batches should respect batch.maxMessages: " + batchSizes);
        assertEquals(10, batchSizes.stream().mapToInt(Integer::intValue).sum(), "every proposal in exactly one batch");
        assertEquals(10, c.deliveriesAt(2).size());
        assertTrue(Arrays.stream(new int[] {1, 2, 3}).allMatch(n -> c.deliveriesAt(n).size() == 10));
    }

    /** Sizes of the batches ring 1's coordinator launched (first hop of each Accept), in launch order. */
    private static List<Integer> launchedBatches(TestCluster c) {
        return launches(c).stream().map(l -> (int) l[1]).toList();
    }

    /** Launch time (ms) and size of each batch ring 1's coordinator launched (first hop of each Accept), in order. */
    private static List<long[]> launches(TestCluster c) {
        return c.sent.stream()
                .filter(s -> s.message() instanceof Accept a && a.hop() == 1 && a.ring() == 1)
                .filter(s -> RingValue.decode(((Accept) s.message()).value()) instanceof RingValue.Batch)
                .map(s -> new long[] {s.at(), ((RingValue.Batch) RingValue.decode(((Accept) s.message()).value())).proposals().size()})
                .toList();
    }

    /** One proposal per millisecond for 60 ms to a ring whose instances take several ms to decide. */
    private static List<Integer> batchesUnderSteadyLoad(String extra) {
        TestCluster c = new TestCluster(cluster(3, extra), 2);
        c.run(100);
        c.sent.clear();
        for (int i = 0; i < 60; i++) {
            c.propose(2, new int[] {1}, payload(i, 20));
            c.run(1);
        }
        c.run(100);
        for (int n = 1; n <= 3; n++) {
            assertEquals(60, c.deliveriesAt(n).size(), "every proposal delivered at node " + n);
        }
        return launchedBatches(c);
    }

    @Test
    void batching_partialBatchesWaitBehindTheInstancesInFlight() {
        List<Integer> eager = batchesUnderSteadyLoad("ring.partialBatchesInFlight = 64\n");
        List<Integer> gathered = batchesUnderSteadyLoad("ring.partialBatchesInFlight = 1\n");
        assertEquals(60, eager.size(), "with 64 partial batches allowed in flight every proposal is its own instance: " + eager);
        assertEquals(1, gathered.get(0), "an idle ring launches the first proposal at once: " + gathered);
        assertTrue(gathered.size() <= 60 / 3, "behind one instance in flight, proposals gather into fuller batches: " + gathered);
        assertEquals(60, gathered.stream().mapToInt(Integer::intValue).sum(), "every proposal in exactly one batch");
    }

    /** Launch times (ms) of ring 1's batches, with their sizes, for one proposal per ms at node 1 (the coordinator). */
    private static List<long[]> launchesUnderLightLoad(String extra, int proposals) {
        TestCluster c = new TestCluster(cluster(3, extra), 1);
        c.run(100);
        c.sent.clear();
        for (int i = 0; i < proposals; i++) {
            c.propose(1, new int[] {1}, payload(i, 20));
            c.run(1);
        }
        c.run(100);
        for (int n = 1; n <= 3; n++) {
            assertEquals(proposals, c.deliveriesAt(n).size(), "every proposal delivered at node " + n);
        }
        return launches(c);
    }

    @Test
    void batching_aPartialBatchLingersForCompany_andTheTickIsDueWhenItsLingerEnds() {
        // ADR 087. With room for 64 partial batches in flight every proposal goes alone at once
        List<long[]> eager = launchesUnderLightLoad("ring.partialBatchesInFlight = 64\n", 40);
        assertEquals(40, eager.size(), "without a linger every proposal is its own instance");
        // with ring.lingerMillis = 5 the first proposal waits 5 ms and takes the ones that came meanwhile along
        List<long[]> lingered = launchesUnderLightLoad("ring.partialBatchesInFlight = 64\nring.lingerMillis = 5\n", 40);
        long start = lingered.get(0)[0];
        assertTrue(lingered.size() <= 40 / 5 + 1, "batches of about five: " + lingered.stream().map(l -> l[1]).toList());
        assertEquals(40, lingered.stream().mapToLong(l -> l[1]).sum(), "every proposal in exactly one batch");
        for (int i = 1; i < lingered.size(); i++) {
            assertTrue(lingered.get(i)[0] - lingered.get(i - 1)[0] >= 5,
                    "launches at least the linger apart: " + lingered.stream().map(l -> l[0] - start).toList());
        }
        // a full batch does not linger
        TestCluster full = new TestCluster(cluster(3, "batch.maxMessages = 4\nring.lingerMillis = 50\n"), 1);
        full.run(100);
        full.sent.clear();
        for (int i = 0; i < 4; i++) {
            full.propose(1, new int[] {1}, payload(i, 20));
        }
        full.run(1);
        assertEquals(List.of(4), launchedBatches(full), "a full batch goes out at once");
        // the runtime sleeps until nextTickMillis: it must name the linger's end, not the next heartbeat
        TestCluster idle = new TestCluster(cluster(3, "ring.lingerMillis = 7\n"), 1);
        idle.run(100);
        long proposed = idle.now;
        idle.propose(1, new int[] {1}, payload(0, 20));
        idle.run(1); // the proposal reaches the coordinator's queue in the node's turn
        assertEquals(List.of(), launchedBatches(idle), "the proposal lingers");
        long next = idle.nodes.get(1).nextTickMillis();
        assertTrue(next <= proposed + 7, "the tick that launches the lingering batch is due by its end: in "
                + (next - idle.now) + " ms");
    }

    @Test
    void batching_fullBatchesDoNotWaitForPartialOnesInFlight() {
        TestCluster c = new TestCluster(cluster(3, "batch.maxMessages = 4\nring.partialBatchesInFlight = 1\n"), 1);
        c.run(100);
        c.sent.clear();
        c.propose(1, new int[] {1}, payload(0, 20));
        c.run(1);
        long start = c.now;
        for (int i = 1; i <= 18; i++) {
            c.propose(1, new int[] {1}, payload(i, 20));
        }
        c.run(1);
        List<Long> launchTimes = c.sent.stream()
                .filter(s -> s.message() instanceof Accept a && a.hop() == 1 && a.ring() == 1).map(TestCluster.Sent::at).toList();
        assertEquals(List.of(1, 4, 4, 4, 4), launchedBatches(c), "four full batches join the partial one in flight; two proposals wait");
        assertTrue(launchTimes.subList(1, launchTimes.size()).stream().allMatch(t -> t <= start), "full batches go out at once: " + launchTimes);
        c.run(50);
        assertEquals(List.of(1, 4, 4, 4, 4, 2), launchedBatches(c), "the rest goes once the ring has room for a partial batch");
        assertEquals(19, c.deliveriesAt(3).size());
    }

    @Test
    void batching_closesAtTargetBytes_andALargerProposalGoesAlone() {
        TestCluster c = new TestCluster(cluster(3,
                "batch.maxBytes = 65536\nbatch.targetBytes = 8192\nring.partialBatchesInFlight = 1\n"), 1);
        c.run(100);
        c.sent.clear();
        c.propose(1, new int[] {1}, payload(0, 20));
        c.run(1);
        for (int i = 1; i <= 20; i++) {
            c.propose(1, new int[] {1}, payload(i, 2000));
        }
        c.propose(1, new int[] {1}, payload(21, 20_000));
        c.run(100);
        List<byte[]> values = c.sent.stream()
                .filter(s -> s.message() instanceof Accept a && a.hop() == 1 && a.ring() == 1)
                .map(s -> ((Accept) s.message()).value())
                .filter(v -> RingValue.decode(v) instanceof RingValue.Batch)
                .toList();
        List<Integer> sizes = values.stream().map(v -> ((RingValue.Batch) RingValue.decode(v)).proposals().size()).toList();
        List<Integer> bytes = values.stream().map(v -> v.length).toList();
        for (int i = 0; i < values.size(); i++) {
            boolean large = bytes.get(i) > 8192;
            assertTrue(!large || sizes.get(i) == 1,
                    "only a single proposal larger than batch.targetBytes may exceed it: sizes " + sizes + ", bytes " + bytes);
        }
        assertTrue(bytes.stream().anyMatch(b -> b > 20_000), "the 20,000-byte proposal fits batch.maxBytes and goes: " + bytes);
        assertTrue(sizes.stream().filter(n -> n > 1).count() >= 4,
                "twenty 2,000-byte proposals take several batches of at most 8 KiB: sizes " + sizes + ", bytes " + bytes);
        assertEquals(22, sizes.stream().mapToInt(Integer::intValue).sum(), "every proposal in exactly one batch");
        for (int n = 1; n <= 3; n++) {
            assertEquals(22, c.deliveriesAt(n).size(), "every proposal delivered at node " + n);
        }
    }

    /**
     * A busy ring whose last hop is slow (node 2 to node 3 takes 12 ms, the other links 3 ms), with
     * nothing lost: node 1's heartbeats tell node 3 of decisions whose values are still on their way
     * to it, which is no reason to fetch them. Before ADR 045 node 3 fetched them (and with values over
     * half of batch.maxBytes, chained fetch after fetch), taking every value twice.
     */
    @Test
    void catchUp_busyRingWithASlowHopAndNoLoss_fetchesNothing() {
        TestCluster c = new TestCluster(cluster(3, "batch.maxBytes = 2048\n"), 3);
        c.slowLinks = (from, to) -> from == 2 && to == 3 ? 9L : 0L;
        c.run(100);
        c.sent.clear();
        for (int i = 0; i < 100; i++) {
            c.propose(1, new int[] {1}, payload(i, 1200));
            c.run(4);
        }
        c.run(200);
        for (int n = 1; n <= 3; n++) {
            assertEquals(100, c.deliveriesAt(n).size(), "every proposal delivered at node " + n);
        }
        List<TestCluster.Sent> fetches = c.sent.stream().filter(s -> s.message() instanceof Message.Fetch).toList();
        assertEquals(List.of(), fetches.stream().map(s -> s.from() + "->" + s.to() + "@" + s.at()).toList(),
                "no value was lost, so no node should fetch one");
    }

    /** The other side: a lost Accept is still fetched, by the learner that lacks it. */
    @Test
    void catchUp_lostAcceptOnABusyRing_isFetched() {
        TestCluster c = new TestCluster(cluster(3, "batch.maxBytes = 2048\n"), 3);
        c.run(100);
        c.sent.clear();
        boolean[] dropped = {false};
        c.drop = s -> {
            if (!dropped[0] && s.to() == 3 && s.message() instanceof Accept a && a.ring() == 1 && a.instance() >= 40) {
                dropped[0] = true;
                return true;
            }
            return false;
        };
        for (int i = 0; i < 100; i++) {
            c.propose(1, new int[] {1}, payload(i, 1200));
            c.run(4);
        }
        c.run(300);
        assertTrue(dropped[0], "the test should have dropped an Accept");
        for (int n = 1; n <= 3; n++) {
            assertEquals(100, c.deliveriesAt(n).size(), "every proposal delivered at node " + n);
        }
        List<Long> fetchTimes = c.sent.stream().filter(s -> s.message() instanceof Message.Fetch).map(TestCluster.Sent::at).toList();
        assertTrue(c.sent.stream().anyMatch(s -> s.message() instanceof Message.Fetch && s.from() == 3),
                "node 3 should have fetched what it lost");
        // Once it has the lost value, the values behind it come through the ring as before. Before ADR 045
        // each page of one large value counted as full and node 3 chained fetch after fetch to the end of
        // the load, taking every later value twice.
        assertTrue(fetchTimes.size() <= 3, "fetches at " + fetchTimes);
        NodeStatus st = c.nodes.get(3).status();
        assertTrue(st.fetchesSent() >= 1 && st.fetchesSent() <= 3 && st.fetchedValueBytes() >= 1200,
                "node 3's counters: " + st.fetchesSent() + " fetches, " + st.fetchedValueBytes() + " bytes");
        assertEquals(0, c.nodes.get(2).status().fetchesSent(), "node 2 lost nothing");
    }

    @Test
    void batchTargetBytes_belowOneKilobyte_isRefused() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ClusterConfig.parse(cluster(3, "batch.targetBytes = 100\n"), "t"));
        assertTrue(e.getMessage().contains("batch.targetBytes"), e.getMessage());
    }

    @Test
    void coordinatorFailover_phase1InPages_recoversEveryUndecidedInstance() {
        // every proposal its own instance, all launched although none is ever decided here
        TestCluster c = new TestCluster(cluster(5, "ring.phase1Range = 5\nring.partialBatchesInFlight = 64\n"), 1);
        // Only acceptor 3 (the third hop, completing the quorum of 3) learns the decisions, and
        // node 2 never hears from it: node 2 knows of no decision at all.
        c.drop = s -> s.message() instanceof Decision || s.message() instanceof Message.Fetch
                || s.message() instanceof Message.Learned || (s.message() instanceof Accept a && a.decided())
                || (s.from() == 3 && s.to() == 2);
        c.run(100);
        for (int i = 0; i < 30; i++) {
            c.propose(1, new int[] {1}, new byte[] {(byte) i});
            c.run(2);
        }
        c.run(50);
        c.crash(1);
        c.run(400);
        c.drop = s -> false;
        c.run(300);
        long pages = c.sent.stream().filter(s -> s.from() == 2 && s.message() instanceof Message.Phase1a)
                .map(s -> ((Message.Phase1a) s.message()).fromInstance()).distinct().count();
        assertTrue(pages >= 6, "30 instances in pages of 5 need at least 6 Phase 1 pages, saw " + pages);
        for (int n = 2; n <= 5; n++) {
            List<Delivery> d = c.deliveriesAt(n);
            assertEquals(30, d.size(), "node " + n + " should deliver each of the 30 messages once");
            for (int i = 0; i < 30; i++) {
                assertEquals(i, d.get(i).payload()[0], "node " + n + " delivery " + i);
            }
        }
    }
}
