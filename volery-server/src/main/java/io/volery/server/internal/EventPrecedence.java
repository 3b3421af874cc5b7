package io.volery.server.internal;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Position;
import io.volery.server.tree.EventType;
import io.volery.server.tree.WatchEvent;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells, from positions alone, when a watch event's command was executed before a reply's command by the
 * partition whose watch fired (ADR 077). A position names the ring that ordered it: a partition's own ring
 * orders commands for that partition only, so an event fired there was fired by that partition; the ALL
 * ring orders commands for several partitions, so the watch may live in any of them, except for a
 * NodeDataChanged event: the change was a setData of its node, applied by the node's owner, whose watches
 * on the node it fired. Positions of different partitions are not ordered in real time (ADR 002) and are
 * never compared.
 */
final class EventPrecedence implements SessionMailboxes.Precedence {
    /** ring id -> the partition whose ring it is */
    private final Map<Integer, Integer> partitionOfRing = new HashMap<>();
    private final int allRing;
    private final int[] partitions;
    /** The partition holding the watches a setData of a path fires; null: unknown. */
    private final java.util.function.ToIntFunction<String> ownerOf;

    EventPrecedence(ClusterConfig config) {
        this(config, null);
    }

    EventPrecedence(ClusterConfig config, java.util.function.ToIntFunction<String> ownerOf) {
        this.ownerOf = ownerOf;
        this.partitions = config.groups().stream().mapToInt(Integer::intValue).sorted().toArray();
        for (int p : partitions) {
            partitionOfRing.put(config.ringFor(new int[] {p}), p);
        }
        this.allRing = config.allRingId();
    }

    @Override
    public boolean precedes(WatchEvent event, long eventZxid, long replyZxid, int[] replyPartitions) {
        if (eventZxid > replyZxid) {
            return false;
        }
        if (eventZxid == replyZxid) {
            return true; // fired by the reply's own command
        }
        int ring = Position.ringId(eventZxid);
        Integer firedBy = partitionOfRing.get(ring);
        if (firedBy != null && (partitions.length == 1 || ring != allRing)) {
            return contains(replyPartitions, firedBy);
        }
        if (ownerOf != null && event.type() == EventType.NODE_DATA_CHANGED && !"/".equals(event.path())) {
            // (the root's data is every partition's; its events come from the root's owner: not this rule)
            return contains(replyPartitions, ownerOf.applyAsInt(event.path()));
        }
        // a command of several partitions: the reply's must have been executed by all of them
        for (int p : partitions) {
            if (!contains(replyPartitions, p)) {
                return false;
            }
        }
        return true;
    }

    private static boolean contains(int[] partitions, int p) {
        for (int q : partitions) {
            if (q == p) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "EventPrecedence" + Arrays.toString(partitions) + " all=" + allRing;
    }
}
