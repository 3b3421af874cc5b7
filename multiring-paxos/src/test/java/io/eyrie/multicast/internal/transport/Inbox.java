package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.Transport;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What a real transport delivered to its node: per sender, the sequence numbers (first 4 bytes of
 * each message) in arrival order, and the connection events. Tests wait on it for a condition.
 */
class Inbox implements Transport.InboundHandler {

    private final Map<Integer, List<Integer>> bySender = new HashMap<>();
    private final List<String> events = new ArrayList<>();
    private final List<String> threads = new ArrayList<>();

    static ByteBuffer message(int seq, int sizeBytes) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(4, sizeBytes));
        b.putInt(0, seq);
        return b;
    }

    @Override
    public synchronized void onMessage(int fromNodeId, ByteBuffer message) {
        bySender.computeIfAbsent(fromNodeId, k -> new ArrayList<>()).add(message.getInt(message.position()));
        threads.add(Thread.currentThread().getName());
        notifyAll();
    }

    @Override
    public synchronized void onConnection(int nodeId, boolean up) {
        events.add(nodeId + (up ? " up" : " down"));
        notifyAll();
    }

    synchronized List<Integer> from(int nodeId) {
        return List.copyOf(bySender.getOrDefault(nodeId, List.of()));
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    synchronized List<String> threads() {
        return List.copyOf(threads);
    }

    synchronized void clear() {
        bySender.clear();
        events.clear();
    }

    /** Waits until {@code condition} holds over this inbox; fails with {@code what} and the inbox contents otherwise. */
    synchronized void await(String what, Duration timeout, Predicate<Inbox> condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.test(this)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what
                        + "; got " + summary());
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** Waits until {@code count} messages arrived from {@code nodeId}. */
    void awaitCount(int nodeId, int count, Duration timeout) throws InterruptedException {
        await(count + " messages from node " + nodeId, timeout, in -> in.from(nodeId).size() >= count);
    }

    synchronized String summary() {
        StringBuilder s = new StringBuilder("{");
        bySender.forEach((k, v) -> s.append("from ").append(k).append(": ").append(v.size()).append(" messages")
                .append(v.isEmpty() ? "" : " (first " + v.get(0) + ", last " + v.get(v.size() - 1) + ")").append("; "));
        return s.append("events ").append(events).append('}').toString();
    }

    static List<Integer> range(int from, int toExclusive) {
        List<Integer> r = new ArrayList<>();
        for (int i = from; i < toExclusive; i++) {
            r.add(i);
        }
        return r;
    }
}
