package io.volery.client;

import io.volery.server.tree.WatchEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps the first copy of each watch event: every replica of a partition sends the same events, and
 * commands ordered to every partition fire them in each. One command may fire the same event twice
 * (a persistent watch and two setData in a multi), so an event's occurrence within its message is part
 * of its identity. Remembers a bounded number of events, the oldest forgotten first.
 */
final class EventDeduplicator {
    private final Map<String, Boolean> seen;

    EventDeduplicator(int remembered) {
        this.seen = new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > remembered;
            }
        };
    }

    /** The events of one message not seen before, in message order. */
    synchronized List<WatchEvent> firstCopies(List<WatchEvent> events) {
        List<WatchEvent> fresh = new ArrayList<>(events.size());
        Map<String, Integer> occurrences = new HashMap<>();
        for (WatchEvent e : events) {
            String event = e.sessionId() + "/" + e.zxid() + "/" + e.type().code() + "/" + e.path();
            String key = event + "#" + occurrences.merge(event, 1, Integer::sum);
            if (seen.putIfAbsent(key, Boolean.TRUE) == null) {
                fresh.add(e);
            }
        }
        return fresh;
    }
}
