package io.eyrie.transport.dpdk;

import io.eyrie.multicast.Ballot;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;
import io.eyrie.multicast.Transport;
import io.eyrie.multicast.internal.transport.ClusterFingerprint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The multicast layer's {@link Transport} over DPDK: Ethernet + IPv4 + UDP packets on DPDK ports
 * (virtual devices such as memif and af_packet, or a real NIC), one polling thread per port,
 * messages fragmented to the MTU and checked like TCP frames (magic, length, CRC32C).
 *
 * <p>Best effort like the SPI asks: {@link #send} never blocks; a full port queue, an unknown node
 * or a device that refuses packets means a drop, counted in {@link #stats()} and
 * {@link #deviceStats()}, and left to the protocol's retransmission.
 *
 * <pre>
 * MulticastNode node = MulticastNode.builder(config, id)
 *         .transport(DpdkTransport.factory(DpdkSettings.load(path))).build();
 * </pre>
 */
public final class DpdkTransport implements Transport {
    private static final Logger log = LoggerFactory.getLogger(DpdkTransport.class);

    private final int nodeId;
    private final DpdkSettings settings;
    private final int maxPayloadBytes;
    private final Endpoint self;
    private final Map<Integer, Endpoint> peers = new HashMap<>();
    private final long fingerprint;
    private final PortLoop.Counters counters = new PortLoop.Counters();
    private final List<PortLoop> loops = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /**
     * Node id → the port that reaches it; published whole at the end of start(), since callers
     * (MulticastNode's loop) may already send while start() runs.
     */
    private volatile Map<Integer, PortLoop> route = Map.of();
    private volatile boolean closed;

    /**
     * @param maxPayloadBytes the largest message accepted, sent or received; larger are dropped
     */
    public DpdkTransport(ClusterConfig config, int nodeId, DpdkSettings settings, int maxPayloadBytes) {
        this.nodeId = nodeId;
        this.settings = settings;
        this.maxPayloadBytes = maxPayloadBytes;
        this.self = Endpoint.of(config.node(nodeId));
        for (ClusterConfig.Node n : config.nodes().values()) {
            peers.put(n.id(), Endpoint.of(n));
        }
        this.fingerprint = ClusterFingerprint.of(config);
    }

    /** For {@link MulticastNode.Builder#transport}: messages up to the cluster's batch size and some headroom. */
    public static Function<MulticastNode, Transport> factory(DpdkSettings settings) {
        return node -> new DpdkTransport(node.config(), node.nodeId(), settings,
                node.config().parameters().batchMaxBytes() + 64 * 1024);
    }

    @Override
    public synchronized void start(InboundHandler handler) {
        if (!loops.isEmpty()) {
            throw new IllegalStateException("DPDK transport of node " + nodeId + " already started");
        }
        Eal.ensureStarted(settings.ealArgs());
        Map<Integer, PortLoop> routes = new HashMap<>();
        for (DpdkSettings.Port p : settings.ports()) {
            int port = DpdkNative.portByName(p.device());
            long handle = DpdkNative.portStart(port, 1024, 8191, settings.mtu(), 300);
            DpdkNative.setRxDropPerMillion(handle, settings.rxDropPerMillion());
            PortLoop loop = new PortLoop(p.device(), handle, self, peers, fingerprint, settings.mtu(), maxPayloadBytes,
                    settings.queueMessages(), settings.idleParkMicros(), handler, counters, Ballot.MAX_NODE_ID);
            loops.add(loop);
            for (int peer : peers.keySet()) {
                if (peer != nodeId && p.reaches(peer)) {
                    routes.putIfAbsent(peer, loop);
                }
            }
            log.info("node={} DPDK port {} (id {}, mac {}) reaches nodes {}", nodeId, p.device(), port,
                    DpdkNative.portMac(handle), p.peers().length == 0 ? "all" : java.util.Arrays.toString(p.peers()));
        }
        routes.put(nodeId, loops.get(0));
        for (int peer : peers.keySet()) {
            if (!routes.containsKey(peer)) {
                log.warn("node={} no DPDK port reaches node {}: messages to it are dropped (check port.DEVICE.peers)",
                        nodeId, peer);
            }
        }
        for (PortLoop loop : loops) {
            Thread t = new Thread(loop, "dpdk-" + loop.device());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        route = Map.copyOf(routes);
        if (settings.statsLogMillis() > 0) {
            Thread t = new Thread(this::logStats, "dpdk-stats");
            t.setDaemon(true);
            t.start();
        }
    }

    private void logStats() {
        while (!closed) {
            try {
                Thread.sleep(settings.statsLogMillis());
            } catch (InterruptedException e) {
                return;
            }
            if (!closed) {
                log.info("node={} dpdk-stats {} {}", nodeId, stats(), deviceStats());
            }
        }
    }

    @Override
    public boolean send(int toNodeId, ByteBuffer message) {
        PortLoop loop = route.get(toNodeId);
        if (closed || loop == null || message.remaining() > maxPayloadBytes) {
            counters.dropped.increment();
            return false;
        }
        // Framed (and checksummed) on the caller's thread: the copy the SPI requires anyway, and
        // CRC work spread over callers instead of piled on the polling thread.
        ByteBuffer frame = ByteBuffer.allocate(MessageFrame.frameBytes(message.remaining()));
        MessageFrame.write(message, frame);
        return loop.offer(new PortLoop.Outbound(toNodeId, frame.flip()));
    }

    @Override
    public TransportStats stats() {
        return new TransportStats(counters.sent.sum(), counters.received.sum(), counters.dropped.sum(),
                counters.rejected.sum());
    }

    /** Device-level counters of each port: what the NIC (or virtual device) saw and dropped. */
    public synchronized List<DeviceStats> deviceStats() {
        List<DeviceStats> out = new ArrayList<>();
        long[] v = new long[8];
        for (PortLoop loop : loops) {
            DpdkNative.portStats(loop.handle(), v);
            out.add(new DeviceStats(loop.device(), DpdkNative.portLinkUp(loop.handle()), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                    loop.reassemblyAbandoned(), loop.queued()));
        }
        return out;
    }

    /**
     * @param rxMissed      packets the device dropped for lack of RX descriptors (imissed)
     * @param rxNoMbuf      RX allocation failures
     * @param injectedDrops packets discarded by the rx.dropPerMillion test hook
     * @param txOverflow    packets the TX ring or the mbuf pool did not take
     * @param reassemblyAbandoned messages given up with fragments missing
     */
    public record DeviceStats(String device, boolean linkUp, long rxPackets, long txPackets, long rxMissed, long rxErrors,
                              long txErrors, long rxNoMbuf, long injectedDrops, long txOverflow,
                              long reassemblyAbandoned, int queuedMessages) {
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        loops.forEach(PortLoop::stop);
        for (Thread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (PortLoop loop : loops) {
            DpdkNative.portStop(loop.handle());
        }
    }
}
