package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.Position;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The invariants of atomic multicast, checked as events happen: agreement per ring instance,
 * integrity (at most once, nothing invented, only to addressees), positions strictly increasing
 * per learner and equal for the same message everywhere; and, after healing, liveness.
 */
final class SimChecker {
    record Made(long id, int node, long incarnation, long seq, int[] groups) {
    }

    private final ClusterConfig config;
    private final Map<Long, Made> proposals = new HashMap<>();
    private final Map<String, Long> bySeq = new HashMap<>();
    private final Set<String> orderedKeys = new HashSet<>();
    private final Map<Long, Long> positionOf = new HashMap<>();
    private final Map<Long, Long> messageAt = new HashMap<>();
    private final Set<Long> deliveredAnywhere = new HashSet<>();
    private final Map<Long, byte[]> decidedValues = new HashMap<>();
    /** Per node: what its application holds (carried over a checkpointed restart). */
    private final Map<Integer, Set<Long>> appDelivered = new TreeMap<>();
    private final Map<Integer, Long> lastPosition = new HashMap<>();
    long deliveries;

    SimChecker(ClusterConfig config) {
        this.config = config;
    }

    private static String key(int node, long inc, long seq) {
        return node + "/" + inc + "/" + seq;
    }

    void proposed(long id, int node, long inc, long seq, int[] groups) {
        Made m = new Made(id, node, inc, seq, groups.clone());
        proposals.put(id, m);
        if (bySeq.put(key(node, inc, seq), id) != null) {
            throw new AssertionError("node " + node + " incarnation " + inc + " returned seq " + seq + " twice");
        }
    }

    void ordered(int node, long inc, long seq) {
        if (!orderedKeys.add(key(node, inc, seq))) {
            throw new AssertionError("node " + node + " reported seq " + seq + " (incarnation " + inc + ") ordered twice");
        }
    }

    void restarted(int node, long inc, boolean fromCheckpoint) {
        if (!fromCheckpoint) {
            appDelivered.put(node, new HashSet<>());
            lastPosition.put(node, Position.NONE);
        }
        appDelivered.computeIfAbsent(node, k -> new HashSet<>());
        lastPosition.putIfAbsent(node, Position.NONE);
    }

    void crashed(int node) {
    }

    void decided(int ring, long instance, byte[] value) {
        long k = (long) ring << 48 | instance;
        byte[] prev = decidedValues.putIfAbsent(k, value.clone());
        if (prev != null && !Arrays.equals(prev, value)) {
            throw new AssertionError("agreement: ring " + ring + " instance " + instance + " decided with two values: "
                    + RingValue.decode(prev) + " and " + RingValue.decode(value));
        }
    }

    void delivered(int node, long inc, Delivery d, long now) {
        deliveries++;
        long id = ByteBuffer.wrap(d.payload()).getLong();
        Made m = proposals.get(id);
        if (m == null) {
            throw new AssertionError("integrity: node " + node + " delivered message " + id + " that nobody multicast");
        }
        if (!Arrays.equals(m.groups, d.groups())) {
            throw new AssertionError("integrity: message " + id + " multicast to " + Arrays.toString(m.groups)
                    + " delivered at node " + node + " with groups " + Arrays.toString(d.groups()));
        }
        int[] mine = config.node(node).groups();
        if (Arrays.stream(m.groups).noneMatch(g -> Arrays.binarySearch(mine, g) >= 0)) {
            throw new AssertionError("integrity: node " + node + " (groups " + Arrays.toString(mine)
                    + ") delivered message " + id + " addressed to " + Arrays.toString(m.groups));
        }
        if (!appDelivered.get(node).add(id)) {
            throw new AssertionError("integrity: node " + node + " incarnation " + inc + " delivered message " + id
                    + " twice (second at " + Position.toString(d.position()) + ")");
        }
        long last = lastPosition.get(node);
        if (d.position() <= last) {
            throw new AssertionError("order: node " + node + " delivered message " + id + " at position "
                    + Position.toString(d.position()) + " after position " + Position.toString(last));
        }
        lastPosition.put(node, d.position());
        Long p = positionOf.putIfAbsent(id, d.position());
        if (p != null && p != d.position()) {
            throw new AssertionError("consistency: message " + id + " delivered at position " + Position.toString(p)
                    + " elsewhere but at " + Position.toString(d.position()) + " by node " + node);
        }
        Long other = messageAt.putIfAbsent(d.position(), id);
        if (other != null && other != id) {
            throw new AssertionError("consistency: position " + Position.toString(d.position()) + " holds message "
                    + other + " elsewhere but message " + id + " at node " + node);
        }
        deliveredAnywhere.add(id);
    }

    /** What is still missing: messages that must reach every live addressee. */
    List<String> livenessProblems(Map<Integer, Long> live, int max) {
        List<String> out = new ArrayList<>();
        for (String k : orderedKeys) {
            if (!bySeq.containsKey(k)) {
                out.add("ordered(" + k + ") reported for a seq propose() never returned");
            }
        }
        for (Made m : proposals.values()) {
            Long inc = live.get(m.node);
            boolean required = (inc != null && inc == m.incarnation) || orderedKeys.contains(key(m.node, m.incarnation, m.seq))
                    || deliveredAnywhere.contains(m.id);
            if (!required) {
                continue;
            }
            for (int n : live.keySet()) {
                int[] mine = config.node(n).groups();
                if (Arrays.stream(m.groups).anyMatch(g -> Arrays.binarySearch(mine, g) >= 0)
                        && !appDelivered.get(n).contains(m.id)) {
                    out.add("message " + m.id + " from node " + m.node + " (incarnation " + m.incarnation + ", seq "
                            + m.seq + ") to " + Arrays.toString(m.groups) + " not delivered at node " + n);
                    if (out.size() >= max) {
                        return out;
                    }
                }
            }
        }
        return out;
    }

    int proposalCount() {
        return proposals.size();
    }
}
