package io.volery.client;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A watcher that records what it is told and lets a test wait for an event. */
final class EventLog implements Watcher {
    private final List<WatchedEvent> events = new ArrayList<>();

    @Override
    public synchronized void process(WatchedEvent event) {
        events.add(event);
        notifyAll();
    }

    synchronized List<WatchedEvent> events() {
        return List.copyOf(events);
    }

    /** Events with a path (watch events), as "Type path" strings. */
    synchronized List<String> nodeEvents() {
        return events.stream().filter(e -> e.getType() != Event.EventType.None)
                .map(e -> e.getType() + " " + e.getPath()).toList();
    }

    /** Waits for an event matching {@code p}; fails with what did arrive if none comes in time. */
    synchronized WatchedEvent await(Predicate<WatchedEvent> p, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            for (WatchedEvent e : events) {
                if (p.test(e)) {
                    return e;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("expected " + what + " within 20 s; events seen: " + events);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    WatchedEvent await(Event.EventType type, String path) throws InterruptedException {
        return await(e -> e.getType() == type && path.equals(e.getPath()), type + " " + path);
    }

    WatchedEvent await(Event.KeeperState state) throws InterruptedException {
        return await(e -> e.getType() == Event.EventType.None && e.getState() == state, "state " + state);
    }
}
