package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Early exchanges are buffered up to a bound; stale ones are dropped; the executing command always gets its own. */
class ExchangeInboxTest {

    private static Wire.Exchange signal(long position, int from) {
        return new Wire.Exchange(position, 0, from, 1, List.of());
    }

    @Test
    void earlyExchangesAreBufferedUpToTheBoundAndTheExecutingCommandIsNeverRefused() throws Exception {
        ExchangeInbox inbox = new ExchangeInbox(2);
        assertTrue(inbox.offer(signal(10, 2)));
        assertTrue(inbox.offer(signal(11, 2)));
        assertFalse(inbox.offer(signal(12, 2)), "a third future position exceeds the bound of 2");
        inbox.begin(12);
        assertTrue(inbox.offer(signal(12, 2)), "the command being executed is always accepted");
        assertNotNull(inbox.await(12, 2, 0, System.nanoTime()));
        assertTrue(inbox.arrivedEarly(10));
        assertEquals(1, inbox.dropped());
    }

    @Test
    void whenFullANearerCommandsExchangeTakesTheFurthestOnesPlaceAndTheDroppedOneIsAskedForAtOnce() throws Exception {
        ExchangeInbox inbox = new ExchangeInbox(2);
        assertTrue(inbox.offer(signal(10, 2)));
        assertTrue(inbox.offer(signal(20, 2)));
        assertTrue(inbox.offer(signal(15, 2)), "15 is needed before 20: it takes 20's place");
        assertNotNull(inbox.peek(15, 2, 0));
        assertNull(inbox.peek(20, 2, 0));
        assertTrue(inbox.wasDropped(20), "the executor asks for 20 without waiting a timeout");
        assertFalse(inbox.offer(signal(30, 2)), "30 is further than anything held: dropped");
        assertTrue(inbox.wasDropped(30));
        assertEquals(2, inbox.dropped());
        inbox.finish(25);
        assertFalse(inbox.wasDropped(20), "finished positions are forgotten");
        assertTrue(inbox.wasDropped(30));
    }

    /**
     * Continuations run oldest first: behind one waiting for a lost round, the later deferred commands' rounds
     * arrive and are retained. They may fill the bound, and the executing command holds its place too; the
     * answer to an ask for the oldest one's round must still get in (it used to be dropped at every ask, and the
     * replica waited for good), and early exchanges still have the whole bound.
     */
    @Test
    void aRetainedPositionsRoundGetsInWhenRetainedOnesFillTheBound() throws Exception {
        ExchangeInbox inbox = new ExchangeInbox(2);
        inbox.begin(1);
        inbox.retain(1); // deferred, its round lost on the way
        inbox.finish(1);
        for (long p = 2; p <= 3; p++) {
            inbox.begin(p);
            assertTrue(inbox.offer(signal(p, 2)));
            inbox.retain(p); // deferred behind position 1, its round in
            inbox.finish(p);
        }
        inbox.begin(4);
        assertTrue(inbox.offer(signal(4, 2)));
        assertTrue(inbox.offer(new Wire.Exchange(1, 1, 2, 1, List.of())), "the round asked for again gets in");
        assertNotNull(inbox.await(1, 2, 1, System.nanoTime()));
        assertFalse(inbox.wasDropped(1));
        assertTrue(inbox.offer(signal(5, 2)), "retained positions leave the bound to early ones");
        assertFalse(inbox.offer(signal(6, 2)), "the bound of 2 counts the executing position and 5");
        assertEquals(5, inbox.buffered());
        for (long p = 1; p <= 3; p++) {
            inbox.release(p);
        }
        inbox.finish(4);
        assertEquals(1, inbox.buffered(), "released and finished positions are forgotten");
        assertNull(inbox.peek(2, 2, 0));
    }

    @Test
    void exchangesForFinishedCommandsAreStale() throws Exception {
        ExchangeInbox inbox = new ExchangeInbox(8);
        inbox.offer(signal(5, 2));
        inbox.finish(7);
        assertNull(inbox.peek(5, 2, 0), "finishing position 7 forgets position 5");
        assertFalse(inbox.offer(signal(6, 3)), "position 6 is behind the replica");
        assertEquals(0, inbox.buffered());
    }

    @Test
    void awaitReturnsNullAtTheDeadlineSoTheReplicaCanAskAgain() throws Exception {
        ExchangeInbox inbox = new ExchangeInbox(8);
        inbox.begin(3);
        assertNull(inbox.await(3, 2, 0, System.nanoTime() + 5_000_000));
    }

    @Test
    void aSecondCopyAndACopyAfterTheCommandFinishedCountAsRedundant() {
        ExchangeInbox inbox = new ExchangeInbox(8);
        assertTrue(inbox.offer(signal(5, 2)));
        assertEquals(0, inbox.redundant());
        inbox.offer(signal(5, 2));
        assertEquals(1, inbox.redundant(), "the designated sender's copy and an ask's answer: one is redundant");
        inbox.offer(signal(5, 3));
        assertEquals(1, inbox.redundant(), "another partition's exchange of the same command is not a copy");
        inbox.finish(5);
        inbox.offer(signal(5, 2));
        assertEquals(2, inbox.redundant(), "a copy after the command finished");
    }

    /**
     * Random offers, retains, releases and finishes against the inbox's contract written out plainly:
     * finishing a position forgets every exchange at or below it that is not retained, and a retained
     * position keeps (and takes) its exchanges until released. {@code finish} looks only at the newly
     * finished positions (it runs per command); this checks it forgets and keeps the same ones.
     */
    @Test
    void finishForgetsExactlyTheFinishedPositionsThatAreNotRetained() {
        for (long seed = 1; seed <= 200; seed++) {
            java.util.Random random = new java.util.Random(seed);
            ExchangeInbox inbox = new ExchangeInbox(1_000);
            java.util.Map<Long, java.util.Set<Long>> held = new java.util.HashMap<>();
            java.util.Set<Long> retained = new java.util.HashSet<>();
            java.util.Set<Long> early = new java.util.HashSet<>();
            long finished = Long.MIN_VALUE;
            long executing = Long.MIN_VALUE;
            long next = 1;
            for (int step = 0; step < 400; step++) {
                long p = Math.max(1, next - 6 + random.nextInt(12));
                int op = random.nextInt(10);
                String at = "seed " + seed + " step " + step;
                if (op < 4) {
                    int from = 1 + random.nextInt(3);
                    int round = random.nextInt(2);
                    boolean expected = p > finished || retained.contains(p);
                    assertEquals(expected, inbox.offer(new Wire.Exchange(p, round, from, 1, List.of())), at + " offer " + p);
                    if (expected) {
                        held.computeIfAbsent(p, k -> new java.util.HashSet<>()).add(ExchangeInbox.key(from, round));
                        if (p != executing) {
                            early.add(p);
                        }
                    }
                } else if (op == 4) {
                    inbox.retain(p);
                    retained.add(p);
                } else if (op == 5) {
                    inbox.release(p);
                    if (retained.remove(p) && p <= finished) {
                        held.remove(p);
                    }
                } else if (op == 6) {
                    inbox.begin(next);
                    executing = next;
                } else {
                    long f = random.nextInt(8) == 0 ? Math.max(1, next - 3) : next++;
                    inbox.finish(f);
                    finished = Math.max(finished, f);
                    held.keySet().removeIf(q -> q <= f && !retained.contains(q));
                    early.removeIf(q -> q <= f);
                    executing = Long.MIN_VALUE;
                }
                assertEquals(held.size(), inbox.buffered(), at + " positions held");
                for (long q = Math.max(1, next - 10); q <= next + 8; q++) {
                    assertEquals(early.contains(q), inbox.arrivedEarly(q), at + " early " + q);
                    for (int from = 1; from <= 3; from++) {
                        for (int round = 0; round < 2; round++) {
                            java.util.Set<Long> keys = held.get(q);
                            boolean has = keys != null && keys.contains(ExchangeInbox.key(from, round));
                            assertEquals(has, inbox.peek(q, from, round) != null, at + " exchange " + q + "/" + from + "/" + round);
                        }
                    }
                }
            }
        }
    }
}
