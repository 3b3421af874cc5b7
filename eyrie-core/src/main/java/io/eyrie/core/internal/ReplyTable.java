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
    public enum Verdict { EXECUTE, RESEND, IGNORE, RETIRED, EXPIRED }

    /** Retired clients remembered per destination set (their own retires); the oldest is forgotten first. */
    static final int RETIRED_PER_SET = 16_384;
    /** Retired clients remembered per node (retired by a later client of the node). */
    static final int RETIRED_PER_NODE = 1_024;
    /**
     * Default of {@link #idleDeliveries}: a client that sent nothing to a destination set while that set
     * delivered this many commands loses its entry there (ADR 062).
     */
    public static final long DEFAULT_IDLE_DELIVERIES = 1_000_000;
    /** Every this many deliveries of a set, its idle clients are looked for. */
    static final int SWEEP_EVERY = 4_096;
    /** Idle clients remembered per destination set once their entry went; the oldest is forgotten first. */
    static final int EXPIRED_PER_SET = 16_384;

    static final class ClientEntry {
        long ackedBelow;
        final TreeMap<Long, byte[]> replies = new TreeMap<>();
        /** The set's delivery count at this client's last request to it. */
        long lastSeen;
        /** The highest seq of this client's that ran here (or is running), -1 for none. */
        long highestRun = -1;
    }

    /** What is left of an idle client's entry (ADR 062): enough to refuse its late copies. */
    record Expired(long ackedBelow, long highestRun) {
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
    /** By destination set: requests delivered to it, every replica of its destinations counting alike. */
    private final HashMap<String, long[]> deliveriesBySet = new HashMap<>();
    /** By destination set: clients whose entry went for idleness, oldest first. */
    private final HashMap<String, java.util.LinkedHashMap<Long, Expired>> expiredBySet = new HashMap<>();
    /** Not replicated state but configuration: every replica must use the same (set again after a restore). */
    private transient long idleDeliveries = DEFAULT_IDLE_DELIVERIES;

    /**
     * A client that sends nothing to a destination set while the set delivers {@code deliveries} commands
     * loses its entry there (ADR 062); 0 turns this off. Every replica of a cluster must use the same.
     */
    public void idleDeliveries(long deliveries) {
        if (deliveries < 0) {
            throw new IllegalArgumentException("idle deliveries must be 0 (off) or positive, got " + deliveries);
        }
        this.idleDeliveries = deliveries;
    }

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
        long now = ++deliveriesBySet.computeIfAbsent(destinations, k -> new long[1])[0];
        if (idleDeliveries > 0 && now % SWEEP_EVERY == 0) {
            sweep(destinations, now);
        }
        Key key = new Key(r.clientId(), destinations);
        ClientEntry e = clients.get(key);
        if (e == null) {
            if (retired(r.clientId(), destinations)) {
                return Verdict.RETIRED;
            }
            java.util.LinkedHashMap<Long, Expired> expired = expiredBySet.get(destinations);
            Expired x = expired == null ? null : expired.get(r.clientId());
            if (x != null) {
                if (r.seq() < x.ackedBelow()) {
                    return Verdict.IGNORE; // the client holds that reply: a late copy
                }
                if (r.seq() <= x.highestRun()) {
                    return Verdict.EXPIRED; // ran here, its reply went with the entry: never again
                }
                expired.remove(r.clientId()); // a new command: the client is back
            }
            e = new ClientEntry();
            clients.put(key, e);
        }
        e.lastSeen = now;
        if (r.ackedBelow() > e.ackedBelow) {
            e.ackedBelow = r.ackedBelow();
            e.replies.headMap(e.ackedBelow).clear();
        }
        if (r.seq() < e.ackedBelow) {
            // the client already holds this reply: a late copy of a retry
            return Verdict.IGNORE;
        }
        if (e.replies.containsKey(r.seq())) {
            return Verdict.RESEND;
        }
        e.highestRun = Math.max(e.highestRun, r.seq());
        return Verdict.EXECUTE;
    }

    /**
     * The clients of {@code destinations} that sent it nothing for {@link #idleDeliveries} of its deliveries
     * lose their entries, keeping only what refuses their late copies. Runs at the same delivery of the set
     * at every replica of its destinations, over the same entries, so all drop the same ones.
     */
    private void sweep(String destinations, long now) {
        java.util.LinkedHashMap<Long, Expired> expired = null;
        Iterator<Map.Entry<Key, ClientEntry>> it = clients.entrySet().iterator();
        java.util.List<Map.Entry<Key, ClientEntry>> idle = new java.util.ArrayList<>();
        while (it.hasNext()) {
            Map.Entry<Key, ClientEntry> en = it.next();
            if (en.getKey().destinations().equals(destinations) && now - en.getValue().lastSeen >= idleDeliveries) {
                idle.add(en);
            }
        }
        // in client order, not the hash map's, so that which ones the bound forgets first is the same everywhere
        idle.sort(java.util.Comparator.comparingLong((Map.Entry<Key, ClientEntry> en) -> en.getValue().lastSeen)
                .thenComparingLong(en -> en.getKey().clientId()));
        for (Map.Entry<Key, ClientEntry> en : idle) {
            if (expired == null) {
                expired = expiredBySet.computeIfAbsent(destinations, k -> new java.util.LinkedHashMap<>());
            }
            ClientEntry e = en.getValue();
            expired.put(en.getKey().clientId(), new Expired(e.ackedBelow, e.highestRun));
            clients.remove(en.getKey());
            expiredCount++;
            while (expired.size() > EXPIRED_PER_SET) {
                Iterator<Long> oldest = expired.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
        }
    }

    /** Entries dropped for idleness so far (ADR 062). */
    private long expiredCount;

    public long clientsExpired() {
        return expiredCount;
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
            java.util.LinkedHashMap<Long, Expired> expired = expiredBySet.get(destinations);
            if (expired != null && expired.containsKey(clientId)) {
                return; // its entry went for idleness while this ran: its late copies are refused, not answered
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
            c.lastSeen = e.lastSeen;
            c.highestRun = e.highestRun;
            out.clients.put(client, c);
        });
        retiredBySet.forEach((set, ids) -> out.retiredBySet.put(set, new LinkedHashSet<>(ids)));
        retiredByNode.forEach((node, ids) -> out.retiredByNode.put(node, new LinkedHashSet<>(ids)));
        out.liveByNode.putAll(liveByNode);
        deliveriesBySet.forEach((set, n) -> out.deliveriesBySet.put(set, n.clone()));
        expiredBySet.forEach((set, ids) -> out.expiredBySet.put(set, new java.util.LinkedHashMap<>(ids)));
        out.expiredCount = expiredCount;
        out.idleDeliveries = idleDeliveries;
        return out;
    }

    Map<Key, ClientEntry> entries() {
        return clients;
    }
}
