package io.volery.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    private static final int[] ONE = {1};
    private static final int[] TWO = {2};
    private static final int[] BOTH = {1, 2};

    /** What the front end handed to the ring and what the replicas did with it. */
    private static final class Ring {
        final List<Copy> inFlight = new ArrayList<>();
        final List<Long> applied = new ArrayList<>();
        long lastSeq;
        int sends;

        record Copy(long seq, long after, CompletableFuture<Object> answer) {
        }

        CompletableFuture<Object> execute(VoleryRequest r) {
            CompletableFuture<Object> answer = new CompletableFuture<>();
            inFlight.add(new Copy(r.seq, r.after, answer));
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
            c.answer().complete(new byte[] {(byte) c.seq()});
        }

        long inFlightCount(long fromSeq, long toSeq) {
            return inFlight.stream().filter(c -> c.seq() >= fromSeq && c.seq() <= toSeq).count();
        }
    }

    private static List<CompletableFuture<byte[]>> submit(SessionOrder order, Ring ring, int[]... destinations) {
        List<CompletableFuture<byte[]>> replies = new ArrayList<>();
        for (int[] d : destinations) {
            replies.add(order.submit(d, new VoleryRequest(), ring::execute,
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
        SessionOrder order = new SessionOrder(resends);
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
        SessionOrder order = new SessionOrder(new AtomicLong());
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
        SessionOrder order = new SessionOrder(new AtomicLong());
        Ring ring = new Ring();
        List<CompletableFuture<byte[]>> replies = submit(order, ring, ONE, ONE, BOTH, TWO);
        assertEquals(2, ring.inFlight.size(), "the request to both partitions is not sent before 1 and 2 are answered");
        ring.deliver(1);
        assertEquals(1, ring.inFlight.size());
        ring.deliver(2);
        assertEquals(2, ring.inFlight.size(), "now request 3 (both partitions) is out, and 4 (partition 2) behind it");
        assertEquals(0, ring.inFlight.get(0).after(), "a request to several partitions is never pipelined");
        assertEquals(3, ring.inFlight.get(1).after(), "request 4 went to a partition request 3 went to");
        ring.deliver(3);
        ring.deliver(4);
        assertEquals(List.of(1L, 2L, 3L, 4L), ring.applied);
        replies.forEach(CompletableFuture::join);
    }

    @Test
    void aRequestToAPartitionTheOneBeforeDidNotGoToWaitsForItsAnswer() {
        SessionOrder order = new SessionOrder(new AtomicLong());
        Ring ring = new Ring();
        List<CompletableFuture<byte[]>> replies = submit(order, ring, ONE, TWO, TWO);
        assertEquals(1, ring.inFlight.size(), "request 2 (partition 2) waits for request 1 (partition 1)");
        ring.deliver(1);
        assertEquals(2, ring.inFlight.size(), "then 2 goes out, and 3 (partition 2 again) is pipelined behind it");
        assertEquals(2, ring.inFlight.get(1).after());
        ring.deliver(2);
        ring.deliver(3);
        assertEquals(List.of(1L, 2L, 3L), ring.applied);
        replies.forEach(CompletableFuture::join);
    }

    /**
     * ADR 041: behind a request to several partitions, requests to one of them go out at once instead of
     * waiting for its answer; they name it, so that where their ring orders them first they are refused
     * and sent again once it is answered.
     */
    @Test
    void requestsToOnePartitionArePipelinedBehindARequestThatAlsoWentThere() {
        AtomicLong resends = new AtomicLong();
        SessionOrder order = new SessionOrder(resends);
        Ring ring = new Ring();
        List<CompletableFuture<byte[]>> replies = submit(order, ring, BOTH, ONE, ONE, BOTH);
        assertEquals(3, ring.inFlight.size(), "1 (both partitions), then 2 and 3 (partition 1) out at once: "
                + ring.inFlight);
        assertEquals(1, ring.inFlight.get(1).after(), "request 2 names request 1");
        assertEquals(2, ring.inFlight.get(2).after(), "request 3 names request 2");

        // partition 1's ring orders 2 and 3 before the ALL ring's request 1: both refused
        ring.deliver(2);
        ring.deliver(3);
        assertTrue(ring.applied.isEmpty(), "nothing may run before request 1: " + ring.applied);
        assertEquals(2, resends.get());
        ring.deliver(1);
        assertEquals(2, ring.inFlightCount(2, 3), "2 and 3 out again once request 1 is answered");
        assertEquals(0, ring.inFlightCount(4, 4), "request 4 (both partitions) waits for the answers to 2 and 3");
        ring.deliver(2);
        ring.deliver(3);
        ring.deliver(4);
        assertEquals(List.of(1L, 2L, 3L, 4L), ring.applied);
        for (int i = 0; i < 4; i++) {
            assertEquals(i + 1, replies.get(i).join()[0], "reply to request " + (i + 1));
        }

        // ordered after it, the pipelined ones run without a resend
        ring.applied.clear();
        replies = submit(order, ring, BOTH, ONE, ONE);
        assertEquals(3, ring.inFlight.size());
        ring.deliver(5);
        ring.deliver(6);
        ring.deliver(7);
        assertEquals(List.of(5L, 6L, 7L), ring.applied);
        assertEquals(2, resends.get(), "no resend when the ring orders them after request 5");
        replies.forEach(CompletableFuture::join);
    }

    /**
     * Any delivery order the ring may pick: every request runs once, in the session's order, and every
     * request is answered.
     */
    @Test
    void inAnyDeliveryOrderEveryRequestRunsOnceInTheSessionsOrder() {
        for (long seed = 1; seed <= 500; seed++) {
            Random random = new Random(seed);
            SessionOrder order = new SessionOrder(new AtomicLong());
            Ring ring = new Ring();
            int n = 5 + random.nextInt(40);
            int[][] destinations = new int[n][];
            for (int i = 0; i < n; i++) {
                int pick = random.nextInt(8);
                destinations[i] = pick == 0 ? BOTH : pick == 1 ? TWO : ONE;
            }
            List<CompletableFuture<byte[]>> replies = submit(order, ring, destinations);
            int steps = 0;
            while (!ring.inFlight.isEmpty()) {
                assertTrue(++steps < 100_000, "seed " + seed + ": no progress, in flight " + ring.inFlight);
                ring.deliverAt(random.nextInt(ring.inFlight.size()));
            }
            assertEquals(LongStream.rangeClosed(1, n).boxed().toList(), ring.applied, "seed " + seed);
            for (CompletableFuture<byte[]> r : replies) {
                assertTrue(r.isDone(), "seed " + seed + ": a request was never answered");
            }
        }
    }
}
