package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The reply table decides, identically at every replica, whether a delivered request runs. */
class ReplyTableTest {

    /** The destination set of the requests below, unless a test says otherwise. */
    private static final String G = ReplyTable.destinations(new int[] {1});

    private static Wire.Request request(long seq, long ackedBelow) {
        return new Wire.Request(42L << 32, seq, ackedBelow, new byte[0]);
    }

    @Test
    void aNewSeqExecutesARecordedOneIsResentAndOneBelowTheAckIsIgnored() {
        ReplyTable t = new ReplyTable();
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(request(1, 1), G));
        t.record(42L << 32, G, 1, new byte[] {7});
        assertEquals(ReplyTable.Verdict.RESEND, t.classify(request(1, 1), G));
        assertArrayEquals(new byte[] {7}, t.reply(42L << 32, G, 1));
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(request(2, 2), G), "seq 2 acknowledges seq 1");
        assertEquals(ReplyTable.Verdict.IGNORE, t.classify(request(1, 1), G), "a late copy of seq 1");
        assertEquals(0, t.size(), "the acknowledged reply is dropped, and seq 2 has none yet");
    }

    @Test
    void outOfOrderSeqsWithinTheWindowEachExecuteOnce() {
        // a window of 3: seqs 1..3 may be delivered in any order at a partition
        ReplyTable t = new ReplyTable();
        for (long seq : new long[] {3, 1, 2}) {
            assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(request(seq, 1), G), "seq " + seq);
            t.record(42L << 32, G, seq, new byte[] {(byte) seq});
        }
        for (long seq : new long[] {1, 2, 3}) {
            assertEquals(ReplyTable.Verdict.RESEND, t.classify(request(seq, 1), G), "retry of seq " + seq);
        }
        assertEquals(3, t.size());
    }

    @Test
    void theTableSurvivesKryo() {
        ReplyTable t = new ReplyTable();
        t.classify(request(5, 4), G);
        t.record(42L << 32, G, 5, new byte[] {1, 2});
        ReplyTable copy = (ReplyTable) KryoCodec.copy(t);
        assertEquals(ReplyTable.Verdict.RESEND, copy.classify(request(5, 4), G));
        assertEquals(ReplyTable.Verdict.IGNORE, copy.classify(request(3, 4), G));
    }

    @Test
    void aCopyTakenForACheckpointIsNotChangedByLaterRequests() {
        ReplyTable t = new ReplyTable();
        t.classify(request(1, 1), G);
        t.record(42L << 32, G, 1, new byte[] {1});
        ReplyTable copy = t.copy();
        t.classify(request(2, 2), G); // acknowledges seq 1: the live table drops its reply
        t.record(42L << 32, G, 2, new byte[] {2});
        assertArrayEquals(new byte[] {1}, copy.reply(42L << 32, G, 1), "the copy keeps the reply the table had");
        assertEquals(null, copy.reply(42L << 32, G, 2), "the copy has no reply recorded after it was taken");
        assertEquals(ReplyTable.Verdict.RESEND, copy.classify(request(1, 1), G), "the copy still resends seq 1");
    }

    @Test
    void anAcknowledgementCountsOnlyForCommandsWithTheSameDestinations() {
        // partition 2's view: the client's command to {2} alone says it holds every reply below 5, but
        // the command to {1,2} with seq 3 was never delivered here; it still runs when it comes
        ReplyTable t = new ReplyTable();
        String both = ReplyTable.destinations(new int[] {2, 1});
        assertEquals(ReplyTable.destinations(new int[] {1, 2}), both, "a set, whatever the order");
        String two = ReplyTable.destinations(new int[] {2});
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(request(5, 5), two));
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(request(3, 3), both),
                "not acknowledged by a command with these destinations");
        t.record(42L << 32, both, 3, new byte[] {3});
        assertEquals(ReplyTable.Verdict.RESEND, t.classify(request(3, 3), both));
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(request(6, 6), both), "acknowledges seq 3 for {1,2}");
        assertEquals(ReplyTable.Verdict.IGNORE, t.classify(request(3, 3), both), "a late copy now");
    }
    @Test
    void aRetiredClientLosesItsRepliesAndItsLateCopiesAreRefusedInThatSetOnly() {
        ReplyTable t = new ReplyTable();
        String both = ReplyTable.destinations(new int[] {2, 1});
        t.classify(request(1, 1), G);
        t.record(42L << 32, G, 1, new byte[] {1});
        t.classify(request(2, 1), both);
        t.record(42L << 32, both, 2, new byte[] {2});
        t.retire(42L << 32, G);
        assertEquals(1, t.clients(), "only the set it left");
        assertEquals(ReplyTable.Verdict.RETIRED, t.classify(request(1, 1), G), "a late copy is refused, not run");
        t.record(42L << 32, G, 3, new byte[] {3}); // a command that finished after the retire
        assertEquals(1, t.clients(), "it does not bring the entry back");
        assertEquals(ReplyTable.Verdict.RESEND, t.classify(request(2, 1), both));
        ReplyTable copy = (ReplyTable) KryoCodec.copy(t.copy());
        assertEquals(ReplyTable.Verdict.RETIRED, copy.classify(request(1, 1), G), "checkpoints keep the retirement");
    }

    @Test
    void aNodesNewerClientRetiresTheOneBeforeAndAnOlderOneNothing() {
        ReplyTable t = new ReplyTable();
        long a = 42L << 32 | 1;
        long b = 42L << 32 | 2;
        long c = 42L << 32 | 3;
        assertEquals(0, t.retireNodeBefore(a, 100));
        t.classify(new Wire.Request(a, 1, 1, new byte[0]), G);
        t.record(a, G, 1, new byte[] {1});
        assertEquals(a, t.retireNodeBefore(b, 200));
        assertEquals(0, t.clients());
        assertEquals(ReplyTable.Verdict.RETIRED, t.classify(new Wire.Request(a, 2, 2, new byte[0]), G));
        assertEquals(ReplyTable.Verdict.RETIRED, t.classify(new Wire.Request(a, 2, 2, new byte[0]), "7,"),
                "in every destination set, known here or not");
        assertEquals(0, t.retireNodeBefore(c, 150), "an older client retires nobody");
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(new Wire.Request(b, 1, 1, new byte[0]), G));
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(new Wire.Request(c, 1, 1, new byte[0]), G));
        assertEquals(0, t.retireNodeBefore(b, 200), "idempotent");
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(new Wire.Request(43L << 32 | 1, 1, 1, new byte[0]), G),
                "another node's client is not touched");
    }

    @Test
    void retiredClientsAreRememberedUpToABoundOldestForgottenFirst() {
        ReplyTable t = new ReplyTable();
        for (long id = 1; id <= ReplyTable.RETIRED_PER_SET + 1; id++) {
            t.retire(id, G);
        }
        assertEquals(ReplyTable.RETIRED_PER_SET, t.retiredRemembered());
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(new Wire.Request(1, 5, 5, new byte[0]), G), "forgotten");
        assertEquals(ReplyTable.Verdict.RETIRED, t.classify(new Wire.Request(2, 5, 5, new byte[0]), G));
    }

    private static Wire.Request from(long client, long seq, long ackedBelow) {
        return new Wire.Request(client, seq, ackedBelow, new byte[0]);
    }

    /** Delivers {@code n} requests of a busy client (id 7) to {@code set}: each a new seq, acknowledged at once. */
    private static void traffic(ReplyTable t, String set, int n, long[] seq) {
        for (int i = 0; i < n; i++) {
            long s = ++seq[0];
            t.classify(from(7L << 32, s, s), set);
            t.record(7L << 32, set, s, new byte[] {1});
        }
    }

    @Test
    void aClientIdleForTheBoundLosesItsEntryItsRunCommandsAreRefusedAndItsNewOnesRun() {
        ReplyTable t = new ReplyTable();
        t.idleDeliveries(ReplyTable.SWEEP_EVERY);
        long idle = 42L << 32;
        long[] busy = {0};
        // the idle client ran seqs 1..3, holds the reply of 1, and then goes silent (killed without closing)
        for (long seq = 1; seq <= 3; seq++) {
            assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(from(idle, seq, seq == 3 ? 2 : 1), G));
            t.record(idle, G, seq, new byte[] {(byte) seq});
        }
        traffic(t, G, ReplyTable.SWEEP_EVERY - 4, busy);
        assertEquals(2, t.clients(), "not idle long enough yet");
        traffic(t, G, ReplyTable.SWEEP_EVERY + 8, busy); // past the sweep at twice SWEEP_EVERY deliveries
        assertEquals(1, t.clients(), "the idle client's entry went");
        assertEquals(1, t.clientsExpired());
        assertEquals(ReplyTable.Verdict.IGNORE, t.classify(from(idle, 1, 2), G), "a copy of a reply it holds");
        assertEquals(ReplyTable.Verdict.EXPIRED, t.classify(from(idle, 3, 2), G), "seq 3 ran: never again");
        assertEquals(1, t.clients(), "a refused copy does not bring the entry back");
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(from(idle, 4, 4), G), "a new command runs");
        t.record(idle, G, 4, new byte[] {4});
        assertEquals(ReplyTable.Verdict.RESEND, t.classify(from(idle, 4, 4), G));
        assertEquals(2, t.clients(), "the client is back with a new entry");
    }

    @Test
    void idlenessCountsTheSetsOwnDeliveriesOnlyAndIsTheSameAfterACopyOrKryo() {
        ReplyTable t = new ReplyTable();
        t.idleDeliveries(ReplyTable.SWEEP_EVERY);
        String other = ReplyTable.destinations(new int[] {1, 2});
        long idle = 42L << 32;
        t.classify(from(idle, 1, 1), G);
        t.record(idle, G, 1, new byte[] {1});
        long[] busy = {0};
        traffic(t, other, 3 * ReplyTable.SWEEP_EVERY, busy);
        assertEquals(2, t.clients(), "another set's deliveries do not age a client of G");
        ReplyTable copy = t.copy();
        ReplyTable viaKryo = (ReplyTable) KryoCodec.copy(t);
        viaKryo.idleDeliveries(ReplyTable.SWEEP_EVERY); // configuration, not state: set again after a restore
        for (ReplyTable r : new ReplyTable[] {t, copy, viaKryo}) {
            long[] seq = {1_000_000};
            traffic(r, G, 2 * ReplyTable.SWEEP_EVERY, seq);
            assertEquals(2, r.clients(), "the busy client in both sets, the idle one gone");
            assertEquals(ReplyTable.Verdict.EXPIRED, r.classify(from(idle, 1, 1), G));
        }
    }

    @Test
    void aReplyRecordedAfterItsClientsEntryWentDoesNotBringItBack() {
        ReplyTable t = new ReplyTable();
        t.idleDeliveries(ReplyTable.SWEEP_EVERY);
        long idle = 42L << 32;
        assertEquals(ReplyTable.Verdict.EXECUTE, t.classify(from(idle, 1, 1), G)); // a deferred command, still running
        long[] busy = {0};
        traffic(t, G, 2 * ReplyTable.SWEEP_EVERY, busy);
        t.record(idle, G, 1, new byte[] {1}); // its continuation ends now
        assertEquals(1, t.clients());
        assertEquals(ReplyTable.Verdict.EXPIRED, t.classify(from(idle, 1, 1), G));
    }

    @Test
    void withTheBoundOffIdleClientsStay() {
        ReplyTable t = new ReplyTable();
        t.idleDeliveries(0);
        t.classify(from(42L << 32, 1, 1), G);
        long[] busy = {0};
        traffic(t, G, 3 * ReplyTable.SWEEP_EVERY, busy);
        assertEquals(2, t.clients());
        assertEquals(0, t.clientsExpired());
    }
}
