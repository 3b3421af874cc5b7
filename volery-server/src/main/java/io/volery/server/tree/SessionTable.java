package io.volery.server.tree;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * The live sessions of the tree: timeout, deadline in ordered time, ephemeral paths and the
 * identities each session has proven. Iteration is by session id, so every replica sees the same order.
 */
public final class SessionTable {

    /** One session; mutable, owned by the table. */
    /**
     * Identities listed in the order a ZooKeeper server lists a connection's (its set backed by a
     * ConcurrentHashMap: the map's bins for the jute Id hash, insertion order within a bin), from
     * identities in the order they were proven.
     */
    public static List<Id> inZooKeeperOrder(List<Id> provenOrder) {
        int tableSize = 16;
        while (provenOrder.size() >= tableSize * 3 / 4) {
            tableSize *= 2;
        }
        int mask = tableSize - 1;
        List<Id> out = new ArrayList<>(provenOrder);
        out.sort(java.util.Comparator.comparingInt(id -> Session.serverHashBin(id, mask)));
        return out;
    }

    public static final class Session {
        private final long id;
        private final int timeoutMs;
        private long deadline;
        /** The front end the client is connected through, 0 while unknown. */
        private long owner;
        private final List<Id> ids = new ArrayList<>();
        final HashOrderedSet ephemerals = new HashOrderedSet(HashOrderedSet.DEFAULT_TABLE);
        /** The table that holds this session, told of every change for the tree's captures. */
        private final SessionTable table;

        Session(SessionTable table, long id, int timeoutMs, long deadline) {
            this.table = table;
            this.id = id;
            this.timeoutMs = timeoutMs;
            this.deadline = deadline;
        }

        private void changed() {
            if (table.changes != null) {
                table.changes.session(id);
            }
        }

        public long id() {
            return id;
        }

        public int timeoutMs() {
            return timeoutMs;
        }

        /** The front end the client is connected through ({@link Command.AttachSession}), 0 while unknown. */
        public long owner() {
            return owner;
        }

        void setOwner(long serverId) {
            owner = serverId;
            changed();
        }

        /** The ordered time after which a {@link Command.Tick} expires the session. */
        public long deadline() {
            return deadline;
        }

        /**
         * The identities the session has proven, in the order ZooKeeper lists them (whoAmI, and the
         * expansion of an {@code auth} ACL). ZooKeeper keeps them in a set backed by a
         * ConcurrentHashMap, so its order is that of the map's bins for the jute Id hash, insertion
         * order within a bin. Reproduced here for up to 11 identities (no table resize), which covers
         * any real session.
         */
        public List<Id> ids() {
            return inZooKeeperOrder(ids);
        }

        private static int serverHashBin(Id id, int mask) {
            int h = 37 * (37 * 17 + id.scheme().hashCode()) + id.id().hashCode();
            return ((h ^ (h >>> 16)) & 0x7fffffff) & mask;
        }

        /** The identities in the order the session proved them (the canonical form for snapshots). */
        List<Id> idsInProofOrder() {
            return ids;
        }

        /** The session's ephemeral paths, in the order ZooKeeper lists (and on close deletes) them. */
        public List<String> ephemerals() {
            return ephemerals.inCopyOrder();
        }

        /** The session's ephemeral paths in creation order (a re-created path counts from its last creation). */
        public List<String> ephemeralsInCreationOrder() {
            return ephemerals.inInsertionOrder();
        }

        /** The table size of ZooKeeper's HashSet of this session's ephemerals (it never shrinks). */
        public int ephemeralTable() {
            return ephemerals.table();
        }

        void addId(Id id) {
            if (!ids.contains(id)) {
                ids.add(id);
                changed();
            }
        }

        /** The session's identities become these alone (a new connection's, {@link Command.ConnectionIdentities}). */
        void resetIds(List<Id> fresh) {
            if (!ids.equals(fresh)) {
                ids.clear();
                for (Id id : fresh) {
                    if (!ids.contains(id)) {
                        ids.add(id);
                    }
                }
                changed();
            }
        }

        void touch(long now) {
            if (now + timeoutMs > deadline) {
                deadline = now + timeoutMs;
                changed();
            }
        }

        void setDeadline(long deadline) {
            this.deadline = deadline;
            changed();
        }

        TreeMirror.FrozenSession freeze() {
            return new TreeMirror.FrozenSession(id, timeoutMs, deadline, owner, List.copyOf(ids));
        }
    }

    private final TreeMap<Long, Session> sessions = new TreeMap<>();
    /** Where changes are noted while the tree keeps them for captures; null otherwise. */
    TreeChanges changes;

    /**
     * The order ZooKeeper lists a session's ephemerals in, when they are known only in parts (one per
     * partition): {@code creationOrder} is all of them in creation order, and {@code table} the largest
     * set table any part has reached. Exact unless the whole set once outgrew its current table while
     * no part did.
     */
    public static List<String> ephemeralOrder(List<String> creationOrder, int table) {
        HashOrderedSet set = new HashOrderedSet(HashOrderedSet.DEFAULT_TABLE);
        for (String p : creationOrder) {
            set.add(p);
        }
        if (set.table() < table) {
            set.restore(creationOrder, table);
        }
        return set.inCopyOrder();
    }

    public Session get(long id) {
        return sessions.get(id);
    }

    public boolean contains(long id) {
        return sessions.containsKey(id);
    }

    public int size() {
        return sessions.size();
    }

    /** All sessions in id order. */
    public List<Session> all() {
        return List.copyOf(sessions.values());
    }

    Session open(long id, int timeoutMs, long now) {
        Session s = new Session(this, id, timeoutMs, now + timeoutMs);
        sessions.put(id, s);
        if (changes != null) {
            changes.session(id);
            changes.reset(id, s.ephemerals);
        }
        return s;
    }

    void remove(long id) {
        sessions.remove(id);
        if (changes != null) {
            changes.session(id);
            changes.dropped(id);
        }
    }

    /** Sessions whose deadline lies before {@code now}, in id order. */
    List<Long> expiredAt(long now) {
        List<Long> out = new ArrayList<>();
        for (Session s : sessions.values()) {
            if (s.deadline < now) {
                out.add(s.id);
            }
        }
        return out;
    }

    void clear() {
        sessions.clear();
    }
}
