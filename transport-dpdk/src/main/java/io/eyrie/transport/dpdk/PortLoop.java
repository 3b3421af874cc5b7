package io.eyrie.transport.dpdk;

import io.eyrie.multicast.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that owns a DPDK port: it polls RX, reassembles and checks messages and hands
 * them to the handler, and it drains the port's bounded outbound queue into TX bursts. DPDK queues
 * are not thread-safe, so this thread is their only user.
 */
final class PortLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(PortLoop.class);

    /** Idle polls before the thread starts pausing, so a busy port stays at full polling speed. */
    private static final int SPINS_BEFORE_PARK = 200;
    private static final int MESSAGES_PER_TURN = 64;
    /** How long packets the TX ring refused are retried before they are given up (and counted). */
    private static final long TX_RETRY_NANOS = 2_000_000;

    record Outbound(int to, ByteBuffer frame) {
    }

    private final String device;
    private final long handle;
    private final Endpoint self;
    private final Map<Integer, Endpoint> peers;
    private final long fingerprint;
    private final Fragmenter fragmenter;
    private final Reassembler reassembler;
    private final int maxPayloadBytes;
    private final ArrayBlockingQueue<Outbound> outbound;
    private final Transport.InboundHandler handler;
    private final Counters counters;
    private final long idleParkNanos;
    private final ByteBuffer rx;
    private final ByteBuffer tx;
    private final boolean[] seen;
    private long nextMessageId = System.nanoTime();
    private int txRecords;
    /** When the TX ring first refused the packets still at the head of {@link #tx}; 0 when none. */
    private long txStalledSince;
    private volatile boolean running = true;
    private boolean warnedFingerprint;

    /** Transport-wide counters shared by the loops of all ports. */
    static final class Counters {
        final LongAdder sent = new LongAdder();
        final LongAdder received = new LongAdder();
        final LongAdder dropped = new LongAdder();
        final LongAdder rejected = new LongAdder();
    }

    PortLoop(String device, long handle, Endpoint self, Map<Integer, Endpoint> peers, long fingerprint, int mtu,
             int maxPayloadBytes, int queueMessages, long idleParkMicros, Transport.InboundHandler handler,
             Counters counters, int maxNodeId) {
        this.device = device;
        this.handle = handle;
        this.self = self;
        this.peers = peers;
        this.fingerprint = fingerprint;
        this.fragmenter = new Fragmenter(self, fingerprint, mtu);
        this.maxPayloadBytes = maxPayloadBytes;
        this.reassembler = new Reassembler(MessageFrame.frameBytes(maxPayloadBytes), 256, 500_000_000L);
        this.outbound = new ArrayBlockingQueue<>(queueMessages);
        this.handler = handler;
        this.counters = counters;
        this.idleParkNanos = idleParkMicros * 1000;
        this.rx = ByteBuffer.allocateDirect(32 * (2 + 14 + 4 + 9018));
        this.tx = ByteBuffer.allocateDirect(fragmenter.recordBytes(MessageFrame.frameBytes(maxPayloadBytes)) + 64 * 1024);
        this.seen = new boolean[maxNodeId + 1];
    }

    String device() {
        return device;
    }

    long handle() {
        return handle;
    }

    int queued() {
        return outbound.size();
    }

    long reassemblyAbandoned() {
        return reassembler.abandoned();
    }

    /** Queues a framed message; false (and counted as dropped) when the queue is full. */
    boolean offer(Outbound m) {
        if (outbound.offer(m)) {
            return true;
        }
        counters.dropped.increment();
        return false;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        int idle = 0;
        while (running) {
            int work;
            try {
                work = receive() + transmit();
            } catch (RuntimeException e) {
                // A handler bug must not silently stop the port: log and keep polling.
                log.error("port {}: error in the polling loop", device, e);
                work = 1;
            }
            if (work > 0) {
                idle = 0;
            } else if (++idle > SPINS_BEFORE_PARK) {
                if (idleParkNanos > 0) {
                    LockSupport.parkNanos(idleParkNanos);
                } else {
                    Thread.onSpinWait();
                }
            }
        }
    }

    private int receive() {
        rx.clear();
        int records = DpdkNative.rxBurst(handle, rx);
        int pos = 0;
        long now = records > 0 ? System.nanoTime() : 0;
        for (int i = 0; i < records; i++) {
            int len = rx.getShort(pos) & 0xffff;
            ByteBuffer packet = rx.duplicate().position(pos + 2).limit(pos + 2 + len);
            pos += 2 + len;
            receivePacket(packet, now);
        }
        return records;
    }

    private void receivePacket(ByteBuffer packet, long now) {
        int at = UdpPacket.payloadOffset(packet, self);
        if (at < 0 || packet.limit() - at < Fragment.HEADER_BYTES) {
            return; // not ours: other traffic on a shared link
        }
        Fragment f = Fragment.read(packet, at, packet.limit() - at - Fragment.HEADER_BYTES);
        if (f == null) {
            counters.rejected.increment();
            return;
        }
        if (f.fingerprint() != fingerprint || !peers.containsKey(f.from())) {
            counters.rejected.increment();
            if (!warnedFingerprint) {
                warnedFingerprint = true;
                log.warn("port {}: refusing packets from node {} with another cluster file (fingerprint {} vs ours {})",
                        device, f.from(), Long.toHexString(f.fingerprint()), Long.toHexString(fingerprint));
            }
            return;
        }
        ByteBuffer data = packet.position(at + Fragment.HEADER_BYTES).slice();
        ByteBuffer frame = reassembler.accept(f, data, now);
        if (frame != null) {
            deliver(f.from(), frame);
        }
    }

    private void deliver(int from, ByteBuffer frame) {
        String problem = MessageFrame.check(frame, maxPayloadBytes);
        if (problem != null) {
            counters.rejected.increment();
            log.warn("port {}: rejected a message from node {}: {}", device, from, problem);
            return;
        }
        counters.received.increment();
        if (from < seen.length && !seen[from]) {
            seen[from] = true;
            handler.onConnection(from, true);
        }
        handler.onMessage(from, MessageFrame.payload(frame));
    }

    private int transmit() {
        if (txRecords > 0 && !flush()) {
            // The ring is still full: new messages wait in their queue (bounded, counted when full).
            return 0;
        }
        int n = 0;
        Outbound m;
        while (n < MESSAGES_PER_TURN && (m = outbound.peek()) != null) {
            int need = fragmenter.recordBytes(m.frame().remaining());
            if (m.to() != self.nodeId() && tx.remaining() < need && (!flush() || tx.remaining() < need)) {
                break; // the ring is full: the message stays queued for a later turn
            }
            outbound.poll();
            n++;
            if (m.to() == self.nodeId()) {
                deliver(m.to(), m.frame());
                continue;
            }
            txRecords += fragmenter.write(m.frame(), peers.get(m.to()), nextMessageId++, tx);
            counters.sent.increment();
        }
        flush();
        return n;
    }

    /**
     * Hands the TX records to the device. Packets the ring refuses stay at the head of the buffer
     * for the next turn, for at most {@link #TX_RETRY_NANOS}; then they are dropped and counted.
     * Returns true when the buffer is empty afterwards.
     */
    private boolean flush() {
        if (txRecords == 0) {
            tx.clear();
            return true;
        }
        int sent = DpdkNative.txBurst(handle, tx, txRecords);
        if (sent == txRecords) {
            txRecords = 0;
            txStalledSince = 0;
            tx.clear();
            return true;
        }
        long now = System.nanoTime();
        if (sent > 0 || txStalledSince == 0) {
            txStalledSince = now;
        } else if (now - txStalledSince > TX_RETRY_NANOS) {
            DpdkNative.countTxOverflow(handle, txRecords);
            txRecords = 0;
            txStalledSince = 0;
            tx.clear();
            return true;
        }
        int skip = 0;
        for (int i = 0; i < sent; i++) {
            skip += 2 + (tx.getShort(skip) & 0xffff);
        }
        tx.flip().position(skip);
        tx.compact();
        txRecords -= sent;
        return false;
    }
}
