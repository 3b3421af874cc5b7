package io.volery.server.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.frontend.ClientConnection;
import io.volery.server.tree.EventType;
import io.volery.server.tree.WatchEvent;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;

/** What a connection receives, in order, as the mailbox interleaves watch events with replies. */
class SessionMailboxesTest {
    private static final long SESSION = 0x42;

    private static final class Recorded implements ClientConnection {
        final List<String> written = new ArrayList<>();

        @Override
        public long sessionId() {
            return SESSION;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return null;
        }

        @Override
        public List<Id> authInfo() {
            return List.of();
        }

        @Override
        public void notify(long zxid, int eventType, String path) {
            written.add("event " + path + "@" + zxid);
        }

        @Override
        public void close(String reason) {
        }
    }

    private static WatchEvent changed(String path, long zxid) {
        return new WatchEvent(SESSION, EventType.NODE_DATA_CHANGED, path, zxid);
    }

    private static void reply(SessionMailboxes m, Recorded c, long zxid) {
        m.replying(SESSION, c, zxid, () -> c.written.add("reply @" + zxid));
    }

    @Test
    void eventsGoOutInZxidOrderWithTheRepliesOfOutstandingRequests() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null);
        m.requestArrived(SESSION, c, null);
        // from two partitions, not in zxid order, while both requests wait for their replies
        m.offer(changed("/b", 25));
        m.offer(changed("/a", 5));
        m.offer(changed("/c", 15));
        assertEquals(List.of(), c.written, "nothing overtakes an outstanding reply");
        reply(m, c, 10);
        assertEquals(List.of("event /a@5", "reply @10"), c.written);
        reply(m, c, 20);
        assertEquals(List.of("event /a@5", "reply @10", "event /c@15", "reply @20", "event /b@25"), c.written,
                "with no reply outstanding the rest go out in arrival order");
        m.offer(changed("/d", 30));
        assertEquals("event /d@30", c.written.get(c.written.size() - 1), "and later ones at once");
    }

    @Test
    void aClosedSessionGetsItsOwnEventsBeforeTheClosesReplyAndThenNothing() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null);
        // the close at 10 deleted the session's ephemeral, which its own watch was on
        m.offer(changed("/own", 10));
        m.closing(SESSION);
        reply(m, c, 10);
        assertEquals(List.of("event /own@10", "reply @10"), c.written, "the event before the close's reply");
        assertFalse(m.offer(changed("/late", 11)), "the mailbox of a closed session is gone once its reply is written");

        // a session whose connection went before its close was answered keeps nothing either
        Recorded gone = new Recorded();
        m.connected(SESSION, gone, false);
        m.disconnected(SESSION, gone);
        m.closing(SESSION);
        assertFalse(m.offer(changed("/later", 12)), "the mailbox of a closed, disconnected session");
    }

    /** Two partitions, 1 and 2, with rings 1 and 2, and the ALL ring 0 (as VoleryCluster lays them out). */
    static final io.eyrie.multicast.ClusterConfig TWO_PARTITIONS_CONFIG = io.eyrie.multicast.ClusterConfig.parse("""
            node.1 = 127.0.0.1:1
            node.1.groups = 1
            node.2 = 127.0.0.1:2
            node.2.groups = 2
            ring.1.acceptors = 1
            group.1.ring = 1
            ring.2.acceptors = 2
            group.2.ring = 2
            ring.0.acceptors = 1,2
            ring.all = 0
            """, "two partitions");
    static final EventPrecedence TWO_PARTITIONS = new EventPrecedence(TWO_PARTITIONS_CONFIG);

    /** The position of a command ordered by {@code ring} in merge round {@code round}. */
    private static long at(long round, int ring) {
        return io.eyrie.multicast.Position.of(round, ring, 0, 0);
    }

    private static void reply(SessionMailboxes m, Recorded c, long zxid, String what) {
        m.replying(SESSION, c, zxid, () -> c.written.add("reply " + what));
    }

    private static String event(String path, long zxid) {
        return "event " + path + "@" + zxid;
    }

    @Test
    void anEventNeverOvertakesTheReplyThatSetItsWatchWhateverTheOtherPartitionsZxids() {
        // The session reads /dir on partition 2, then /x with a watch on partition 1; both replies wait.
        // Partition 2's ring is in a later merge round than partition 1's at the same time (a position
        // says nothing about real-time order across rings). Another session's setData of /x fires the
        // watch at partition 1, after the getData there. Its zxid is below the getChildren reply's, yet
        // the event must wait for the getData reply, which set the watch, or the client drops it.
        SessionMailboxes m = new SessionMailboxes(TWO_PARTITIONS);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {2});
        m.requestArrived(SESSION, c, null, new int[] {1});
        long getChildren = at(90, 2);
        long getData = at(40, 1);
        long setData = at(41, 1);
        m.offer(changed("/x", setData));
        reply(m, c, getChildren, "getChildren /dir");
        reply(m, c, getData, "getData /x");
        assertEquals(List.of("reply getChildren /dir", "reply getData /x", event("/x", setData)), c.written);
    }

    @Test
    void comparingZxidsOfDifferentPartitionsLosesTheWatch() {
        // the same, comparing positions across partitions (before ADR 077): the event goes first
        SessionMailboxes m = new SessionMailboxes(SessionMailboxes.Precedence.ONE_PARTITION);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {2});
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.offer(changed("/x", at(41, 1)));
        reply(m, c, at(90, 2), "getChildren /dir");
        assertEquals(List.of(event("/x", at(41, 1)), "reply getChildren /dir"), c.written,
                "the event overtakes the getData reply that sets its watch");
    }

    @Test
    void anEventGoesOutBeforeTheReplyOfAReadItsPartitionExecutedAfterIt() {
        // getData /x with a watch, then getData /x again, both on partition 1 and pipelined; the change
        // comes between them there. The client must see the event before the second read's new data, even
        // though another request (partition 2) was also outstanding when the event came.
        SessionMailboxes m = new SessionMailboxes(TWO_PARTITIONS);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.requestArrived(SESSION, c, null, new int[] {2});
        m.requestArrived(SESSION, c, null, new int[] {1});
        long setData = at(41, 1);
        m.offer(changed("/x", setData));
        reply(m, c, at(40, 1), "getData /x old");
        reply(m, c, at(30, 2), "exists /y");
        reply(m, c, at(42, 1), "getData /x new");
        assertEquals(List.of("reply getData /x old", "reply exists /y", event("/x", setData), "reply getData /x new"),
                c.written);
    }

    @Test
    void anEventGoesOutBeforeTheReplyOfAnyRequestThatCameAfterIt() {
        // the event came while a request to partition 1 waited; a later request to partition 2 (whose
        // zxid cannot be compared with the event's) may read data written after the change: the event
        // goes before its reply
        SessionMailboxes m = new SessionMailboxes(TWO_PARTITIONS);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {1});
        long setData = at(41, 1);
        m.offer(changed("/x", setData));
        m.requestArrived(SESSION, c, null, new int[] {2});
        reply(m, c, at(40, 1), "getData /x");
        reply(m, c, at(10, 2), "getData /y");
        assertEquals(List.of("reply getData /x", event("/x", setData), "reply getData /y"), c.written);
    }

    @Test
    void anEventOfACommandOfSeveralPartitionsGoesEarlyOnlyBeforeAReplyOfThemAll() {
        SessionMailboxes m = new SessionMailboxes(TWO_PARTITIONS);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.requestArrived(SESSION, c, null, new int[] {1, 2});
        long multi = at(50, 0); // a multi of both partitions, on the ALL ring
        m.offer(changed("/x", multi));
        reply(m, c, at(60, 1), "getData /x");
        assertEquals(List.of("reply getData /x"), c.written, "the watch may live in partition 2");
        reply(m, c, at(70, 0), "create /a /b");
        assertEquals(List.of("reply getData /x", event("/x", multi), "reply create /a /b"), c.written);
    }

    @Test
    void aDataChangeOfACommandOfSeveralPartitionsGoesEarlyBeforeAReplyOfTheNodesOwner() {
        // /x belongs to partition 1: a setData of it in a multi fired the watch partition 1 holds
        SessionMailboxes m = new SessionMailboxes(new EventPrecedence(TWO_PARTITIONS_CONFIG,
                path -> path.startsWith("/x") ? 1 : 2));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.requestArrived(SESSION, c, null, new int[] {2});
        m.requestArrived(SESSION, c, null, new int[] {1});
        long multi = at(50, 0);
        m.offer(changed("/x", multi));
        m.offer(changed("/y", multi));
        reply(m, c, at(40, 1), "getData /x old");
        reply(m, c, at(60, 2), "getData /y new");
        assertEquals(List.of("reply getData /x old", event("/y", multi), "reply getData /y new"), c.written);
        reply(m, c, at(70, 1), "getData /x new");
        assertEquals(List.of("reply getData /x old", event("/y", multi), "reply getData /y new", event("/x", multi),
                "reply getData /x new"), c.written);
    }

    @Test
    void aDeletionOfACommandOfSeveralPartitionsGoesEarlyBeforeAReplyOfTheNodesOwnerOnlyBelowTheRoot() {
        SessionMailboxes m = new SessionMailboxes(new EventPrecedence(TWO_PARTITIONS_CONFIG,
                path -> path.startsWith("/x") ? 1 : 2));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {2});
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.requestArrived(SESSION, c, null, new int[] {1});
        long delete = at(50, 0); // a top-level delete, on the ALL ring
        m.offer(new WatchEvent(SESSION, EventType.NODE_DELETED, "/x", delete));
        m.offer(new WatchEvent(SESSION, EventType.NODE_CHILDREN_CHANGED, "/", delete));
        reply(m, c, at(60, 2), "exists /y");
        reply(m, c, at(70, 1), "exists /x none");
        assertEquals(List.of("reply exists /y", event("/x", delete), "reply exists /x none"), c.written,
                "the root's watch may be in either partition");
        reply(m, c, at(80, 1), "getChildren /x");
        assertEquals(event("/", delete), c.written.get(c.written.size() - 1));
    }

    @Test
    void setWatchesEventsGoOutBeforeTheSetWatchesReply() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null);
        m.offer(changed("/a", VoleryWire.setWatchesZxid(40)));
        m.offer(changed("/b", 41));
        reply(m, c, 40);
        assertEquals(List.of("event /a@-1", "reply @40", "event /b@41"), c.written);
    }

    @Test
    void eventsKeptWhileDisconnectedGoOutBeforeTheFirstReplyOfTheNewConnection() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded old = new Recorded();
        m.connected(SESSION, old, false);
        m.requestArrived(SESSION, old, null);
        m.disconnected(SESSION, old);
        m.offer(changed("/a", 50));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        reply(m, old, 45);
        assertEquals(List.of("reply @45"), old.written, "the old connection's reply goes nowhere near the session's box");
        m.requestArrived(SESSION, c, null);
        assertEquals(List.of("event /a@50"), c.written);
        reply(m, c, 60);
        assertEquals(List.of("event /a@50", "reply @60"), c.written);
    }

    private static SessionMailboxes.Rearm rearm(long relativeZxid, Set<String> data, Set<String> exist, Set<String> child) {
        return new SessionMailboxes.Rearm(relativeZxid, data, exist, child);
    }

    private static WatchEvent created(String path, long zxid) {
        return new WatchEvent(SESSION, EventType.NODE_CREATED, path, zxid);
    }

    /**
     * The CI failure of session 15: an event handed to the old connection just before the front end saw it
     * close never reached the client; setWatches fires it again on reconnect, and a later event kept while
     * the session was away must not go out ahead of it.
     */
    @Test
    void anEventLostWithTheOldConnectionComesBackBeforeTheEventsKeptWhileAway() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded old = new Recorded();
        m.connected(SESSION, old, false);
        m.requestArrived(SESSION, old, null);
        reply(m, old, 5);
        m.offer(changed("/a", 10));
        assertEquals(List.of("reply @5", "event /a@10"), old.written, "handed to a connection already closing");
        m.disconnected(SESSION, old);
        m.offer(created("/b", 20));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, rearm(5, Set.of("/a"), Set.of("/b"), Set.of()));
        assertEquals(List.of(), c.written, "kept events wait for the setWatches reply");
        m.offer(changed("/a", VoleryWire.setWatchesZxid(30)));
        m.offer(created("/b", VoleryWire.setWatchesZxid(30)));
        m.offer(created("/c", 35));
        reply(m, c, 30);
        assertEquals(List.of("event /a@10", "event /b@20", "reply @30", "event /c@35"), c.written,
                "the lost event again first, then the kept one (setWatches' copies not sent again), later ones after the reply");
    }

    /**
     * Also from CI: setWatches need not fire again an event that was kept (the client's last zxid may come
     * from another partition and exceed the change's), and then what it does fire must not overtake the kept one.
     */
    @Test
    void keptEventsKeepTheirOrderWhateverSetWatchesFiresAgain() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded old = new Recorded();
        m.connected(SESSION, old, false);
        m.disconnected(SESSION, old);
        m.offer(changed("/a", 10));
        m.offer(created("/b", 20));
        m.offer(changed("/p", 21));
        m.offer(changed("/p", 22));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, rearm(0, Set.of("/a", "/p"), Set.of("/b"), Set.of()));
        m.offer(created("/b", VoleryWire.setWatchesZxid(30)));
        m.offer(changed("/p", VoleryWire.setWatchesZxid(30)));
        reply(m, c, 30);
        assertEquals(List.of("event /a@10", "event /b@20", "event /p@21", "event /p@22", "reply @30"), c.written);
    }

    /**
     * setWatches does not fire an event again if the client's last zxid, from another partition, exceeds the
     * change's position: the front end hands again what the old connection got after the last reply the
     * client saw, for the one-shot watches it sets again, and only that.
     */
    @Test
    void eventsHandedAfterTheClientsLastReplyAreHandedAgainForTheWatchesItSetsAgain() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded old = new Recorded();
        m.connected(SESSION, old, false);
        m.requestArrived(SESSION, old, null);
        m.offer(changed("/seen", 40));
        reply(m, old, 50);
        m.requestArrived(SESSION, old, null);
        reply(m, old, 45);
        m.offer(changed("/a", 41));
        m.offer(changed("/persistent", 42));
        m.offer(created("/b", 43));
        m.disconnected(SESSION, old);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        // the client saw the reply at 45 last; it sets again watches on /seen (set again after its event),
        // /a and /b; setWatches fires nothing (41 and 43 are below 45)
        m.requestArrived(SESSION, c, rearm(45, Set.of("/seen", "/a"), Set.of("/b"), Set.of()));
        reply(m, c, 60);
        assertEquals(List.of("event /a@41", "event /b@43", "reply @60"), c.written);
    }

    @Test
    void eventsBeforeTheClientsLastReplyAreNotHandedAgain() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded old = new Recorded();
        m.connected(SESSION, old, false);
        m.offer(changed("/a", 41));
        m.requestArrived(SESSION, old, null);
        reply(m, old, 45);
        m.disconnected(SESSION, old);
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, rearm(45, Set.of("/a"), Set.of(), Set.of()));
        reply(m, c, 60);
        assertEquals(List.of("reply @60"), c.written, "the client got /a's event before the reply it saw, and set the watch again since");
    }

    /** Front end A, where the session was, and front end B, where its client reconnected (ZooKeeper's client moves on). */
    private static SessionMailboxes.Away leaveA(Recorded old) {
        SessionMailboxes a = new SessionMailboxes();
        a.connected(SESSION, old, false);
        a.requestArrived(SESSION, old, null);
        reply(a, old, 45);
        a.offer(changed("/a", 41));   // lost with the connection
        a.offer(changed("/p", 42));   // a persistent watch's: cannot be told apart, not handed again
        a.disconnected(SESSION, old);
        a.offer(created("/b", 43));   // kept while away
        return a.movedAway(SESSION);
    }

    @Test
    void aReconnectThroughAnotherFrontEndGetsWhatTheOldConnectionLost_handOffBeforeTheConnection() {
        Recorded old = new Recorded();
        SessionMailboxes.Away away = leaveA(old);
        assertEquals(List.of(created("/b", 43)), away.kept());
        SessionMailboxes b = new SessionMailboxes();
        b.handoff(SESSION, away.kept(), away.handed());
        Recorded c = new Recorded();
        b.connected(SESSION, c, true);
        b.requestArrived(SESSION, c, rearm(45, Set.of("/a"), Set.of("/b"), Set.of()));
        b.offer(created("/b", VoleryWire.setWatchesZxid(60)));
        reply(b, c, 60);
        assertEquals(List.of("event /a@41", "event /b@43", "reply @60"), c.written);
    }

    @Test
    void repliesWaitForTheOldFrontEndsHandOffAsTheEventsDo() {
        // A session reconnects here from a front end that died: setWatches fires /a's watch again, and a
        // getData of /a, pipelined behind it, shows the change. Both replies come before the hand-off is
        // given up on; written then, they would show the change before its event (ADR 079).
        for (boolean oldFrontEndAnswers : new boolean[] {false, true}) {
            SessionMailboxes m = new SessionMailboxes();
            Recorded c = new Recorded();
            m.connected(SESSION, c, true);
            m.requestArrived(SESSION, c, rearm(45, Set.of("/a"), Set.of(), Set.of()));
            m.requestArrived(SESSION, c, null);
            m.offer(changed("/a", VoleryWire.setWatchesZxid(60)));
            reply(m, c, 60, "setWatches");
            reply(m, c, 70, "getData /a new");
            assertEquals(List.of(), c.written, "nothing before the old front end's events");
            m.handoff(SESSION, oldFrontEndAnswers ? List.of(changed("/k", 30)) : List.of()); // or the wait's end
            List<String> expected = new ArrayList<>(List.of(event("/a", -1), "reply setWatches", "reply getData /a new"));
            if (oldFrontEndAnswers) {
                expected.add(1, event("/k", 30)); // after setWatches' own (ADR 039)
            }
            assertEquals(expected, c.written);
            reply(m, c, 80, "exists /b");
            assertEquals("reply exists /b", c.written.get(c.written.size() - 1), "and later replies at once");
        }
    }

    @Test
    void aReconnectThroughAnotherFrontEndGetsWhatTheOldConnectionLost_handOffAfterSetWatches() {
        Recorded old = new Recorded();
        SessionMailboxes.Away away = leaveA(old);
        SessionMailboxes b = new SessionMailboxes();
        Recorded c = new Recorded();
        b.connected(SESSION, c, true);
        b.requestArrived(SESSION, c, rearm(45, Set.of("/a"), Set.of("/b"), Set.of()));
        b.offer(created("/b", VoleryWire.setWatchesZxid(60)));
        b.offer(changed("/later", 70));
        // the wire between the front ends, as sent
        VoleryWire.Handoff h = (VoleryWire.Handoff) VoleryWire.decode(VoleryWire.handoff(SESSION, away.kept(), away.handed()));
        assertEquals(away.handed(), h.handed(), "the old connection's log crosses the wire");
        b.handoff(SESSION, h.events(), h.handed());
        reply(b, c, 60);
        assertEquals(List.of("event /a@41", "event /b@43", "reply @60", "event /later@70"), c.written,
                "the hand-off came after the setWatches request: what the old connection lost still goes first");
    }

    /**
     * ADR 098: the session left A (move 1) and came back (move 2); a replica that replays the order (after a
     * restart) or lags tells A of move 1 again, late. A keeps the box of the connection the session is on; the
     * notice of a later move takes it.
     */
    @Test
    void aLateNoticeOfAnOlderMoveLeavesTheBoxOfTheSessionThatCameBack() {
        SessionMailboxes a = new SessionMailboxes();
        Recorded first = new Recorded();
        a.connected(SESSION, first, false, 0);
        a.requestArrived(SESSION, first, null);
        reply(a, first, 10);
        a.disconnected(SESSION, first);
        assertEquals(List.of(), a.movedAway(SESSION, 1).kept(), "move 1 (to B) takes the box");

        Recorded back = new Recorded();
        a.handoff(SESSION, List.of(created("/b", 20)), List.of(), 2); // B's kept events, for move 2
        a.connected(SESSION, back, true, 2);
        a.requestArrived(SESSION, back, null);
        reply(a, back, 30);
        assertNull(a.movedAway(SESSION, 1), "a late copy of move 1's notice");
        assertNull(a.movedAway(SESSION, 2), "nor of the move that brought the session here");
        assertTrue(a.offer(changed("/c", 40)), "the box is still here");
        assertEquals(List.of("event /b@20", "reply @30", "event /c@40"), back.written);

        a.disconnected(SESSION, back);
        a.offer(changed("/d", 50));
        assertEquals(List.of(changed("/d", 50)), a.movedAway(SESSION, 3).kept(), "move 3 (away again) takes it");
        assertFalse(a.offer(changed("/e", 60)));
    }

    /**
     * ADR 100: this front end's run first had the session at its 3rd reconnect; an event of its stay here before
     * (a previous run's, sent again by a replaying replica) is not for this run, those of later stays are.
     */
    @Test
    void anEventOfAStayAtAPreviousRunIsToldApart() {
        SessionMailboxes m = new SessionMailboxes();
        assertFalse(m.ofAnEarlierRun(SESSION, 0), "a session never here: nothing to tell");
        Recorded c = new Recorded();
        m.connected(SESSION, c, true, 3);
        assertTrue(m.ofAnEarlierRun(SESSION, 0));
        assertTrue(m.ofAnEarlierRun(SESSION, 2));
        assertFalse(m.ofAnEarlierRun(SESSION, 3));
        m.disconnected(SESSION, c);
        m.movedAway(SESSION, 4);
        m.connected(SESSION, new Recorded(), true, 6);
        assertFalse(m.ofAnEarlierRun(SESSION, 3), "the stay at this run that began with reconnect 3");
        assertTrue(m.ofAnEarlierRun(SESSION, 1));
        m.forget(SESSION);
        assertFalse(m.ofAnEarlierRun(SESSION, 1), "expired: forgotten");
        SessionMailboxes created = new SessionMailboxes();
        created.connected(SESSION, new Recorded(), false, 0);
        assertFalse(created.ofAnEarlierRun(SESSION, 0), "a session created here");
    }

    @Test
    void eventsCrossTheWireWithTheirStays() {
        VoleryWire.Events ev = (VoleryWire.Events) VoleryWire.decode(VoleryWire.events(List.of(changed("/x", 10),
                changed("/y", 11)), 2, 11, new long[] {4, 5}));
        assertEquals(List.of(changed("/x", 10), changed("/y", 11)), ev.events());
        assertArrayEquals(new long[] {4, 5}, ev.moves());
        assertNull(((VoleryWire.Events) VoleryWire.decode(VoleryWire.events(List.of(changed("/x", 10)), 2, 10))).moves(),
                "from a node before ADR 100");
    }

    @Test
    void movesCrossTheWireWithTheirNumbers() {
        VoleryWire.Moved mv = (VoleryWire.Moved) VoleryWire.decode(VoleryWire.moved(SESSION, 4, 7));
        assertEquals(new VoleryWire.Moved(SESSION, 4, 7), mv);
        VoleryWire.Handoff h = (VoleryWire.Handoff) VoleryWire.decode(VoleryWire.handoff(SESSION, List.of(changed("/x", 7)),
                List.of(new VoleryWire.Handed(5, null)), 7));
        assertEquals(7, h.move());
        assertEquals(List.of(new VoleryWire.Handed(5, null)), h.handed());
        // from nodes before ADR 098: no number, taken as the latest
        byte[] full = VoleryWire.moved(SESSION, 4, 7);
        assertEquals(new VoleryWire.Moved(SESSION, 4, 0), VoleryWire.decode(java.util.Arrays.copyOf(full, full.length - 8)));
        assertEquals(0, ((VoleryWire.Handoff) VoleryWire.decode(oldFormatHandoff())).move());
    }

    @Test
    void aHandOffFromAnOlderFrontEndCarriesNoLog() {
        VoleryWire.Handoff h = (VoleryWire.Handoff) VoleryWire.decode(oldFormatHandoff());
        assertEquals(List.of(changed("/x", 7)), h.events());
        assertEquals(List.of(), h.handed());
    }

    /** A hand-off as front ends before ADR 039 wrote it: the kept events and nothing after them. */
    private static byte[] oldFormatHandoff() {
        byte[] full = VoleryWire.handoff(SESSION, List.of(changed("/x", 7)), List.of());
        return java.util.Arrays.copyOf(full, full.length - 8 - 4 - 4 - 8); // no log, no fired-in partitions, no move
    }

    @Test
    void eventsCarryThePartitionsThatFiredThemAcrossTheWire() {
        WatchEvent fired = new WatchEvent(SESSION, EventType.NODE_CREATED, "/d/c", 9,
                WatchEvent.partitionSet(1) | WatchEvent.partitionSet(3));
        VoleryWire.Events ev = (VoleryWire.Events) VoleryWire.decode(VoleryWire.events(List.of(fired, changed("/x", 10)), 2, 9));
        assertEquals(List.of(fired, changed("/x", 10)), ev.events());
        VoleryWire.Handed handed = new VoleryWire.Handed(0, changed("/y", 3));
        VoleryWire.Handoff h = (VoleryWire.Handoff) VoleryWire.decode(VoleryWire.handoff(SESSION, List.of(fired), List.of(handed)));
        assertEquals(List.of(fired), h.events());
        assertEquals(List.of(handed), h.handed());
        // from a node before ADR 078: no partitions, so the event names none
        byte[] full = VoleryWire.events(List.of(fired), 2, 9);
        VoleryWire.Events old = (VoleryWire.Events) VoleryWire.decode(java.util.Arrays.copyOf(full, full.length - 4 - 8));
        assertEquals(WatchEvent.UNKNOWN_PARTITIONS, old.events().get(0).firedIn());
        byte[] fullHandoff = VoleryWire.handoff(SESSION, List.of(fired), List.of(handed));
        VoleryWire.Handoff oldHandoff = (VoleryWire.Handoff) VoleryWire.decode(
                java.util.Arrays.copyOf(fullHandoff, fullHandoff.length - 8 - 4 - 8)); // (nor a move: ADR 098)
        assertEquals(List.of(handed), oldHandoff.handed());
        assertEquals(WatchEvent.UNKNOWN_PARTITIONS, oldHandoff.events().get(0).firedIn());
    }

    @Test
    void aRootEventThatNamesItsPartitionGoesEarlyBeforeAReplyItExecutedAfterIt() {
        // A top-level create (ALL ring) fired the session's child watch on the root, held by partition 1
        // (the root's owner, ADR 053); a getChildren of the root outstanding then, which partition 1 ran
        // after the create, shows the new child: the event goes first. The same event naming no partition
        // waits for that reply (the root's watch could be anywhere): the client sees the child before the
        // event.
        long create = at(50, 0);
        for (boolean named : new boolean[] {true, false}) {
            SessionMailboxes m = new SessionMailboxes(new EventPrecedence(TWO_PARTITIONS_CONFIG, path -> 2));
            Recorded c = new Recorded();
            m.connected(SESSION, c, false);
            m.requestArrived(SESSION, c, null, new int[] {2});
            m.requestArrived(SESSION, c, null, new int[] {1});
            WatchEvent e = new WatchEvent(SESSION, EventType.NODE_CHILDREN_CHANGED, "/", create,
                    named ? WatchEvent.partitionSet(1) : WatchEvent.UNKNOWN_PARTITIONS);
            m.offer(e);
            reply(m, c, at(60, 2), "exists /y");
            reply(m, c, at(70, 1), "getChildren / new");
            assertEquals(named ? List.of("reply exists /y", event("/", create), "reply getChildren / new")
                    : List.of("reply exists /y", "reply getChildren / new", event("/", create)), c.written);
        }
    }

    @Test
    void anEventFiredInSeveralPartitionsGoesEarlyBeforeAReplyOfAnyOfThemAndOfNoOther() {
        // Under hash a child's create runs everywhere and a recursive watch on its parent is held
        // everywhere: partitions 1 and 2 both fired it; a getChildren of the parent ran at 2 after it. An
        // event partition 2 alone fired does not go before a later reply from partition 1.
        long create = at(50, 0);
        SessionMailboxes m = new SessionMailboxes(new EventPrecedence(TWO_PARTITIONS_CONFIG, path -> 1));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.requestArrived(SESSION, c, null, new int[] {2});
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.offer(new WatchEvent(SESSION, EventType.NODE_CREATED, "/d/c", create,
                WatchEvent.partitionSet(1) | WatchEvent.partitionSet(2)));
        m.offer(new WatchEvent(SESSION, EventType.NODE_DATA_CHANGED, "/e", create, WatchEvent.partitionSet(2)));
        reply(m, c, at(40, 1), "getData /x old");
        reply(m, c, at(60, 2), "getChildren /d new");
        assertEquals(List.of("reply getData /x old", event("/d/c", create), event("/e", create), "reply getChildren /d new"),
                c.written);
        m.requestArrived(SESSION, c, null, new int[] {1});
        m.offer(new WatchEvent(SESSION, EventType.NODE_DATA_CHANGED, "/f", at(45, 2), WatchEvent.partitionSet(2)));
        reply(m, c, at(70, 1), "getData /x");
        reply(m, c, at(90, 1), "getData /z");
        assertEquals(List.of("reply getData /x old", event("/d/c", create), event("/e", create), "reply getChildren /d new",
                "reply getData /x", "reply getData /z", event("/f", at(45, 2))), c.written,
                "partition 1's replies say nothing of partition 2's order: it waits for the replies outstanding");
    }
}
