package io.volery.client;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The watchers a session registered, by kind and path, and which of them an event goes to. The
 * replicas keep one watch per session and path; a session may hang several watchers on it, and each
 * gets the event once. One-shot watchers are forgotten when they fire, persistent ones stay, as with
 * the ZooKeeper client.
 */
final class ClientWatches {
    private final Map<String, Set<Watcher>> data = new HashMap<>();
    private final Map<String, Set<Watcher>> exist = new HashMap<>();
    private final Map<String, Set<Watcher>> child = new HashMap<>();
    private final Map<String, Set<Watcher>> persistent = new HashMap<>();
    private final Map<String, Set<Watcher>> recursive = new HashMap<>();

    synchronized void addData(String path, Watcher w) {
        add(data, path, w);
    }

    synchronized void addExist(String path, Watcher w) {
        add(exist, path, w);
    }

    synchronized void addChild(String path, Watcher w) {
        add(child, path, w);
    }

    synchronized void addPersistent(String path, Watcher w, AddWatchMode mode) {
        add(mode == AddWatchMode.PERSISTENT_RECURSIVE ? recursive : persistent, path, w);
    }

    private static void add(Map<String, Set<Watcher>> map, String path, Watcher w) {
        map.computeIfAbsent(path, k -> new LinkedHashSet<>()).add(w);
    }

    /** The watchers an event on {@code path} goes to; the one-shot ones among them are removed. */
    synchronized Set<Watcher> fire(EventType type, String path) {
        Set<Watcher> out = new LinkedHashSet<>();
        switch (type) {
            case NodeDataChanged, NodeCreated -> {
                take(data, path, out);
                take(exist, path, out);
            }
            case NodeChildrenChanged -> take(child, path, out);
            case NodeDeleted -> {
                take(data, path, out);
                take(exist, path, out);
                take(child, path, out);
            }
            default -> {
                return out;
            }
        }
        out.addAll(persistent.getOrDefault(path, Set.of()));
        // A recursive watch sees every change below it except child-list changes, which its
        // descendants' own events already report.
        if (type != EventType.NodeChildrenChanged) {
            for (String p = path; p != null; p = parent(p)) {
                out.addAll(recursive.getOrDefault(p, Set.of()));
            }
        }
        return out;
    }

    /**
     * Forgets the watchers of {@code path} that a removeWatches of {@code type} removes, with the
     * event each is told of its removal.
     */
    synchronized Map<Watcher, EventType> remove(String path, Watcher.WatcherType type) {
        Map<Watcher, EventType> removed = new java.util.LinkedHashMap<>();
        boolean any = type == Watcher.WatcherType.Any;
        if (any || type == Watcher.WatcherType.Data) {
            drop(data, path, EventType.DataWatchRemoved, removed);
            drop(exist, path, EventType.DataWatchRemoved, removed);
        }
        if (any || type == Watcher.WatcherType.Children) {
            drop(child, path, EventType.ChildWatchRemoved, removed);
        }
        if (any || type == Watcher.WatcherType.Persistent) {
            drop(persistent, path, EventType.PersistentWatchRemoved, removed);
        }
        if (any || type == Watcher.WatcherType.PersistentRecursive) {
            drop(recursive, path, EventType.PersistentWatchRemoved, removed);
        }
        return removed;
    }

    /** Whether a removeWatches of {@code type} on {@code path} would remove anything here. */
    synchronized boolean has(String path, Watcher.WatcherType type) {
        boolean any = type == Watcher.WatcherType.Any;
        return ((any || type == Watcher.WatcherType.Data) && (data.containsKey(path) || exist.containsKey(path)))
                || ((any || type == Watcher.WatcherType.Children) && child.containsKey(path))
                || ((any || type == Watcher.WatcherType.Persistent) && persistent.containsKey(path))
                || ((any || type == Watcher.WatcherType.PersistentRecursive) && recursive.containsKey(path));
    }

    private static void drop(Map<String, Set<Watcher>> map, String path, EventType event, Map<Watcher, EventType> out) {
        Set<Watcher> ws = map.remove(path);
        if (ws != null) {
            ws.forEach(w -> out.putIfAbsent(w, event));
        }
    }

    /** Every watcher, all forgotten: the session has ended. */
    synchronized Set<Watcher> clear() {
        Set<Watcher> out = new LinkedHashSet<>();
        for (Map<String, Set<Watcher>> m : java.util.List.of(data, exist, child, persistent, recursive)) {
            m.values().forEach(out::addAll);
            m.clear();
        }
        return out;
    }

    private static void take(Map<String, Set<Watcher>> map, String path, Set<Watcher> out) {
        Set<Watcher> ws = map.remove(path);
        if (ws != null) {
            out.addAll(ws);
        }
    }

    private static String parent(String path) {
        if (path.equals("/")) {
            return null;
        }
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }
}
