package io.volery.server.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A front end's record of which front ends have queued the watch events of which command, so that it
 * releases a command's reply only after every front end holding a session whose watch the command
 * fired has handed that session the event. Whatever a client learns after the reply (another write,
 * a read of any partition) is then ordered after the event at every front end: ZooKeeper's "a client
 * sees the event before any data that reflects the change".
 *
 * <p>Acknowledgements often arrive before the reply they release (the event leaves the replica
 * first), so they are remembered, boundedly. A front end that never answers (it died) holds a reply
 * no longer than {@code timeoutMillis}: its sessions are then disconnected and will learn nothing
 * from it.
 */
public final class EventAcknowledgements {
    private static final Logger log = LoggerFactory.getLogger(EventAcknowledgements.class);
    private static final int REMEMBERED = 10_000;

    private final int self;
    private final ScheduledExecutorService timer;
    private final long timeoutMillis;
    /** Per command zxid: the front ends that acknowledged it (recent ones only). */
    private final Map<Long, Set<Integer>> acknowledged = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Set<Integer>> eldest) {
            return size() > REMEMBERED;
        }
    };
    private final Map<Long, Waiting> waiting = new java.util.HashMap<>();

    private record Waiting(Set<Integer> missing, CompletableFuture<Void> done) {
    }

    public EventAcknowledgements(int self, ScheduledExecutorService timer, long timeoutMillis) {
        this.self = self;
        this.timer = timer;
        this.timeoutMillis = timeoutMillis;
    }

    /** Front end {@code from} has queued the events of the command at {@code zxid}. */
    public void acknowledged(int from, long zxid) {
        CompletableFuture<Void> release = null;
        synchronized (this) {
            acknowledged.computeIfAbsent(zxid, z -> new HashSet<>()).add(from);
            Waiting w = waiting.get(zxid);
            if (w != null && w.missing.remove(from) && w.missing.isEmpty()) {
                waiting.remove(zxid);
                release = w.done;
            }
        }
        if (release != null) {
            release.complete(null);
        }
    }

    /** Completes once every one of {@code frontEnds} has queued the events of the command at {@code zxid}. */
    public CompletableFuture<Void> await(long zxid, int[] frontEnds) {
        CompletableFuture<Void> done;
        synchronized (this) {
            Set<Integer> missing = new HashSet<>();
            Set<Integer> have = acknowledged.getOrDefault(zxid, Set.of());
            for (int f : frontEnds) {
                if (!have.contains(f)) {
                    missing.add(f);
                }
            }
            if (missing.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            Waiting w = waiting.get(zxid);
            if (w == null) {
                w = new Waiting(missing, new CompletableFuture<>());
                waiting.put(zxid, w);
            } else {
                w.missing.addAll(missing);
            }
            done = w.done;
        }
        timer.schedule(() -> {
            Set<Integer> missing;
            synchronized (this) {
                Waiting w = waiting.remove(zxid);
                missing = w == null ? null : w.missing;
            }
            if (missing != null) {
                log.warn("node={} released the reply of zxid=0x{} after {} ms without the acknowledgement of front ends {}",
                        self, Long.toHexString(zxid), timeoutMillis, missing);
                done.complete(null);
            }
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        return done;
    }

    /**
     * A replica's answer, once it may go to the client: a reply whose command fired watch events comes
     * as {@code {reply, front ends, zxid}} and is released when those front ends have queued the events.
     */
    public CompletableFuture<Object> released(Object result) {
        if (result instanceof Object[] withEvents) {
            Object reply = withEvents[0];
            return await((Long) withEvents[2], (int[]) withEvents[1]).thenApply(x -> reply);
        }
        return CompletableFuture.completedFuture(result);
    }

    /**
     * Acknowledges a copy of {@code events} received at node {@code self}: to itself, or to the front end
     * whose reply waits for it. Every copy is acknowledged: the first may have gone to a reply that was
     * not waiting yet.
     */
    public void queued(VoleryWire.Events events, io.eyrie.multicast.DirectChannel channel) {
        if (events.ackTo() == self) {
            acknowledged(self, events.ackZxid());
        } else if (events.ackTo() != VoleryWire.NO_ACK) {
            channel.sendDirect(events.ackTo(), VoleryWire.eventsQueued(events.ackZxid()));
        }
    }
}
