package io.eyrie.core.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Part of the replicated state: per client, the replies to its recent commands, so that a retried
 * command is answered again instead of executed again. A client has at most a window of commands
 * outstanding and tells, with every command, below which seq it holds all replies; entries below
 * that are dropped, which bounds the table per client by the window.
 *
 * <p>Kept per client <em>and destination set</em>: a replica trusts "below this seq" only from commands
 * with the same destinations as the one it classifies. Those are ordered by one ring and delivered
 * alike by every destination, so all destinations of a command decide alike whether it runs. A
 * client-wide watermark is learned by each partition from different commands (those to it alone
 * too), and a command that runs without signals ({@code executesIndependently}) may be answered by
 * one partition before another even delivered it: that other partition could learn from the
 * client's next command to it alone, ordered first by its own ring, that the reply is held, and skip
 * the command for good (a Volery session touch in session 25's Jepsen partition-bridge run: the
 * partitions' session deadlines parted).
 */
public final class ReplyTable {

    /** What to do with a delivered request. */
    public enum Verdict { EXECUTE, RESEND, IGNORE }

    static final class ClientEntry {
        long ackedBelow;
        final TreeMap<Long, byte[]> replies = new TreeMap<>();
    }

    /** A client and the destinations of its commands ({@link #destinations}). */
    record Key(long clientId, String destinations) {
    }

    private final HashMap<Key, ClientEntry> clients = new HashMap<>();

    private static final String[] SINGLE = new String[128];

    static {
        for (int g = 0; g < SINGLE.length; g++) {
            SINGLE[g] = g + ",";
        }
    }

    /** The key of a destination set, as a delivery names it (its groups, in the order they come). */
    public static String destinations(int[] groups) {
        if (groups.length == 1 && groups[0] >= 0 && groups[0] < SINGLE.length) {
            return SINGLE[groups[0]]; // most deliveries: no allocation on the executor's path
        }
        int[] sorted = groups.clone();
        java.util.Arrays.sort(sorted);
        StringBuilder b = new StringBuilder();
        for (int g : sorted) {
            b.append(g).append(',');
        }
        return b.toString();
    }

    /** @param destinations the delivery's destination set ({@link #destinations(int[])}) */
    public Verdict classify(Wire.Request r, String destinations) {
        ClientEntry e = clients.computeIfAbsent(new Key(r.clientId(), destinations), k -> new ClientEntry());
        if (r.ackedBelow() > e.ackedBelow) {
            e.ackedBelow = r.ackedBelow();
            e.replies.headMap(e.ackedBelow).clear();
        }
        if (r.seq() < e.ackedBelow) {
            // the client already holds this reply: a late copy of a retry
            return Verdict.IGNORE;
        }
        return e.replies.containsKey(r.seq()) ? Verdict.RESEND : Verdict.EXECUTE;
    }

    public byte[] reply(long clientId, String destinations, long seq) {
        ClientEntry e = clients.get(new Key(clientId, destinations));
        return e == null ? null : e.replies.get(seq);
    }

    public void record(long clientId, String destinations, long seq, byte[] reply) {
        clients.computeIfAbsent(new Key(clientId, destinations), k -> new ClientEntry()).replies.put(seq, reply);
    }

    public int size() {
        return clients.values().stream().mapToInt(e -> e.replies.size()).sum();
    }

    /**
     * A copy that later changes to this table do not reach: new maps, the same reply bytes (which
     * are never changed once recorded). Linear in the clients and their windows.
     */
    ReplyTable copy() {
        ReplyTable out = new ReplyTable();
        clients.forEach((client, e) -> {
            ClientEntry c = new ClientEntry();
            c.ackedBelow = e.ackedBelow;
            c.replies.putAll(e.replies);
            out.clients.put(client, c);
        });
        return out;
    }

    Map<Key, ClientEntry> entries() {
        return clients;
    }
}
