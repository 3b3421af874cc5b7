package io.volery.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Replicated per partition: which front end holds each session, and its password. Updated only by
 * commands ordered to every partition, so every partition agrees.
 */
final class SessionDirectory {

    static final class Entry {
        int frontEnd;
        byte[] passwd;
        /**
         * The highest request number of the session (from its current front end) this partition
         * executed: per partition, unlike the rest of the entry.
         */
        long lastSeq;
        /**
         * How many times the session reconnected (ADR 098, ADR 100): numbers its stays at front ends, and so the
         * notices of its moves and the events of each stay. Checkpoints
         * carry it beside the entries ({@link #movesById}), so that older checkpoints' entries still decode.
         */
        transient long moves;

        Entry() {
        }

        Entry(int frontEnd, byte[] passwd) {
            this.frontEnd = frontEnd;
            this.passwd = passwd;
        }
    }

    private TreeMap<Long, Entry> entries = new TreeMap<>();

    void put(long sessionId, int frontEnd, byte[] passwd) {
        entries.put(sessionId, new Entry(frontEnd, passwd == null ? new byte[0] : passwd.clone()));
    }

    Entry get(long sessionId) {
        return entries.get(sessionId);
    }

    Entry remove(long sessionId) {
        return entries.remove(sessionId);
    }

    List<Long> ids() {
        return new ArrayList<>(entries.keySet());
    }

    SessionDirectory copy() {
        SessionDirectory d = new SessionDirectory();
        entries.forEach((id, e) -> d.put(id, e.frontEnd, e.passwd));
        entries.forEach((id, e) -> {
            d.get(id).lastSeq = e.lastSeq;
            d.get(id).moves = e.moves;
        });
        return d;
    }

    void restore(SessionDirectory from) {
        entries = new TreeMap<>(from.entries);
    }

    /** Each moved session's count of moves, for a checkpoint (the entries' own field is not encoded). */
    TreeMap<Long, Long> movesById() {
        TreeMap<Long, Long> moves = new TreeMap<>();
        entries.forEach((id, e) -> {
            if (e.moves != 0) {
                moves.put(id, e.moves);
            }
        });
        return moves;
    }

    /** Takes up a checkpoint's {@link #movesById} (none from checkpoints before ADR 098). */
    void restoreMoves(java.util.Map<Long, Long> moves) {
        moves.forEach((id, n) -> {
            Entry e = entries.get(id);
            if (e != null) {
                e.moves = n;
            }
        });
    }
}
