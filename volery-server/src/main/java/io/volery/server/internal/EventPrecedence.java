package io.volery.server.internal;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Position;
import io.volery.server.tree.WatchEvent;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells when a watch event's command was executed before a reply's command by the partition whose watch
 * fired (ADR 077). An event that names the partitions that fired it (ADR 078) precedes a reply of a
 * request that went to one of them with a higher position: two positions are ordered the same way by every learner that delivers
 * both. What follows is for events that do not name it (from nodes that do not say). A position names
 * the ring that ordered it: a partition's own ring orders commands for that partition only, so an event
 * fired there was fired by that partition; the ALL ring orders commands for several partitions. The watches an event of a node other than the root fires
 * were set by requests that ran at the node's owner: one-shot watches (getData, exists, getChildren of the
 * node go to its owner) and persistent ones kept by one partition (the node's, or its subtree's, owner),
 * or every partition (those ran at the owner too, and on the ALL ring, in the same order as the event's
 * command everywhere). So a reply to the owner that follows the event's command there follows the request
 * that set the watch, if that one came before the reply's. The root's watches may sit in a front end's
 * own partition (ADR 053): its events need a reply from every partition. Positions of different
 * partitions are not ordered in real time (ADR 002) and are never compared.
 */
final class EventPrecedence implements SessionMailboxes.Precedence {
    /** ring id -> the partition whose ring it is */
    private final Map<Integer, Integer> partitionOfRing = new HashMap<>();
    private final int allRing;
    private final int[] partitions;
    /** The partition owning a path, which holds its watches (see above); null: unknown. */
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
        if (event.firedIn() != WatchEvent.UNKNOWN_PARTITIONS) {
            // such a partition executed the event's command before the reply's (ADR 078)
            for (int p : replyPartitions) {
                if ((event.firedIn() & WatchEvent.partitionSet(p)) != 0) {
                    return true;
                }
            }
            return false;
        }
        int ring = Position.ringId(eventZxid);
        Integer firedBy = partitionOfRing.get(ring);
        if (firedBy != null && (partitions.length == 1 || ring != allRing)) {
            return SessionOrder.contains(replyPartitions, firedBy);
        }
        if (ownerOf != null && event.path() != null && !"/".equals(event.path())) {
            return SessionOrder.contains(replyPartitions, ownerOf.applyAsInt(event.path()));
        }
        // a command of several partitions: the reply's must have been executed by all of them
        for (int p : partitions) {
            if (!SessionOrder.contains(replyPartitions, p)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "EventPrecedence" + Arrays.toString(partitions) + " all=" + allRing;
    }
}
