package io.volery.server.internal;

import io.volery.server.frontend.ClientConnection;
import io.volery.server.tree.WatchEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A front end's watch events per session, kept while the session cannot take them: it is
 * disconnected (the client may come back within its timeout, here or through another front end), its
 * new connection has not yet sent a request (so the connect answer goes first), or it has just
 * reconnected here from another front end whose kept events have not arrived yet. Kept events are
 * handed over, oldest first, before any event that came later. Bounded per session: beyond
 * {@link #KEPT_PER_SESSION} the oldest are dropped (and logged).
 *
 * <p>Events also wait while the session has requests whose replies are not written yet: ZooKeeper's
 * client registers a watch only when the reply that set it arrives and drops an event for a path it
 * has no watch on, so an event must never overtake the reply of the request that set its watch. An
 * event comes from whichever replica sends it first and a reply from another (or from several
 * partitions), so either can arrive first. An event waits for the replies of the requests that had
 * arrived when it came (the request that set its watch is among them: it was executed before the event
 * fired), and goes out before the reply of any request that came after it. It goes out earlier, before
 * the reply of a request that was executed after the event's command by the partition whose watch fired
 * (its zxid is at most the reply's and the {@link Precedence} can tell): ZooKeeper writes replies and
 * events in zxid order on one connection, and a client must see the event before data that reflects the
 * change. Zxids of different partitions are not ordered in real time, so they are never compared
 * (ADR 077).
 *
 * <p>A reconnect that begins with setWatches (as ZooKeeper's client does when it holds watches): the kept
 * events wait for its reply. Events handed to the old connection after the last reply the client saw
 * (setWatches names its zxid) may never have reached it: those that fire a one-shot watch it sets again
 * did not, and go out again first, with those that setWatches fires and nothing kept repeats; then the
 * kept ones in the order they came; then the reply (ADR 039).
 */
final class SessionMailboxes {
    private static final Logger log = LoggerFactory.getLogger(SessionMailboxes.class);
    static final int KEPT_PER_SESSION = 1_000;
    /** Entries of what a connection was handed that a reconnect may have to look back on. */
    static final int HANDED_REMEMBERED = 128;

    /** What a reconnect's setWatches tells: the last zxid the client saw and the one-shot watches it sets again. */
    record Rearm(long relativeZxid, java.util.Set<String> data, java.util.Set<String> exist, java.util.Set<String> child) {
        /** Whether {@code e} fires one of these watches (ZooKeeper's client triggers by type). */
        boolean fires(WatchEvent e) {
            String p = e.path();
            return switch (e.type()) {
                case NODE_DATA_CHANGED, NODE_CREATED -> data.contains(p) || exist.contains(p);
                case NODE_CHILDREN_CHANGED -> child.contains(p);
                case NODE_DELETED -> data.contains(p) || exist.contains(p) || child.contains(p);
            };
        }
    }

    /**
     * Whether the command at {@code eventZxid} that fired an event was executed, by the partition whose
     * watch it fired, before the command at {@code replyZxid} sent to {@code replyPartitions} (null:
     * unknown). A request the session sent after the one that set the watch is executed after it there.
     */
    @FunctionalInterface
    interface Precedence {
        /** @param eventZxid the zxid of the command that fired {@code event} */
        boolean precedes(WatchEvent event, long eventZxid, long replyZxid, int[] replyPartitions);

        /** One partition: every zxid is comparable. */
        Precedence ONE_PARTITION = (event, eventZxid, replyZxid, partitions) -> eventZxid <= replyZxid;
    }

    /** A kept event and how many of the connection's requests had arrived when it came. */
    private static final class Kept {
        final WatchEvent event;
        long waitFor;

        Kept(WatchEvent event, long waitFor) {
            this.event = event;
            this.waitFor = waitFor;
        }
    }

    private static final class Box {
        final ArrayDeque<Kept> kept = new ArrayDeque<>();
        ClientConnection connection;
        boolean live;
        boolean awaitingHandoff;
        /** The old front end's events came (possibly before the reconnect's answer did). */
        boolean handedOff;
        /**
         * Events handed to this connection so far (bounded): setWatches on reconnect fires again, for
         * the one-shot watches the client sets again, the events it kept for the session while away.
         */
        final java.util.Set<String> delivered = new java.util.HashSet<>();
        /** The partitions of this connection's requests whose replies are not written yet, oldest first. */
        final ArrayDeque<int[]> unanswered = new ArrayDeque<>();
        /** Requests that arrived on this connection, and of those the ones answered. */
        long arrived;
        long answered;
        /** The connection's first request was setWatches: its reply sends the catch-up first. */
        boolean catchUpFirst;
        /** What this connection was handed, oldest first (see {@link #record}). */
        ArrayDeque<VoleryWire.Handed> written = new ArrayDeque<>();
        /** Events among {@link #written}. */
        int writtenEvents;
        /** What the session's previous connection (here, or at the front end it came from) was handed. */
        ArrayDeque<VoleryWire.Handed> previous = new ArrayDeque<>();
        /** The setWatches that opened the connection, while the old front end's hand-off is awaited. */
        Rearm pendingRearm;
        /** Replies held while the hand-off is awaited, in order (ADR 079). */
        final ArrayDeque<Held> held = new ArrayDeque<>();
        /** The session's close is answered: the box goes once that reply is written (see {@link #closing}). */
        boolean closing;
        /**
         * The session's reconnects up to the one that brought it here (ADR 098): a late copy of an
         * older move's notice (a lagging or replaying replica's) does not take the box away.
         */
        long arrivedBy;
    }

    /** A reply at {@code zxid} that {@code write} writes once the old front end's events are in. */
    private record Held(long zxid, Runnable write) {
    }

    private final Map<Long, Box> boxes = new HashMap<>();
    /**
     * Per session, the move that first brought it to this front end's run (ADR 100): its events of an earlier
     * stay here were the previous run's. Bounded; a session forgotten here is not filtered.
     */
    private final Map<Long, Long> firstStay = new java.util.LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > FIRST_STAYS_REMEMBERED;
        }
    };
    private static final int FIRST_STAYS_REMEMBERED = 100_000;
    private final Precedence precedence;

    SessionMailboxes() {
        this(Precedence.ONE_PARTITION);
    }

    SessionMailboxes(Precedence precedence) {
        this.precedence = precedence;
    }

    /** The session connected here; {@code awaitingHandoff}: it came from another front end. */
    synchronized void connected(long sessionId, ClientConnection c, boolean awaitingHandoff) {
        connected(sessionId, c, awaitingHandoff, 0);
    }

    /** As above, after the session's {@code move}th reconnect (ADR 098). */
    synchronized void connected(long sessionId, ClientConnection c, boolean awaitingHandoff, long move) {
        Box b = boxes.computeIfAbsent(sessionId, k -> new Box());
        b.arrivedBy = Math.max(b.arrivedBy, move);
        firstStay.putIfAbsent(sessionId, move);
        ClientConnection was = b.connection;
        b.connection = c;
        b.live = false;
        b.unanswered.clear();
        b.arrived = 0;
        b.answered = 0;
        for (Kept k : b.kept) {
            k.waitFor = 0; // (the new connection's count)
        }
        b.catchUpFirst = false;
        b.pendingRearm = null;
        b.delivered.clear();
        b.held.clear();
        if (was != c) {
            if (!b.handedOff) {
                // (a hand-off that came first brought the previous connection's log already)
                b.previous = b.written;
            }
            b.written = new ArrayDeque<>();
            b.writtenEvents = 0;
        }
        b.awaitingHandoff = awaitingHandoff && !b.handedOff;
        b.handedOff = false;
    }

    /**
     * A request of the session arrived on {@code c}: the events kept so far go out before its reply,
     * later ones in zxid order with the replies (see {@link #replying}). If the connection's first request
     * is {@code setWatches} ({@code rearm} not null), the kept events wait for its reply, and the events the
     * previous connection lost are kept again ahead of them.
     */
    synchronized void requestArrived(long sessionId, ClientConnection c, Rearm rearm) {
        requestArrived(sessionId, c, rearm, null);
    }

    /** As above, for a request sent to {@code partitions} (null: unknown). */
    synchronized void requestArrived(long sessionId, ClientConnection c, Rearm rearm, int[] partitions) {
        Box b = boxes.get(sessionId);
        if (b == null || b.connection != c) {
            return;
        }
        if (!b.live) {
            b.live = true;
            if (rearm != null) {
                b.catchUpFirst = true;
                if (b.awaitingHandoff) {
                    b.pendingRearm = rearm; // what the old connection was handed comes with the hand-off
                } else {
                    List<WatchEvent> lost = lost(b.previous, rearm);
                    b.previous.clear();
                    for (int i = lost.size() - 1; i >= 0; i--) {
                        b.kept.addFirst(new Kept(lost.get(i), 0));
                    }
                }
                for (Kept k : b.kept) {
                    k.waitFor = 1; // behind the setWatches reply, which orders them (catchUp)
                }
            } else {
                flush(b);
            }
        }
        b.arrived++;
        b.unanswered.addLast(partitions == null ? NO_PARTITIONS : partitions);
    }

    private static final int[] NO_PARTITIONS = new int[0];

    /**
     * The reply at {@code zxid} of a request of the session is about to be written on {@code c} (by
     * {@code write}, on the connection's event loop): the events it must not overtake go out first,
     * and once no reply is outstanding every event that waited.
     */
    synchronized void replying(long sessionId, ClientConnection c, long zxid, Runnable write) {
        Box b = boxes.get(sessionId);
        if (b == null || b.connection != c) {
            write.run();
            return;
        }
        if (b.awaitingHandoff || !b.held.isEmpty()) {
            // the old front end's events come first, and the replies may show their changes (ADR 079)
            b.held.addLast(new Held(zxid, write));
            return;
        }
        reply(sessionId, b, zxid, write);
    }

    /** Writes the reply at {@code zxid} after the events it must not overtake (see {@link #replying}). */
    private void reply(long sessionId, Box b, long zxid, Runnable write) {
        int[] partitions = b.unanswered.pollFirst();
        if (canSend(b) && b.catchUpFirst) {
            catchUp(b, zxid);
        } else if (canSend(b)) {
            int n = b.kept.size();
            for (int i = 0; i < n; i++) {
                Kept k = b.kept.removeFirst();
                long fired = commandZxid(k.event);
                // (those whose earlier requests are all answered went out with the last reply: flush)
                if (precedence.precedes(k.event, fired, zxid, partitions == null ? NO_PARTITIONS : partitions)) {
                    send(b, k.event);
                } else {
                    b.kept.addLast(k);
                }
            }
        }
        b.catchUpFirst = false;
        write.run();
        record(b, new VoleryWire.Handed(zxid, null));
        if (partitions != null) {
            b.answered++;
        }
        flush(b);
        if (b.closing && b.held.isEmpty() && boxes.get(sessionId) == b) {
            boxes.remove(sessionId); // the close's reply: the last thing its connection is handed
        }
    }

    /**
     * The events handed to a connection after the last reply with the zxid the client says it saw last (all
     * of them if no such reply), that fire a one-shot watch the client sets again: it never got them.
     */
    private static List<WatchEvent> lost(java.util.Collection<VoleryWire.Handed> handed, Rearm rearm) {
        List<VoleryWire.Handed> all = List.copyOf(handed);
        int from = 0;
        for (int i = all.size() - 1; i >= 0; i--) {
            if (all.get(i).event() == null && all.get(i).replyZxid() == rearm.relativeZxid()) {
                from = i + 1;
                break;
            }
        }
        List<WatchEvent> lost = new ArrayList<>();
        for (VoleryWire.Handed w : all.subList(from, all.size())) {
            if (w.event() != null && rearm.fires(w.event())) {
                lost.add(w.event());
            }
        }
        return lost;
    }

    /**
     * Remembers what the connection was handed, as far as it can matter: replies only after an event,
     * at most {@link #HANDED_REMEMBERED} entries, nothing once no event is left among them.
     */
    private static void record(Box b, VoleryWire.Handed w) {
        if (w.event() != null) {
            b.writtenEvents++;
        } else if (b.writtenEvents == 0) {
            return;
        }
        b.written.addLast(w);
        if (b.written.size() > HANDED_REMEMBERED && b.written.removeFirst().event() != null
                && --b.writtenEvents == 0) {
            b.written.clear();
        }
    }

    /**
     * Before the reply of the setWatches at {@code zxid} that opened the connection. Its events that no
     * event kept for the session repeats go first, in its order: their watches fired while the old
     * connection was still taken for open, so they precede every kept event, and the client never got
     * them (it sets those watches again). Then the events fired before it (kept while the session was
     * away, or since), in arrival order, which is causal order; an event of setWatches that one of them
     * repeats (same type and path) goes out as that one, in its place. Later events wait.
     */
    private static void catchUp(Box b, long zxid) {
        List<WatchEvent> own = new ArrayList<>();
        List<WatchEvent> before = new ArrayList<>();
        List<Kept> later = new ArrayList<>();
        for (Kept k : b.kept) {
            WatchEvent e = k.event;
            if (e.zxid() < 0 && VoleryWire.setWatchesCommandZxid(e.zxid()) == zxid) {
                own.add(e);
            } else if (commandZxid(e) <= zxid) {
                before.add(e);
            } else {
                later.add(k);
            }
        }
        b.kept.clear();
        b.kept.addAll(later);
        Map<String, Integer> keptCopies = new HashMap<>();
        for (WatchEvent e : before) {
            keptCopies.merge(key(e), 1, Integer::sum);
        }
        for (WatchEvent e : own) {
            String key = key(e);
            Integer n = keptCopies.get(key);
            if (n != null && n > 0) {
                keptCopies.put(key, n - 1);
            } else {
                send(b, e);
            }
        }
        for (WatchEvent e : before) {
            send(b, e);
        }
    }

    /** The zxid of the command that fired {@code e} (setWatches' events carry theirs encoded). */
    private static long commandZxid(WatchEvent e) {
        return e.zxid() < 0 ? VoleryWire.setWatchesCommandZxid(e.zxid()) : e.zxid();
    }

    synchronized void disconnected(long sessionId, ClientConnection c) {
        Box b = boxes.get(sessionId);
        if (b != null && b.connection == c) {
            b.connection = null;
            b.live = false;
            if (b.closing) {
                boxes.remove(sessionId);
            }
        }
    }

    /**
     * The session's close is answered and its reply is on its way to {@link #replying}: the session keeps its
     * box until that reply is written, so that the events its own watches fired as its ephemerals went reach it
     * first, as from ZooKeeper; then the box goes (at once if the connection is already gone).
     */
    synchronized void closing(long sessionId) {
        Box b = boxes.get(sessionId);
        if (b == null) {
            return;
        }
        if (b.connection == null) {
            boxes.remove(sessionId);
        } else {
            b.closing = true;
        }
    }

    /** Hands the event to its session now or keeps it; false when this front end holds no such session. */
    synchronized boolean offer(WatchEvent e) {
        Box b = boxes.get(e.sessionId());
        if (b == null) {
            return false;
        }
        keep(b, e);
        flush(b);
        return true;
    }

    /** Whether the session connected here from another front end and that one's hand-off has not come. */
    synchronized boolean awaitingHandoff(long sessionId) {
        Box b = boxes.get(sessionId);
        return b != null && b.awaitingHandoff;
    }

    /** The events the session's old front end kept for it (older than any received here). */
    synchronized void handoff(long sessionId, List<WatchEvent> older) {
        handoff(sessionId, older, List.of());
    }

    /**
     * The events the session's old front end kept for it (older than any received here), and what it had
     * handed the session's connection there: those of its events the client did not read (see
     * {@link #lost}) come before the kept ones.
     */
    synchronized void handoff(long sessionId, List<WatchEvent> older, List<VoleryWire.Handed> handed) {
        handoff(sessionId, older, handed, 0);
    }

    /** As above, for the session's {@code move}th reconnect (ADR 098; 0: unknown). */
    synchronized void handoff(long sessionId, List<WatchEvent> older, List<VoleryWire.Handed> handed, long move) {
        Box b = boxes.computeIfAbsent(sessionId, k -> new Box());
        b.arrivedBy = Math.max(b.arrivedBy, move);
        if (move > 0) {
            firstStay.putIfAbsent(sessionId, move);
        }
        if (b.connection == null && !b.awaitingHandoff) {
            b.handedOff = true;
        }
        List<WatchEvent> lost = List.of();
        if (!handed.isEmpty()) {
            if (b.pendingRearm != null) {
                lost = lost(handed, b.pendingRearm);
            } else {
                b.previous = new ArrayDeque<>(handed);
            }
        }
        b.pendingRearm = null;
        List<Kept> newer = new ArrayList<>(b.kept);
        b.kept.clear();
        for (WatchEvent e : lost) {
            keep(b, e);
        }
        for (WatchEvent e : older) {
            keep(b, e);
        }
        for (Kept k : newer) {
            keep(b, k);
        }
        b.awaitingHandoff = false;
        flush(b);
        ClientConnection c = b.connection;
        if (!b.held.isEmpty() && c != null) {
            c.inOrder(() -> release(sessionId, c));
        }
    }

    /** Writes the replies held for the hand-off, in order, each after the events it must not overtake. */
    private synchronized void release(long sessionId, ClientConnection c) {
        Box b = boxes.get(sessionId);
        if (b == null || b.connection != c || b.awaitingHandoff) {
            return; // a newer connection, or (again) a hand-off to wait for
        }
        while (!b.held.isEmpty()) {
            Held h = b.held.removeFirst();
            reply(sessionId, b, h.zxid(), h.write());
        }
    }

    /** What a front end hands over when its session reconnected through another one. */
    record Away(List<WatchEvent> kept, List<VoleryWire.Handed> handed) {
    }

    /**
     * The session reconnected through another front end: the events kept for it and what its last
     * connection here was handed, or null if the session had nothing here.
     */
    synchronized Away movedAway(long sessionId) {
        return movedAway(sessionId, 0);
    }

    /**
     * As above, for the session's {@code move}th reconnect (0: unknown, taken as the latest); null
     * too, leaving the box, when the session came here by that move or a later one: the notice is a late
     * copy (ADR 098).
     */
    synchronized Away movedAway(long sessionId, long move) {
        Box b = boxes.get(sessionId);
        if (b == null) {
            return null;
        }
        if (move > 0 && b.arrivedBy >= move) {
            log.debug("session=0x{} came here by move {}: ignored a late notice of move {}", Long.toHexString(sessionId),
                    b.arrivedBy, move);
            return null;
        }
        boxes.remove(sessionId);
        // written: the log of the session's last connection here, closed or not
        return new Away(b.kept.stream().map(k -> k.event).toList(), new ArrayList<>(b.written));
    }

    synchronized void forget(long sessionId) {
        boxes.remove(sessionId);
        firstStay.remove(sessionId);
    }

    /**
     * Whether an event of the session's stay here that began with its {@code move}th move belongs to an earlier
     * run of this front end (ADR 100): the session first came to this run by a later move. A replica replaying the
     * order sends such events here again; the earlier run delivered them, or its sessions lost them with it.
     */
    synchronized boolean ofAnEarlierRun(long sessionId, long move) {
        Long first = firstStay.get(sessionId);
        return first != null && move < first;
    }

    /** Keeps {@code e} behind the replies of the requests that arrived before it. */
    private static void keep(Box b, WatchEvent e) {
        keep(b, new Kept(e, b.arrived));
    }

    private static void keep(Box b, Kept k) {
        if (b.kept.size() == KEPT_PER_SESSION) {
            WatchEvent dropped = b.kept.removeFirst().event;
            log.warn("session=0x{} keeps at most {} events while away; dropped {} {}", Long.toHexString(k.event.sessionId()),
                    KEPT_PER_SESSION, dropped.type(), dropped.path());
        }
        k.waitFor = Math.max(k.waitFor, b.kept.isEmpty() ? 0 : b.kept.peekLast().waitFor);
        b.kept.addLast(k);
    }

    private static boolean canSend(Box b) {
        return b.live && !b.awaitingHandoff && b.connection != null;
    }

    /** Hands over, in order, the kept events whose requests that came before them are all answered. */
    private static void flush(Box b) {
        if (!canSend(b)) {
            return;
        }
        while (!b.kept.isEmpty() && b.kept.peekFirst().waitFor <= b.answered) {
            send(b, b.kept.removeFirst().event);
        }
    }

    /** An event's type and path: what tells a client which watches it fires. */
    private static String key(WatchEvent e) {
        return e.type() + " " + e.path();
    }

    private static void send(Box b, WatchEvent e) {
        String key = key(e);
        if (e.zxid() < 0) {
            // setWatches' own event (VoleryWire.setWatchesZxid): the client has it already if kept
            if (b.delivered.remove(key)) {
                return;
            }
        } else if (b.delivered.size() < KEPT_PER_SESSION) {
            b.delivered.add(key);
        }
        record(b, new VoleryWire.Handed(0, e));
        b.connection.notify(VoleryWire.clientZxid(e.zxid()), e.type().code(), e.path());
    }
}
