package io.eyrie.core.internal;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
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
 *
 * <p>Clients leave (ADR 058). A client that closes retires itself from each destination set it used,
 * by a request ordered in that set's ring like its commands; a client that is the only one of its
 * node retires, at every partition through the ring of all of them, the client its node registered
 * before it (a restarted node's dead incarnation), if this one started later. Retiring drops the
 * client's entry and its replies, and remembers its id (a bounded number per destination set and per
 * node, oldest forgotten first), so that a late copy of one of its commands is refused rather than
 * executed a second time. Every
 * partition of a destination set delivers that set's retires in one order relative to its commands,
 * and every partition delivers the node retires in one order relative to everything else, so they
 * all refuse or run a command alike.
 */
public final class ReplyTable {

    /** What to do with a delivered request. */
    public enum Verdict { EXECUTE, RESEND, IGNORE, RETIRED }

    /** Retired clients remembered per destination set (their own retires); the oldest is forgotten first. */
    static final int RETIRED_PER_SET = 16_384;
    /** Retired clients remembered per node (retired by a later client of the node). */
    static final int RETIRED_PER_NODE = 1_024;

    static final class ClientEntry {
        long ackedBelow;
        final TreeMap<Long, byte[]> replies = new TreeMap<>();
    }

    /** A client and the destinations of its commands ({@link #destinations}). */
    record Key(long clientId, String destinations) {
    }

    private final HashMap<Key, ClientEntry> clients = new HashMap<>();
    /** By destination set: clients that retired themselves from it, oldest first. */
    private final HashMap<String, LinkedHashSet<Long>> retiredBySet = new HashMap<>();
    /** By node: clients a later client of the node retired, oldest first. */
    private final HashMap<Integer, LinkedHashSet<Long>> retiredByNode = new HashMap<>();
    /** By node: the client that last succeeded the node's earlier ones ({@link #retireNodeBefore}). */
    private final HashMap<Integer, Registered> liveByNode = new HashMap<>();

    /** A node's registered client and when it started (its own clock). */
    record Registered(long clientId, long startedMillis) {
    }

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
        Key key = new Key(r.clientId(), destinations);
        ClientEntry e = clients.get(key);
        if (e == null) {
            if (retired(r.clientId(), destinations)) {
                return Verdict.RETIRED;
            }
            e = new ClientEntry();
            clients.put(key, e);
        }
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
        Key key = new Key(clientId, destinations);
        ClientEntry e = clients.get(key);
        if (e == null) {
            if (retired(clientId, destinations)) {
                return; // a command that was running when its client retired: nobody will ask again
            }
            e = new ClientEntry();
            clients.put(key, e);
        }
        e.replies.put(seq, reply);
    }

    /** Whether {@code clientId} has retired from {@code destinations}, or its node retired it. */
    public boolean retired(long clientId, String destinations) {
        LinkedHashSet<Long> bySet = retiredBySet.get(destinations);
        if (bySet != null && bySet.contains(clientId)) {
            return true;
        }
        LinkedHashSet<Long> byNode = retiredByNode.get(node(clientId));
        return byNode != null && byNode.contains(clientId);
    }

    /**
     * {@code clientId} leaves {@code destinations}: its entry and replies go, and its later requests
     * to that set are {@link Verdict#RETIRED}. Idempotent.
     */
    public void retire(long clientId, String destinations) {
        clients.remove(new Key(clientId, destinations));
        remember(retiredBySet.computeIfAbsent(destinations, k -> new LinkedHashSet<>()), clientId, RETIRED_PER_SET);
    }

    /**
     * Client {@code successor}, started at {@code startedMillis}, succeeds its node's registered client:
     * that one leaves every destination set and its later requests are {@link Verdict#RETIRED}. A
     * successor that started no later than the registered one (a dead client's late request, or a
     * clock set back) changes nothing: only a newer client retires an older one, never the reverse.
     * Returns the retired client's id, or 0.
     */
    public long retireNodeBefore(long successor, long startedMillis) {
        int node = node(successor);
        Registered live = liveByNode.get(node);
        if (live != null && (live.clientId == successor || startedMillis <= live.startedMillis)) {
            return 0;
        }
        liveByNode.put(node, new Registered(successor, startedMillis));
        if (live == null) {
            return 0;
        }
        clients.keySet().removeIf(k -> k.clientId() == live.clientId);
        remember(retiredByNode.computeIfAbsent(node, k -> new LinkedHashSet<>()), live.clientId, RETIRED_PER_NODE);
        return live.clientId;
    }

    private static void remember(LinkedHashSet<Long> retired, long clientId, int max) {
        if (!retired.add(clientId)) {
            return;
        }
        while (retired.size() > max) {
            Iterator<Long> oldest = retired.iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private static int node(long clientId) {
        return (int) (clientId >>> 32);
    }

    /** Replies held, over every client. */
    public int size() {
        return clients.values().stream().mapToInt(e -> e.replies.size()).sum();
    }

    /** Clients (per destination set) with an entry. */
    public int clients() {
        return clients.size();
    }

    /** Retired clients remembered. */
    public int retiredRemembered() {
        int n = 0;
        for (LinkedHashSet<Long> s : retiredBySet.values()) {
            n += s.size();
        }
        for (LinkedHashSet<Long> s : retiredByNode.values()) {
            n += s.size();
        }
        return n;
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
        retiredBySet.forEach((set, ids) -> out.retiredBySet.put(set, new LinkedHashSet<>(ids)));
        retiredByNode.forEach((node, ids) -> out.retiredByNode.put(node, new LinkedHashSet<>(ids)));
        out.liveByNode.putAll(liveByNode);
        return out;
    }

    Map<Key, ClientEntry> entries() {
        return clients;
    }
}
