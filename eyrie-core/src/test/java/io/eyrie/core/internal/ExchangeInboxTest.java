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
}
