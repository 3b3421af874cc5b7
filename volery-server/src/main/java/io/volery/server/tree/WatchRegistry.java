package io.volery.server.tree;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * Watch registrations, kept like ZooKeeper's two tables: the data table (data and exist watches,
 * persistent and persistent-recursive watches) and the child table (child watches and persistent
 * watches). A session holds, per table and path, a set of modes; a standard (one-shot) mode is
 * consumed when it fires, persistent modes stay.
 */
final class WatchRegistry {

    enum Mode { STANDARD, PERSISTENT, PERSISTENT_RECURSIVE }

    enum Table { DATA, CHILD }

    private final TreeMap<String, TreeMap<Long, EnumSet<Mode>>> data = new TreeMap<>();
    private final TreeMap<String, TreeMap<Long, EnumSet<Mode>>> child = new TreeMap<>();
    private int recursiveCount;
    /** Where changed (table, path) keys are noted while the tree keeps changes for captures; null otherwise. */
    TreeChanges changes;

    private void changed(Table t, String path) {
        if (changes != null) {
            changes.watch(t, path);
        }
    }

    /** The registrations of one path in one table, in canonical order (empty when none). */
    List<Registration> registrationsOf(Table t, String path) {
        TreeMap<Long, EnumSet<Mode>> bySession = table(t).get(path);
        if (bySession == null) {
            return List.of();
        }
        List<Registration> out = new ArrayList<>();
        for (Map.Entry<Long, EnumSet<Mode>> s : bySession.entrySet()) {
            for (Mode m : s.getValue()) {
                out.add(new Registration(t, path, s.getKey(), m));
            }
        }
        return List.copyOf(out);
    }

    /** Every (table, path) that has a registration. */
    List<Map.Entry<Table, String>> registeredPaths() {
        List<Map.Entry<Table, String>> out = new ArrayList<>();
        for (Table t : Table.values()) {
            for (String path : table(t).keySet()) {
                out.add(Map.entry(t, path));
            }
        }
        return out;
    }
    /** Per table, the paths where each session has a registration: closing a session touches only those. */
    private final Map<Table, Map<Long, Set<String>>> pathsOfSession = Map.of(
            Table.DATA, new java.util.HashMap<>(), Table.CHILD, new java.util.HashMap<>());

    private void indexAdd(Table t, long session, String path) {
        pathsOfSession.get(t).computeIfAbsent(session, s -> new java.util.HashSet<>()).add(path);
    }

    private void indexRemove(Table t, long session, String path) {
        Set<String> paths = pathsOfSession.get(t).get(session);
        if (paths != null) {
            paths.remove(path);
            if (paths.isEmpty()) {
                pathsOfSession.get(t).remove(session);
            }
        }
    }

    private TreeMap<String, TreeMap<Long, EnumSet<Mode>>> table(Table t) {
        return t == Table.DATA ? data : child;
    }

    void add(Table t, String path, long session, Mode mode) {
        EnumSet<Mode> modes = table(t).computeIfAbsent(path, p -> new TreeMap<>())
                .computeIfAbsent(session, s -> EnumSet.noneOf(Mode.class));
        if (modes.add(mode) && mode == Mode.PERSISTENT_RECURSIVE) {
            recursiveCount++;
        }
        indexAdd(t, session, path);
        changed(t, path);
    }

    boolean contains(Table t, String path, long session, Mode modeOrNull) {
        TreeMap<Long, EnumSet<Mode>> bySession = table(t).get(path);
        EnumSet<Mode> modes = bySession == null ? null : bySession.get(session);
        return modes != null && (modeOrNull == null ? !modes.isEmpty() : modes.contains(modeOrNull));
    }

    /** Removes one mode, or all modes when {@code modeOrNull} is null; true when something went. */
    boolean remove(Table t, String path, long session, Mode modeOrNull) {
        TreeMap<Long, EnumSet<Mode>> bySession = table(t).get(path);
        EnumSet<Mode> modes = bySession == null ? null : bySession.get(session);
        if (modes == null) {
            return false;
        }
        changed(t, path);
        boolean removed;
        if (modeOrNull == null) {
            removed = !modes.isEmpty();
            if (modes.contains(Mode.PERSISTENT_RECURSIVE)) {
                recursiveCount--;
            }
            modes.clear();
        } else {
            removed = modes.remove(modeOrNull);
            if (removed && modeOrNull == Mode.PERSISTENT_RECURSIVE) {
                recursiveCount--;
            }
        }
        if (modes.isEmpty()) {
            bySession.remove(session);
            indexRemove(t, session, path);
            if (bySession.isEmpty()) {
                table(t).remove(path);
            }
        }
        return removed;
    }

    void dropSession(long session) {
        for (Table t : Table.values()) {
            Set<String> paths = pathsOfSession.get(t).remove(session);
            if (paths == null) {
                continue;
            }
            for (String path : paths) {
                changed(t, path);
                TreeMap<Long, EnumSet<Mode>> bySession = table(t).get(path);
                EnumSet<Mode> modes = bySession.remove(session);
                if (modes.contains(Mode.PERSISTENT_RECURSIVE)) {
                    recursiveCount--;
                }
                if (bySession.isEmpty()) {
                    table(t).remove(path);
                }
            }
        }
    }

    /**
     * Fires the watches a change of {@code path} triggers in one table, as ZooKeeper's WatchManager
     * does: at the path itself every registered session matches and its one-shot mode is consumed; at
     * each ancestor only persistent-recursive watchers match. Sessions in {@code suppress} are skipped,
     * and a matched session hears of the change only if it may READ the node ({@code nodeAcl}), yet its
     * one-shot watch is consumed either way. Returns every matched session, for the suppression of a
     * later trigger of the same change.
     */
    Set<Long> trigger(Table t, String path, EventType type, long zxid, List<Acl> nodeAcl, Set<Long> suppress,
                      LongFunction<List<Id>> idsOfSession, List<WatchEvent> out) {
        TreeSet<Long> matched = new TreeSet<>();
        TreeMap<String, TreeMap<Long, EnumSet<Mode>>> table = table(t);
        TreeMap<Long, EnumSet<Mode>> exact = table.get(path);
        if (exact != null) {
            changed(t, path);
            Iterator<Map.Entry<Long, EnumSet<Mode>>> it = exact.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, EnumSet<Mode>> e = it.next();
                long session = e.getKey();  // read before it.remove(), which may recycle the entry
                matched.add(session);
                e.getValue().remove(Mode.STANDARD);
                if (e.getValue().isEmpty()) {
                    it.remove();
                    indexRemove(t, session, path);
                }
            }
            if (exact.isEmpty()) {
                table.remove(path);
            }
        }
        if (recursiveCount > 0 && !path.equals("/")) {
            String ancestor = path;
            do {
                ancestor = PathRules.parent(ancestor);
                TreeMap<Long, EnumSet<Mode>> bySession = table.get(ancestor);
                if (bySession != null) {
                    for (Map.Entry<Long, EnumSet<Mode>> e : bySession.entrySet()) {
                        if (e.getValue().contains(Mode.PERSISTENT_RECURSIVE)) {
                            matched.add(e.getKey());
                        }
                    }
                }
            } while (!ancestor.equals("/"));
        }
        for (long session : matched) {
            if ((suppress == null || !suppress.contains(session))
                    && AclPolicy.permits(nodeAcl, Perms.READ, idsOfSession.apply(session))) {
                out.add(new WatchEvent(session, type, path, zxid));
            }
        }
        return matched;
    }

    /** Every registration, table by table, path by path, session by session: the canonical form. */
    List<Registration> registrations() {
        List<Registration> out = new ArrayList<>();
        for (Table t : Table.values()) {
            for (Map.Entry<String, TreeMap<Long, EnumSet<Mode>>> p : table(t).entrySet()) {
                for (Map.Entry<Long, EnumSet<Mode>> s : p.getValue().entrySet()) {
                    for (Mode m : s.getValue()) {
                        out.add(new Registration(t, p.getKey(), s.getKey(), m));
                    }
                }
            }
        }
        return out;
    }

    void clear() {
        data.clear();
        child.clear();
        pathsOfSession.values().forEach(Map::clear);
        recursiveCount = 0;
    }

    /** Whether the per-session index agrees with the tables; for consistency checks. */
    boolean indexAgrees() {
        for (Table t : Table.values()) {
            int registered = 0;
            for (TreeMap<Long, EnumSet<Mode>> bySession : table(t).values()) {
                registered += bySession.size();
                for (Map.Entry<Long, EnumSet<Mode>> e : bySession.entrySet()) {
                    if (e.getValue().isEmpty()) {
                        return false;
                    }
                }
            }
            int indexed = 0;
            for (Map.Entry<Long, Set<String>> e : pathsOfSession.get(t).entrySet()) {
                for (String path : e.getValue()) {
                    TreeMap<Long, EnumSet<Mode>> bySession = table(t).get(path);
                    if (bySession == null || !bySession.containsKey(e.getKey())) {
                        return false;
                    }
                    indexed++;
                }
            }
            if (indexed != registered) {
                return false;
            }
        }
        return true;
    }

    record Registration(Table table, String path, long session, Mode mode) {
    }
}
