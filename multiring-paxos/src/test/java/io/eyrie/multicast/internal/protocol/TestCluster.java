package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A small reliable cluster for focused tests: every message takes exactly {@code linkMillis},
 * nodes tick every millisecond, and a test can watch or drop messages and crash or restart nodes.
 */
final class TestCluster {
    record Sent(long at, int from, int to, Message message, byte[] bytes) {
        boolean carries(byte[] pattern) {
            outer:
            for (int i = 0; i + pattern.length <= bytes.length; i++) {
                for (int j = 0; j < pattern.length; j++) {
                    if (bytes[i + j] != pattern[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }
    }

    record Delivered(long at, int node, Delivery delivery) {
    }

    private record InTransit(long at, long seq, int from, int to, byte[] bytes) {
    }

    final ClusterConfig config;
    final long linkMillis;
    long now;
    private long seq;
    final Map<Integer, NodeProtocol> nodes = new TreeMap<>();
    final Map<Integer, Map<Integer, AcceptorLog>> logs = new TreeMap<>();
    private final Map<Integer, Long> incarnations = new TreeMap<>();
    private final PriorityQueue<InTransit> network = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
    final List<Sent> sent = new ArrayList<>();
    final List<Delivered> delivered = new ArrayList<>();
    final List<long[]> ordered = new ArrayList<>();
    /** {node, ring, needed instance, lowest kept} of each behindTrimmedLogs report. */
    final List<long[]> behindTrimmed = new ArrayList<>();
    /** Called inside deliver(), as an application would be. */
    java.util.function.BiConsumer<Integer, Delivery> onDeliver = (n, d) -> { };
    /** Milliseconds a link (from, to) takes beyond linkMillis; constant per link, so links stay FIFO. */
    java.util.function.ToLongBiFunction<Integer, Integer> slowLinks = (from, to) -> 0L;
    /** Messages for which this returns true are lost. */
    Predicate<Sent> drop = s -> false;

    private final NodeProtocol.Faults faults;

    TestCluster(String clusterFile, long linkMillis) {
        this(clusterFile, linkMillis, NodeProtocol.Faults.NONE);
    }

    TestCluster(String clusterFile, long linkMillis, NodeProtocol.Faults faults) {
        this.faults = faults;
        this.config = ClusterConfig.parse(clusterFile, "test");
        this.linkMillis = linkMillis;
        for (int id : config.nodes().keySet()) {
            Map<Integer, AcceptorLog> l = new TreeMap<>();
            for (int r : config.ringsAcceptedBy(id)) {
                l.put(r, new MemoryAcceptorLog(1000));
            }
            logs.put(id, l);
            start(id);
        }
    }

    void start(int id) {
        long inc = incarnations.merge(id, 1L, Long::sum);
        for (AcceptorLog l : logs.get(id).values()) {
            ((MemoryAcceptorLog) l).reopen();
        }
        nodes.put(id, new NodeProtocol(config, id, inc, logs.get(id), null, now, faults));
    }

    /** Restarts with a learner checkpoint (the application's snapshot). */
    void start(int id, byte[] learnerCheckpoint) {
        long inc = incarnations.merge(id, 1L, Long::sum);
        nodes.put(id, new NodeProtocol(config, id, inc, logs.get(id), learnerCheckpoint, now, faults));
    }

    void crash(int id) {
        nodes.remove(id);
    }

    Output outputOf(int id) {
        return new Output() {
            @Override
            public void send(int to, byte[] message) {
                Sent s = new Sent(now, id, to, MessageCodec.decode(ByteBuffer.wrap(message)), message);
                sent.add(s);
                if (!drop.test(s)) {
                    network.add(new InTransit(now + linkMillis + slowLinks.applyAsLong(id, to), seq++, id, to, message));
                }
            }

            @Override
            public void deliver(Delivery d) {
                delivered.add(new Delivered(now, id, d));
                onDeliver.accept(id, d);
            }

            @Override
            public void ordered(long proposalSeq) {
                ordered.add(new long[] {id, proposalSeq, now});
            }

            @Override
            public void direct(int fromNodeId, byte[] appMessage) {
            }

            @Override
            public void behindTrimmedLogs(int ring, long neededInstance, long lowestKept) {
                behindTrimmed.add(new long[] {id, ring, neededInstance, lowestKept});
            }
        };
    }

    long propose(int node, int[] groups, byte[] payload) {
        return nodes.get(node).propose(groups, payload, now, outputOf(node));
    }

    /** Advances the clock by {@code millis}, delivering messages and ticking every millisecond. */
    void run(long millis) {
        long end = now + millis;
        while (now < end) {
            while (!network.isEmpty() && network.peek().at <= now) {
                InTransit m = network.poll();
                NodeProtocol n = nodes.get(m.to);
                if (n != null) {
                    n.onMessage(m.from, ByteBuffer.wrap(m.bytes), now, outputOf(m.to));
                }
            }
            for (Map.Entry<Integer, NodeProtocol> e : nodes.entrySet()) {
                e.getValue().onTick(now, outputOf(e.getKey()));
            }
            now++;
        }
    }

    List<Delivery> deliveriesAt(int node) {
        return delivered.stream().filter(d -> d.node == node).map(Delivered::delivery).toList();
    }
}
