package io.volery.server.admin;

import io.volery.server.tree.SessionTable;
import io.volery.server.tree.ZnodeTree;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

/** What monitoring reads of a replica's tree, taken at once on the replica's thread. */
public record TreeCensus(long lastZxid, int nodeCount, int watchCount, long approximateDataSize,
                         Map<Long, SortedSet<String>> dataWatchedPaths, List<SessionInfo> sessions,
                         Map<String, long[]> quotas) {

    /** A live session: its timeout, deadline (in ordered time) and ephemeral nodes. */
    public record SessionInfo(long id, int timeoutMillis, long deadline, List<String> ephemerals) {
    }

    public static final TreeCensus EMPTY = new TreeCensus(0, 0, 0, 0, Map.of(), List.of(), Map.of());

    static TreeCensus of(ZnodeTree tree) {
        if (tree == null) {
            return EMPTY;
        }
        List<SessionInfo> sessions = new ArrayList<>();
        for (SessionTable.Session s : tree.sessions().all()) {
            sessions.add(new SessionInfo(s.id(), s.timeoutMs(), s.deadline(), List.copyOf(s.ephemerals())));
        }
        return new TreeCensus(tree.lastZxid(), tree.nodeCount(), tree.watchCount(), tree.approximateDataSize(),
                tree.dataWatchedPaths(), sessions, tree.quotaGauges());
    }

    /** Data-table watches, as ZooKeeper's wchs totals them. */
    public int dataWatchCount() {
        return dataWatchedPaths.values().stream().mapToInt(java.util.Set::size).sum();
    }

    /** The paths some session watches (wchs counts them). */
    public java.util.Set<String> watchedPaths() {
        java.util.Set<String> paths = new java.util.TreeSet<>();
        dataWatchedPaths.values().forEach(paths::addAll);
        return paths;
    }

    /** The sessions watching each path, by path (wchp). */
    public Map<String, SortedSet<Long>> sessionsByWatchedPath() {
        Map<String, SortedSet<Long>> byPath = new java.util.TreeMap<>();
        dataWatchedPaths.forEach((session, paths) ->
                paths.forEach(p -> byPath.computeIfAbsent(p, k -> new java.util.TreeSet<>()).add(session)));
        return byPath;
    }

    /** The sessions' ids by deadline, earliest first (dump). */
    public Map<Long, List<Long>> sessionsByDeadline() {
        Map<Long, List<Long>> byDeadline = new java.util.TreeMap<>();
        for (SessionInfo s : sessions) {
            byDeadline.computeIfAbsent(s.deadline(), k -> new ArrayList<>()).add(s.id());
        }
        return byDeadline;
    }

    public int ephemeralsCount() {
        return sessions.stream().mapToInt(s -> s.ephemerals().size()).sum();
    }
}
