package io.eyrie.multicast.internal.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The outbound connection to one peer: dialled on the first send, said hello on, redialled with a
 * doubling, capped delay whenever it fails or drops. Senders on any thread put payloads in a bounded
 * {@link OutboundQueue}; the link's event loop moves them to the socket while the connection is
 * writable and flushes once per pass, so a burst of small messages costs one system call.
 *
 * <p>Everything but the queue and the drain flag is confined to {@link #loop}.
 */
final class PeerLink implements Link {

    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);

    private enum State { IDLE, CONNECTING, CONNECTED, BACKOFF, CLOSED }

    /** Large enough that per-write costs vanish, small enough to stay in the allocator's pooled sizes. */
    static final int BATCH_BYTES = 64 * 1024;

    private final int localNodeId;
    private final int peerId;
    private final String host;
    private final int port;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    /** Said on every connection from the next dial on; replaced when the cluster file is reloaded (ADR 102). */
    private volatile Hello hello;
    private final TransportOptions options;
    private final TransportCounters counters;
    private final InboundSessions events;
    private final OutboundQueue queue;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;

    private State state = State.IDLE;
    private Channel channel;
    private long nextBackoffMillis;
    private long connectedAtNanos;
    private int failedDials;
    /** Whether the last dial was refused (nothing listens at the peer's address); written on the loop. */
    private volatile boolean refused;
    private ScheduledFuture<?> redial;

    PeerLink(int localNodeId, int peerId, String host, int port, EventLoop loop, Bootstrap template, Hello hello,
             TransportOptions options, TransportCounters counters, InboundSessions events) {
        this(localNodeId, peerId, host, port, loop, template, hello, options, counters, events, null);
    }

    /** @param tls mutual TLS with the peer (ADR 061), or null for plain TCP */
    PeerLink(int localNodeId, int peerId, String host, int port, EventLoop loop, Bootstrap template, Hello hello,
             TransportOptions options, TransportCounters counters, InboundSessions events,
             io.eyrie.multicast.PeerTls tls) {
        this.localNodeId = localNodeId;
        this.peerId = peerId;
        this.host = host;
        this.port = port;
        this.loop = loop;
        this.hello = hello;
        this.options = options;
        this.counters = counters;
        this.events = events;
        this.queue = new OutboundQueue(options.outboundQueueBytes());
        this.nextBackoffMillis = options.reconnectMinMillis();
        this.bootstrap = template.clone(loop).handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                if (tls != null) {
                    // the hello and frames written before the handshake ends wait in the TLS handler
                    ch.pipeline().addLast("tls", tls.diallingHandler(ch.alloc(), host, port));
                    ch.pipeline().addLast("tlsFailures", new TlsFailureCounter(counters, localNodeId, "to"));
                }
                ch.pipeline().addLast("frameEncoder", FrameEncoder.INSTANCE);
                ch.pipeline().addLast("link", new LinkHandler());
            }
        });
    }

    /** The hello said on connections dialled from now on (the cluster file changed, ADR 102). */
    void hello(Hello next) {
        this.hello = next;
    }

    @Override
    public boolean send(OutboundPayload payload) {
        if (!queue.offer(payload)) {
            return false;
        }
        scheduleDrain();
        return true;
    }

    @Override
    public void close() {
        try {
            loop.execute(this::closeOnLoop);
        } catch (RejectedExecutionException e) {
            counters.framesDropped(queue.clear());
        }
    }

    private void scheduleDrain() {
        // One pending drain task per link at a time: it takes everything queued before it runs.
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException e) {
                counters.framesDropped(queue.clear());
            }
        }
    }

    private void drain() {
        // Cleared before reading the queue, so a payload offered from now on schedules another pass.
        drainScheduled.set(false);
        switch (state) {
            case IDLE -> dial();
            case CONNECTED -> writeQueued(false);
            case CLOSED -> counters.framesDropped(queue.clear());
            case CONNECTING, BACKOFF -> {
                // the queue waits (bounded) for the connection
            }
        }
    }

    /**
     * Moves queued payloads to the socket while it is writable, in batches of about
     * {@link #BATCH_BYTES}; one flush for all of them (and for earlier writes when {@code alsoFlush}).
     */
    private void writeQueued(boolean alsoFlush) {
        Channel ch = channel;
        int written = 0;
        FrameBatch batch = null;
        OutboundPayload payload;
        while (ch.isWritable() && (payload = queue.poll()) != null) {
            if (batch == null) {
                batch = new FrameBatch();
            }
            batch.add(payload);
            written++;
            if (batch.frameBytes() >= BATCH_BYTES) {
                ch.write(batch, ch.voidPromise());
                batch = null;
            }
        }
        if (batch != null) {
            ch.write(batch, ch.voidPromise());
        }
        counters.framesSent(written);
        if (written > 0 || alsoFlush) {
            counters.flushed();
            ch.flush();
        }
    }

    private void dial() {
        state = State.CONNECTING;
        ChannelFuture connecting = bootstrap.connect(host, port);
        connecting.addListener(f -> onDialled(connecting));
    }

    private void onDialled(ChannelFuture connecting) {
        if (state == State.CLOSED) {
            connecting.channel().close();
            return;
        }
        if (!connecting.isSuccess()) {
            failedDials++;
            refused = isRefusal(connecting.cause());
            // One line when a peer becomes unreachable, not one per retry.
            if (failedDials == 1) {
                LOG.info("node={} cannot reach peer={} at {}:{}: {}; retrying with delays up to {} ms", localNodeId,
                        peerId, host, port, connecting.cause().toString(), options.reconnectMaxMillis());
            } else {
                LOG.debug("node={} still cannot reach peer={} ({} tries): {}", localNodeId, peerId, failedDials,
                        connecting.cause().toString());
            }
            scheduleRedial();
            return;
        }
        failedDials = 0;
        refused = false;
        Channel ch = connecting.channel();
        channel = ch;
        state = State.CONNECTED;
        connectedAtNanos = System.nanoTime();
        LOG.info("node={} outbound connection up to peer={} at {}", localNodeId, peerId, ch.remoteAddress());
        events.notifyConnection(peerId, true);
        ch.write(hello.encode(ch.alloc()), ch.voidPromise());
        writeQueued(true);
        // Last, so that a connection already closed again reports "down" after "up", not before.
        ch.closeFuture().addListener(f -> onClosed(ch));
    }

    /** Whether the last attempt to connect was refused and none has succeeded since. */
    boolean refused() {
        return refused;
    }

    /** A connection refused (ECONNREFUSED: the host answers, nobody listens), not a timeout or an unreachable host. */
    static boolean isRefusal(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (t instanceof java.net.ConnectException && m != null && m.toLowerCase(java.util.Locale.ROOT).contains("refused")) {
                return true;
            }
        }
        return false;
    }

    private void onClosed(Channel ch) {
        if (ch != channel) {
            return;
        }
        channel = null;
        if (state == State.CLOSED) {
            return;
        }
        long upMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectedAtNanos);
        // A connection that lived a while was healthy: dial again quickly. One that dies at once (the
        // peer refuses our hello) keeps doubling the delay, so a misconfigured node is not hammered.
        if (upMillis >= options.reconnectMaxMillis()) {
            nextBackoffMillis = options.reconnectMinMillis();
        }
        LOG.info("node={} outbound connection down to peer={} after {} ms; redialling in {} ms", localNodeId, peerId,
                upMillis, nextBackoffMillis);
        events.notifyConnection(peerId, false);
        scheduleRedial();
    }

    private void scheduleRedial() {
        state = State.BACKOFF;
        long delay = nextBackoffMillis;
        nextBackoffMillis = Math.min(nextBackoffMillis * 2, options.reconnectMaxMillis());
        redial = loop.schedule(() -> {
            if (state == State.BACKOFF) {
                dial();
            }
        }, delay, TimeUnit.MILLISECONDS);
    }

    private void closeOnLoop() {
        state = State.CLOSED;
        if (redial != null) {
            redial.cancel(false);
        }
        if (channel != null) {
            channel.close();
        }
        counters.framesDropped(queue.clear());
    }

    /** The last handler of the outbound pipeline: resumes writing when the socket drains. */
    private final class LinkHandler extends ChannelInboundHandlerAdapter {

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable() && ctx.channel() == channel) {
                writeQueued(false);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            // Connections are one-way; a peer that answers on ours does not speak this protocol.
            ReferenceCountUtil.release(msg);
            LOG.warn("node={} closing outbound connection to peer={} at {}: the peer sent data on it",
                    localNodeId, peerId, ctx.channel().remoteAddress());
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("node={} outbound connection to peer={} failed: {}", localNodeId, peerId, cause.toString());
            ctx.close();
        }
    }
}
