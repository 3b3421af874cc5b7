package io.volery.client;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.SideChannel;
import io.eyrie.multicast.Transport;
import io.eyrie.multicast.internal.transport.NettyTransport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default TCP transport of a node, except that it loses the next outgoing frames that contain a marker
 * ({@link #loseNext}), as frames lost on their way (a reset connection) would be: the protocol above sends
 * them again when it notices.
 */
final class DroppingTransport implements Transport {
    private final NettyTransport delegate;
    private volatile byte[] marker = new byte[0];
    private final AtomicInteger dropsLeft = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();

    DroppingTransport(ClusterConfig config, int nodeId) {
        this.delegate = new NettyTransport(config, nodeId, config.parameters().batchMaxBytes() + 64 * 1024);
    }

    /** Loses the next {@code frames} outgoing frames that contain {@code marker}. */
    void loseNext(String marker, int frames) {
        this.marker = marker.getBytes(StandardCharsets.UTF_8);
        dropsLeft.set(frames);
    }

    /** Frames lost so far. */
    int dropped() {
        return dropped.get();
    }

    private boolean lose(byte[] a, int from, int to) {
        if (dropsLeft.get() <= 0 || !contains(a, from, to)) {
            return false;
        }
        if (dropsLeft.getAndDecrement() > 0) {
            dropped.incrementAndGet();
            return true;
        }
        return false;
    }

    private boolean contains(byte[] a, int from, int to) {
        byte[] marker = this.marker;
        outer:
        for (int i = from; i <= to - marker.length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (a[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void start(InboundHandler handler) {
        delegate.start(handler);
    }

    @Override
    public boolean send(int nodeId, ByteBuffer message) {
        byte[] copy = new byte[message.remaining()];
        message.duplicate().get(copy);
        return lose(copy, 0, copy.length) || delegate.send(nodeId, message);
    }

    @Override
    public boolean sendOwned(int nodeId, byte[] message) {
        return lose(message, 0, message.length) || delegate.sendOwned(nodeId, message);
    }

    @Override
    public boolean sendOwned(int nodeId, byte[] head, byte[] tail) {
        byte[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return lose(all, 0, all.length) || delegate.sendOwned(nodeId, head, tail);
    }

    @Override
    public Loop protocolLoop() {
        return delegate.protocolLoop();
    }

    @Override
    public boolean serveSideRequests(SideChannel.Server server) {
        return delegate.serveSideRequests(server);
    }

    @Override
    public TransportStats stats() {
        return delegate.stats();
    }

    @Override
    public boolean peerRefuses(int nodeId) {
        return delegate.peerRefuses(nodeId);
    }

    @Override
    public long socketWrites() {
        return delegate.socketWrites();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
