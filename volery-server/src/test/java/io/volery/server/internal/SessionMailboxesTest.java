package io.volery.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.volery.server.frontend.ClientConnection;
import io.volery.server.tree.EventType;
import io.volery.server.tree.WatchEvent;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
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
        m.requestArrived(SESSION, c);
        m.requestArrived(SESSION, c);
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
    void setWatchesEventsGoOutBeforeTheSetWatchesReply() {
        SessionMailboxes m = new SessionMailboxes();
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        m.requestArrived(SESSION, c);
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
        m.requestArrived(SESSION, old);
        m.disconnected(SESSION, old);
        m.offer(changed("/a", 50));
        Recorded c = new Recorded();
        m.connected(SESSION, c, false);
        reply(m, old, 45);
        assertEquals(List.of("reply @45"), old.written, "the old connection's reply goes nowhere near the session's box");
        m.requestArrived(SESSION, c);
        assertEquals(List.of("event /a@50"), c.written);
        reply(m, c, 60);
        assertEquals(List.of("event /a@50", "reply @60"), c.written);
    }
}
