package io.volery.server.tree;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The writer side of a tree's captures: a copy of the canonical state built only from immutable
 * changes ({@link Delta}s) the executor hands over, and owned by whichever thread writes an image.
 *
 * <p>Why it is race free: a delta holds only values frozen on the executor (records, immutable
 * lists, and data arrays the tree never changes after storing them) and is published under the
 * queue's lock; a writer takes deltas under the same lock, so everything the executor wrote before
 * publishing happens-before the writer reads it. The mirror itself is touched only under its own
 * lock, by writers, so a capture never waits for a write in progress.
 */
final class TreeMirror {

    /** A znode's fields as the canonical form holds them (its children live in their own name set). */
    record FrozenNode(byte[] data, List<Acl> acl, long czxid, long mzxid, long pzxid, long ctime, long mtime,
                      int version, int childCreations, int aversion, Znode.Kind kind, long owner) {
    }

    /** A session's fields as the canonical form holds them (its ephemerals live in their own name set). */
    record FrozenSession(long id, int timeoutMs, long deadline, long owner, List<Id> ids) {
    }

    /**
     * The changes between two captures: the new values of changed keys (null for gone), the ordered
     * name-set changes, and the counters. A baseline delta replaces the whole mirror.
     */
    record Delta(long sequence, boolean baseline, long lastZxid, long lastTime, Map<String, FrozenNode> nodes,
                 List<TreeChanges.NameSetChange> setChanges, Map<Long, FrozenSession> sessions,
                 Map<WatchRegistry.Table, Map<String, List<WatchRegistry.Registration>>> watches) {
    }

    private static final class NameSet {
        int table;
        final LinkedHashSet<String> names = new LinkedHashSet<>();
    }

    private static final NameSet EMPTY = new NameSet();

    // ---- shared between the executor (publish) and writers (take), under pendingLock ----
    private final Object pendingLock = new Object();
    private final Deque<Delta> pending = new ArrayDeque<>();
    private long published;

    // ---- writers only, under mirrorLock ----
    private final Object mirrorLock = new Object();
    private long applied = -1;
    private long lastZxid;
    private long lastTime;
    private final HashMap<String, FrozenNode> nodes = new HashMap<>();
    private final HashMap<String, NameSet> children = new HashMap<>();
    private final TreeMap<Long, FrozenSession> sessions = new TreeMap<>();
    private final HashMap<Long, NameSet> ephemerals = new HashMap<>();
    private final Map<WatchRegistry.Table, TreeMap<String, List<WatchRegistry.Registration>>> watches =
            new EnumMap<>(WatchRegistry.Table.class);

    TreeMirror() {
        for (WatchRegistry.Table t : WatchRegistry.Table.values()) {
            watches.put(t, new TreeMap<>());
        }
    }

    /** Executor: hands over the changes since the previous capture; returns at once. */
    long publish(boolean baseline, long lastZxid, long lastTime, Map<String, FrozenNode> changedNodes,
                 List<TreeChanges.NameSetChange> setChanges, Map<Long, FrozenSession> changedSessions,
                 Map<WatchRegistry.Table, Map<String, List<WatchRegistry.Registration>>> changedWatches) {
        synchronized (pendingLock) {
            long sequence = published++;
            pending.addLast(new Delta(sequence, baseline, lastZxid, lastTime, changedNodes, setChanges,
                    changedSessions, changedWatches));
            return sequence;
        }
    }

    /** Writer: brings the mirror to capture {@code sequence} and writes it in the canonical form. */
    void write(long sequence, OutputStream sink) throws IOException {
        synchronized (mirrorLock) {
            if (sequence < applied) {
                throw new IllegalStateException("image " + sequence + " of this tree can no longer be written: image "
                        + applied + " was written after it was captured (images are written in capture order)");
            }
            List<Delta> taken = new ArrayList<>();
            synchronized (pendingLock) {
                while (!pending.isEmpty() && pending.peekFirst().sequence() <= sequence) {
                    taken.add(pending.pollFirst());
                }
            }
            for (Delta d : taken) {
                apply(d);
            }
            writeCanonical(new DataOutputStream(sink));
        }
    }

    private void apply(Delta d) {
        if (d.baseline()) {
            nodes.clear();
            children.clear();
            sessions.clear();
            ephemerals.clear();
            watches.values().forEach(Map::clear);
        }
        lastZxid = d.lastZxid();
        lastTime = d.lastTime();
        for (TreeChanges.NameSetChange c : d.setChanges()) {
            HashMap<Object, NameSet> sets = c.owner() instanceof String ? cast(children) : cast(ephemerals);
            switch (c.op()) {
                case ADD -> {
                    NameSet s = sets.computeIfAbsent(c.owner(), k -> new NameSet());
                    s.names.add(c.name());
                    s.table = c.table();
                }
                case REMOVE -> {
                    NameSet s = sets.get(c.owner());
                    if (s != null) {
                        s.names.remove(c.name());
                    }
                }
                case RESET -> {
                    NameSet s = new NameSet();
                    s.table = c.table();
                    s.names.addAll(c.names());
                    sets.put(c.owner(), s);
                }
                case DROP -> sets.remove(c.owner());
            }
        }
        d.nodes().forEach((path, n) -> {
            if (n == null) {
                nodes.remove(path);
            } else {
                nodes.put(path, n);
            }
        });
        d.sessions().forEach((id, s) -> {
            if (s == null) {
                sessions.remove(id);
            } else {
                sessions.put(id, s);
            }
        });
        d.watches().forEach((table, byPath) -> byPath.forEach((path, regs) -> {
            if (regs.isEmpty()) {
                watches.get(table).remove(path);
            } else {
                watches.get(table).put(path, regs);
            }
        }));
        applied = d.sequence();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static HashMap<Object, NameSet> cast(HashMap<?, NameSet> sets) {
        return (HashMap) sets;
    }

    /** The same bytes {@link TreeSnapshot#write} gives for the live tree in this state. */
    private void writeCanonical(DataOutputStream out) throws IOException {
        TreeSnapshot.writeHeader(out, lastZxid, lastTime);
        out.writeInt(sessions.size());
        for (FrozenSession s : sessions.values()) {
            NameSet e = ephemerals.getOrDefault(s.id(), EMPTY);
            TreeSnapshot.writeSession(out, s.id(), s.timeoutMs(), s.deadline(), s.owner(), s.ids(), e.table, e.names);
        }
        List<String> paths = depthFirst();
        out.writeInt(paths.size());
        for (String path : paths) {
            FrozenNode n = nodes.get(path);
            NameSet c = children.getOrDefault(path, EMPTY);
            TreeSnapshot.writeNode(out, path, n.data(), n.acl(), n.czxid(), n.mzxid(), n.pzxid(), n.ctime(),
                    n.mtime(), n.version(), n.childCreations(), n.aversion(), n.kind(), n.owner(), c.table, c.names);
        }
        int count = 0;
        for (TreeMap<String, List<WatchRegistry.Registration>> byPath : watches.values()) {
            for (List<WatchRegistry.Registration> regs : byPath.values()) {
                count += regs.size();
            }
        }
        out.writeInt(count);
        for (WatchRegistry.Table t : WatchRegistry.Table.values()) {
            for (List<WatchRegistry.Registration> regs : watches.get(t).values()) {
                for (WatchRegistry.Registration r : regs) {
                    TreeSnapshot.writeRegistration(out, r.table(), r.path(), r.session(), r.mode());
                }
            }
        }
        out.flush();
    }

    /** The paths in the order {@link ZnodeTree#paths()} lists them: depth first, children by name. */
    private List<String> depthFirst() {
        List<String> out = new ArrayList<>(nodes.size());
        Deque<String> stack = new ArrayDeque<>();
        stack.push("/");
        while (!stack.isEmpty()) {
            String p = stack.pop();
            if (!nodes.containsKey(p)) {
                throw new IllegalStateException("tree image is missing node " + p + " that its parent lists");
            }
            out.add(p);
            Collection<String> names = children.getOrDefault(p, EMPTY).names;
            List<String> sorted = new ArrayList<>(names);
            sorted.sort(Comparator.reverseOrder());
            for (String c : sorted) {
                stack.push(PathRules.child(p, c));
            }
        }
        if (out.size() != nodes.size()) {
            throw new IllegalStateException("tree image holds " + nodes.size() + " nodes but " + out.size()
                    + " are reachable from /");
        }
        return out;
    }
}
