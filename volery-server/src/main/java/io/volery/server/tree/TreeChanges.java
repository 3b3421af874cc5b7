package io.volery.server.tree;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * What changed in a {@link ZnodeTree} since its last capture, kept by the executor thread that
 * applies commands: the paths whose znode fields changed, the sessions whose fields changed and the
 * watched paths whose registrations changed (a capture freezes their current values), plus, in
 * order, every change to a child or ephemeral name set. Those sets can be large (a parent of many
 * children), so they travel as the operations done on them rather than as copies; the mirror
 * replays them in order and so reaches the same insertion order and table size.
 */
final class TreeChanges {

    enum SetOp { ADD, REMOVE, RESET, DROP }

    /**
     * One change of a name set: the children of a path ({@code owner} is the path, a String) or the
     * ephemerals of a session ({@code owner} is its id, a Long). {@code table} is the set's table
     * size after the change (ADD, RESET); {@code names} the whole insertion order (RESET only).
     */
    record NameSetChange(SetOp op, Object owner, String name, int table, List<String> names) {
    }

    final HashSet<String> nodes = new HashSet<>();
    final HashSet<Long> sessions = new HashSet<>();
    final HashSet<String> dataWatches = new HashSet<>();
    final HashSet<String> childWatches = new HashSet<>();
    ArrayList<NameSetChange> setChanges = new ArrayList<>();

    void node(String path) {
        nodes.add(path);
    }

    void session(long id) {
        sessions.add(id);
    }

    void watch(WatchRegistry.Table table, String path) {
        (table == WatchRegistry.Table.DATA ? dataWatches : childWatches).add(path);
    }

    void added(Object owner, String name, int table) {
        setChanges.add(new NameSetChange(SetOp.ADD, owner, name, table, null));
    }

    void removed(Object owner, String name) {
        setChanges.add(new NameSetChange(SetOp.REMOVE, owner, name, 0, null));
    }

    /** The set of {@code owner} is now exactly {@code set} (a new set, or one an undo put back). */
    void reset(Object owner, HashOrderedSet set) {
        setChanges.add(new NameSetChange(SetOp.RESET, owner, null, set.table(), set.inInsertionOrder()));
    }

    /** The set of {@code owner} is gone with its node or session. */
    void dropped(Object owner) {
        setChanges.add(new NameSetChange(SetOp.DROP, owner, null, 0, null));
    }

    /** Hands over the ordered set changes and starts a new list. */
    List<NameSetChange> takeSetChanges() {
        List<NameSetChange> out = setChanges;
        setChanges = new ArrayList<>();
        return out;
    }

    void clear() {
        nodes.clear();
        sessions.clear();
        dataWatches.clear();
        childWatches.clear();
        setChanges = new ArrayList<>();
    }
}
