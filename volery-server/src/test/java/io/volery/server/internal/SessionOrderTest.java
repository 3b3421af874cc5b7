package io.volery.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The front end's per-session order ({@link SessionOrder}) against the replicas' order check: the
 * test plays the ring, delivering the copies the front end sent in an order it chooses, and runs the
 * same check the replicas run (a pipelined request that arrives before the one it follows is refused
 * untouched).
 */
class SessionOrderTest {
    /** The partition of the front end's own node. */
    private static final int LOCAL = 1;
    private static final int[] ONE = {1};
    private static final int[] TWO = {2};
    private static final int[] BOTH = {1, 2};
    /** Several partitions, not this node's. */
    private static final int[] OTHERS = {2, 3};
    /**
     * A top-level create or delete (or a write of the root): to both partitions, but not placed on delivery (a
     * partition may finish it after the commands behind it, ADR 083); told apart from {@link #BOTH} by identity.
     */
    private static final int[] TOP_LEVEL = {1, 2};
    /** How many partitions the cluster has: {@link #BOTH} goes to every one. */
    private static final int PARTITIONS = 2;

    /**
     * What the front end handed to the ring and what the replicas did with it. The front end's node holds
     * a replica of partition 1 ({@link #LOCAL}): delivering a copy that went there tells the front end,
     * as the node's replica would.
     */
    private static final class Ring {
        final List<Copy> inFlight = new ArrayList<>();
        final List<Long> applied = new ArrayList<>();
        /** Requests whose answers the test releases itself (their other partitions are slow). */
        final java.util.Map<Long, CompletableFuture<Object>> heldAnswers = new java.util.HashMap<>();
        final java.util.Set<Long> holdAnswersOf = new java.util.HashSet<>();
        long lastSeq;
        int sends;
        /** Whether the node's replica tells the front end of its deliveries (false: a front end without one). */
        boolean tellsDeliveries = true;

        record Copy(long seq, long after, CompletableFuture<Object> answer, Runnable deliveredHere) {
        }

        CompletableFuture<Object> execute(VoleryRequest r, Runnable deliveredHere) {
            CompletableFuture<Object> answer = new CompletableFuture<>();
            inFlight.add(new Copy(r.seq, r.after, answer, deliveredHere));
            sends++;
            return answer;
        }

        /** Orders and runs the copy of {@code seq} in flight (the replicas' check of VoleryStateMachine). */
        void deliver(long seq) {
            for (int i = 0; i < inFlight.size(); i++) {
                if (inFlight.get(i).seq() == seq) {
                    deliverAt(i);
                    return;
                }
            }
            throw new AssertionError("no copy of request " + seq + " in flight: " + inFlight);
        }

        void deliverAt(int i) {
            Copy c = inFlight.remove(i);
            if (c.after() != 0 && lastSeq < c.after()) {
                c.answer().complete(VoleryStateMachine.REORDERED);
                return;
            }
            lastSeq = Math.max(lastSeq, c.seq());
            applied.add(c.seq());
            if (c.deliveredHere() != null && tellsDeliveries) {
                c.deliveredHere().run();
            }
            if (holdAnswersOf.contains(c.seq())) {
                heldAnswers.put(c.seq(), c.answer());
            } else {
                c.answer().complete(new byte[] {(byte) c.seq()});
            }
        }

        void releaseAnswer(long seq) {
            heldAnswers.remove(seq).complete(new byte[] {(byte) seq});
        }

        long inFlightCount(long fromSeq, long toSeq) {
            return inFlight.stream().filter(c -> c.seq() >= fromSeq && c.seq() <= toSeq).count();
        }
    }

    private static List<CompletableFuture<byte[]>> submit(SessionOrder order, Ring ring, int[]... destinations) {
        List<CompletableFuture<byte[]>> replies = new ArrayList<>();
        for (int[] d : destinations) {
            replies.add(order.submit(d, d.length > 1 && d != TOP_LEVEL, new VoleryRequest(), ring::execute,
                    answer -> CompletableFuture.completedFuture((byte[]) answer)));
        }
        return replies;
    }

    private static int[][] times(int n, int[] destinations) {
        int[][] all = new int[n][];
        java.util.Arrays.fill(all, destinations);
        return all;
    }

    @Test
    void afterALostProposalTheRefusedTailOfThePipelineGoesOutAgainAtOnceAndRunsInOrder() {
        AtomicLong resends = new AtomicLong();
        SessionOrder order = new SessionOrder(resends, LOCAL, PARTITIONS);
        Ring ring = new Ring();
        List<CompletableFuture<byte[]>> replies = submit(order, ring, times(25, ONE));
        assertEquals(25, ring.inFlight.size(), "pipelined requests all go out at once");

        // request 1's proposal was lost and is retransmitted later: 2..25 are ordered first
        for (long seq = 2; seq <= 25; seq++) {
            ring.deliver(seq);
        }
        assertTrue(ring.applied.isEmpty(), "nothing may run before request 1: " + ring.applied);
        assertEquals(24, resends.get(), "refusals");
        assertEquals(1, ring.inFlight.size(), "the refused requests wait for request 1 before going out again");

        ring.deliver(1);
        assertEquals(24, ring.inFlightCount(2, 25),
                "once request 1 ran, the whole refused tail is in flight again (not one request per round trip)");
        for (long seq = 2; seq <= 25; seq++) {
            ring.deliver(seq);
        }
        assertEquals(LongStream.rangeClosed(1, 25).boxed().toList(), ring.applied, "the session's order");
        for (int i = 0; i < 25; i++) {
            assertEquals(i + 1, replies.get(i).join()[0], "reply to request " + (i + 1));
        }
        assertEquals(49, ring.sends, "25 sends and 24 resends");
    }

    @Test
    void aResentRequestLostAgainHoldsBackOnlyTheRequestsBehindIt() {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring ring = new Ring();
        submit(order, ring, times(10, ONE));
        for (long seq = 2; seq <= 10; seq++) {
            ring.deliver(seq); // refused: 1 is late
        }
        ring.deliver(1);
        // the resent copy of 5 is late this time
        for (long seq : new long[] {2, 3, 4, 6, 7, 8, 9, 10}) {
            ring.deliver(seq);
        }
        assertEquals(List.of(1L, 2L, 3L, 4L), ring.applied);
        assertEquals(1, ring.inFlight.size(), "6..10 wait for 5: " + ring.inFlight);
        ring.deliver(5);
        assertEquals(5, ring.inFlightCount(6, 10), "6..10 out again at once");
        for (long seq = 6; seq <= 10; seq++) {
            ring.deliver(seq);
        }
        assertEquals(LongStream.rangeClosed(1, 10).boxed().toList(), ring.applied);
    }

    @Test
    void aRequestForOtherPartitionsWaitsForTheAnswersBeforeIt() {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring ring = new Ring();
        List<CompletableFuture<byte[]>> replies = submit(order, ring, ONE, ONE, BOTH, TWO);
        assertEquals(2, ring.inFlight.size(), "the request to both partitions is not sent before 1 and 2 are answered");
        ring.deliver(1);
        assertEquals(1, ring.inFlight.size());
        ring.deliver(2);
        assertEquals(1, ring.inFlight.size(), "now request 3 (both partitions) is out, and 4 (partition 2, not this "
                + "node's) waits for its answer");
        assertEquals(0, ring.inFlight.get(0).after(), "a request to several partitions is never pipelined");
        ring.deliver(3);
        ring.deliver(4);
        assertEquals(List.of(1L, 2L, 3L, 4L), ring.applied);
        replies.forEach(CompletableFuture::join);
    }

    @Test
    void aRequestToAPartitionTheOneBeforeDidNotGoToWaitsForItsAnswer() {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring ring = new Ring();
        List<CompletableFuture<byte[]>> replies = submit(order, ring, TWO, ONE, ONE);
        assertEquals(1, ring.inFlight.size(), "request 2 (partition 1) waits for request 1 (partition 2)");
        ring.deliver(1);
        assertEquals(2, ring.inFlight.size(), "then 2 goes out, and 3 (partition 1 again) is pipelined behind it");
        assertEquals(2, ring.inFlight.get(1).after());
        ring.deliver(2);
        ring.deliver(3);
        assertEquals(List.of(1L, 2L, 3L), ring.applied);
        replies.forEach(CompletableFuture::join);
    }

    /**
     * ADR 041: behind a request to several partitions, requests to this node's partition go out once this
     * node's replica delivered it, not once it is answered; they still name it.
     */
    @Test
    void requestsToThisNodesPartitionGoOutOnceTheMultiPartitionRequestBeforeThemIsDeliveredHere() {
        AtomicLong resends = new AtomicLong();
        SessionOrder order = new SessionOrder(resends, LOCAL, PARTITIONS);
        Ring ring = new Ring();
        ring.holdAnswersOf.add(1L); // request 1 waits for its other partition's part
        List<CompletableFuture<byte[]>> replies = submit(order, ring, BOTH, ONE, ONE, BOTH, ONE);
        assertEquals(1, ring.inFlight.size(), "2 and 3 wait until request 1 has its place here: " + ring.inFlight);

        ring.deliver(1);
        assertFalse(replies.get(0).isDone(), "request 1 is delivered here but not answered");
        assertEquals(2, ring.inFlightCount(2, 3), "2 and 3 (partition 1) out once request 1 was delivered here");
        assertEquals(1, ring.inFlight.get(0).after(), "request 2 names request 1");
        assertEquals(2, ring.inFlight.get(1).after(), "request 3 names request 2");
        ring.deliver(2);
        ring.deliver(3);
        assertEquals(List.of(1L, 2L, 3L), ring.applied);
        // ADR 076: request 4 (both partitions) needs 2 and 3 answered and 1 delivered here, not answered
        assertEquals(1, ring.inFlightCount(4, 4), "request 4 is out although request 1 is not answered");
        assertEquals(0, ring.inFlight.get(0).after(), "a request to several partitions names nothing to follow");
        assertEquals(0, ring.inFlightCount(5, 5), "request 5 waits until 4 is delivered here");

        ring.releaseAnswer(1);
        ring.deliver(4);
        ring.deliver(5);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), ring.applied);
        assertEquals(0, resends.get(), "nothing was refused");
        for (int i = 0; i < 5; i++) {
            assertEquals(i + 1, replies.get(i).join()[0], "reply to request " + (i + 1));
        }
    }

    @Test
    void behindAMultiPartitionRequestARequestForAnotherNodesPartitionOrWithoutDeliveryNewsWaitsForTheAnswer() {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring ring = new Ring();
        ring.holdAnswersOf.add(1L);
        submit(order, ring, BOTH, TWO);
        ring.deliver(1);
        assertEquals(0, ring.inFlight.size(), "partition 2 is not this node's: no delivery news from it");
        ring.releaseAnswer(1);
        assertEquals(0, ring.inFlight.get(0).after());

        SessionOrder silent = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring noNews = new Ring();
        noNews.tellsDeliveries = false; // this node's replica does not tell (not observed)
        noNews.holdAnswersOf.add(1L);
        submit(silent, noNews, BOTH, ONE);
        noNews.deliver(1);
        assertEquals(0, noNews.inFlight.size(), "without delivery news request 2 waits for the answer");
        noNews.releaseAnswer(1);
        assertEquals(1, noNews.inFlight.size());
        noNews.deliver(2);
        assertEquals(List.of(1L, 2L), noNews.applied);
    }

    /**
     * ADR 076: a request to several partitions goes out once the ones before it were delivered here or
     * answered; requests to this node's partition alone must be answered first (a pipelined one may still
     * be refused), and so must a request to another node's partition or to partitions without this one.
     */
    @Test
    void aMultiPartitionRequestGoesOutOnceTheMultiPartitionRequestsBeforeItWereDeliveredHere() {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring ring = new Ring();
        ring.holdAnswersOf.addAll(List.of(1L, 2L, 3L));
        List<CompletableFuture<byte[]>> replies = submit(order, ring, BOTH, BOTH, BOTH);
        assertEquals(1, ring.sends, "request 2 waits for request 1 to have its place");
        ring.deliver(1);
        assertEquals(2, ring.sends, "request 2 out once request 1 was delivered here, unanswered");
        ring.deliver(2);
        assertEquals(3, ring.sends);
        assertEquals(0, ring.inFlight.get(0).after());
        ring.deliver(3);
        assertEquals(List.of(1L, 2L, 3L), ring.applied);
        assertFalse(replies.get(0).isDone());
        ring.releaseAnswer(3);
        ring.releaseAnswer(1);
        ring.releaseAnswer(2);
        for (int i = 0; i < 3; i++) {
            assertEquals(i + 1, replies.get(i).join()[0]);
        }

        assertAMultiPartitionRequestWaitsForTheAnswerBehind(ONE, "a request to this node's partition alone");
        assertAMultiPartitionRequestWaitsForTheAnswerBehind(OTHERS, "a request this node's replica does not receive");
    }

    private static void assertAMultiPartitionRequestWaitsForTheAnswerBehind(int[] first, String what) {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
        Ring ring = new Ring();
        ring.holdAnswersOf.add(1L);
        submit(order, ring, first, BOTH);
        ring.deliver(1);
        assertEquals(0, ring.inFlight.size(), "behind " + what + ": wait for its answer");
        ring.releaseAnswer(1);
        assertEquals(1, ring.inFlight.size());
    }

    /**
     * ADR 083: a top-level create or delete may finish in a partition after the commands behind it there, so
     * another session could see the next request and then, in a partition that had not ordered the change yet,
     * miss the change. Whatever follows it waits for its answer: a request to this node's partition, a multi.
     */
    @Test
    void behindATopLevelChangeEveryRequestWaitsForItsAnswer() {
        for (int[] next : new int[][] {ONE, BOTH, TOP_LEVEL}) {
            SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
            Ring ring = new Ring();
            ring.holdAnswersOf.add(1L);
            List<CompletableFuture<byte[]>> replies = submit(order, ring, TOP_LEVEL, next);
            assertEquals(1, ring.inFlight.size());
            assertEquals(null, ring.inFlight.get(0).deliveredHere(), "no delivery news is asked for");
            ring.deliver(1);
            assertEquals(0, ring.inFlight.size(), "delivered here, unanswered: request 2 (" + next.length
                    + " partitions) waits");
            ring.releaseAnswer(1);
            assertEquals(1, ring.inFlight.size(), "out once request 1 is answered");
            assertEquals(0, ring.inFlight.get(0).after(), "and it names nothing to follow");
            ring.deliver(2);
            assertEquals(List.of(1L, 2L), ring.applied);
            assertEquals(2, replies.get(1).join()[0]);
        }
    }

    /**
     * ADR 083: a multi-partition request goes out behind delivered ones only if it goes to every partition (then
     * it runs nowhere before each of theirs delivered it); a request to this node's partition alone still goes
     * out behind a multi to some of them, which runs here only once all of its own delivered it.
     */
    @Test
    void behindAMultiToSomePartitionsOnlyThisNodesPartitionOrEveryPartitionGoesOutOnDelivery() {
        SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, 3);
        Ring ring = new Ring();
        ring.holdAnswersOf.addAll(List.of(1L, 2L));
        submit(order, ring, BOTH, ONE, BOTH, new int[] {1, 2, 3});
        ring.deliver(1);
        assertEquals(1, ring.inFlightCount(2, 2), "partition 1 alone: out once request 1 was delivered here");
        ring.deliver(2);
        assertEquals(0, ring.inFlightCount(3, 3), "to two of three partitions: waits for the answers");
        ring.releaseAnswer(1);
        ring.releaseAnswer(2);
        assertEquals(1, ring.inFlightCount(3, 3));
        ring.holdAnswersOf.add(3L);
        ring.deliver(3);
        assertEquals(1, ring.inFlightCount(4, 4), "to every partition: out once request 3 was delivered here");
        ring.releaseAnswer(3);
        ring.deliver(4);
        assertEquals(List.of(1L, 2L, 3L, 4L), ring.applied);
    }

    /**
     * Any delivery order the ring may pick: every request runs once, in the session's order, and every
     * request is answered.
     */
    @Test
    void inAnyDeliveryOrderEveryRequestRunsOnceInTheSessionsOrder() {
        for (long seed = 1; seed <= 500; seed++) {
            Random random = new Random(seed);
            SessionOrder order = new SessionOrder(new AtomicLong(), LOCAL, PARTITIONS);
            Ring ring = new Ring();
            int n = 5 + random.nextInt(40);
            int[][] destinations = new int[n][];
            for (int i = 0; i < n; i++) {
                int pick = random.nextInt(8);
                destinations[i] = pick == 0 ? BOTH : pick == 1 ? TOP_LEVEL : pick == 2 ? TWO : pick == 3 ? OTHERS : ONE;
            }
            for (int i = 0; i < n; i++) {
                if (destinations[i].length > 1 && random.nextBoolean()) {
                    ring.holdAnswersOf.add((long) i + 1); // its other partition is slow: answered later
                }
            }
            List<CompletableFuture<byte[]>> replies = submit(order, ring, destinations);
            int steps = 0;
            while (!ring.inFlight.isEmpty() || !ring.heldAnswers.isEmpty()) {
                assertTrue(++steps < 100_000, "seed " + seed + ": no progress, in flight " + ring.inFlight);
                if (ring.inFlight.isEmpty() || (!ring.heldAnswers.isEmpty() && random.nextInt(4) == 0)) {
                    List<Long> held = new ArrayList<>(ring.heldAnswers.keySet());
                    ring.releaseAnswer(held.get(random.nextInt(held.size())));
                } else {
                    ring.deliverAt(random.nextInt(ring.inFlight.size()));
                }
            }
            assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), ring.applied, "seed " + seed);
            for (CompletableFuture<byte[]> r : replies) {
                assertTrue(r.isDone(), "seed " + seed + ": a request was never answered");
            }
        }
    }
}
