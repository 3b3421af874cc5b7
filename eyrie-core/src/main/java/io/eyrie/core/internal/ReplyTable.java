package io.eyrie.core.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Part of the replicated state: per client, the replies to its recent commands, so that a retried
 * command is answered again instead of executed again. A client has at most a window of commands
 * outstanding and tells, with every command, below which seq it holds all replies; entries below
 * that are dropped, which bounds the table per client by the window.
 */
public final class ReplyTable {

    /** What to do with a delivered request. */
    public enum Verdict { EXECUTE, RESEND, IGNORE }

    static final class ClientEntry {
        long ackedBelow;
        final TreeMap<Long, byte[]> replies = new TreeMap<>();
    }

    private final HashMap<Long, ClientEntry> clients = new HashMap<>();

    public Verdict classify(Wire.Request r) {
        ClientEntry e = clients.computeIfAbsent(r.clientId(), k -> new ClientEntry());
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

    public byte[] reply(long clientId, long seq) {
        ClientEntry e = clients.get(clientId);
        return e == null ? null : e.replies.get(seq);
    }

    public void record(long clientId, long seq, byte[] reply) {
        clients.computeIfAbsent(clientId, k -> new ClientEntry()).replies.put(seq, reply);
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

    Map<Long, ClientEntry> entries() {
        return clients;
    }
}
