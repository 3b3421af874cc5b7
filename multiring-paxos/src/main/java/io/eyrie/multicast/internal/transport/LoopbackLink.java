package io.eyrie.multicast.internal.transport;

import java.nio.ByteBuffer;
import io.netty.channel.EventLoop;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Messages a node sends to itself: delivered on an event loop like any inbound message, never
 * inside {@code send}, so a handler that sends to itself does not recurse into itself.
 */
final class LoopbackLink implements Link {

    private final int localNodeId;
    private final EventLoop loop;
    private final OutboundQueue queue;
    private final TransportCounters counters;
    private final InboundSessions sessions;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    private volatile boolean closed;

    LoopbackLink(int localNodeId, EventLoop loop, TransportOptions options, TransportCounters counters,
                 InboundSessions sessions) {
        this.localNodeId = localNodeId;
        this.loop = loop;
        this.queue = new OutboundQueue(options.outboundQueueBytes());
        this.counters = counters;
        this.sessions = sessions;
    }

    /** Messages delivered per pass, so a handler that keeps sending to itself cannot starve the loop. */
    private static final int MESSAGES_PER_PASS = 4096;

    @Override
    public boolean send(OutboundPayload payload) {
        if (!queue.offer(payload)) {
            return false;
        }
        scheduleDrain();
        return true;
    }

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException e) {
                counters.framesDropped(queue.clear());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        counters.framesDropped(queue.clear());
    }

    private void drain() {
        drainScheduled.set(false);
        OutboundPayload payload;
        int delivered = 0;
        while (delivered < MESSAGES_PER_PASS && (payload = queue.poll()) != null) {
            delivered++;
            if (closed) {
                counters.frameDropped();
                continue;
            }
            counters.frameSent();
            sessions.deliver(localNodeId, ByteBuffer.wrap(payload.joined()));
        }
        if (delivered == MESSAGES_PER_PASS && queue.queuedBytes() > 0) {
            scheduleDrain();
        }
    }
}
