package io.volery.client;

import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
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
     * Forgets the watchers of {@code path} that a removeWatches of {@code type} removes: all of them
     * when {@code watcher} is null, otherwise that one only. Returns them by the event each is told
     * of its removal with; a watcher removed from several kinds of watch gets each event once, as
     * from ZooKeeper's client.
     */
    synchronized Map<EventType, Set<Watcher>> remove(String path, Watcher watcher, Watcher.WatcherType type) {
        Map<EventType, Set<Watcher>> removed = new LinkedHashMap<>();
        for (EventType e : List.of(EventType.ChildWatchRemoved, EventType.DataWatchRemoved, EventType.PersistentWatchRemoved)) {
            removed.put(e, new LinkedHashSet<>());
        }
        for (Kind k : kinds(type)) {
            drop(k.map, path, watcher, removed.get(k.removal));
        }
        removed.values().removeIf(Set::isEmpty);
        return removed;
    }

    /**
     * Whether a removeWatches of {@code type} on {@code path} would remove anything here: any
     * watcher when {@code watcher} is null, otherwise that one.
     */
    synchronized boolean has(String path, Watcher watcher, Watcher.WatcherType type) {
        for (Kind k : kinds(type)) {
            Set<Watcher> ws = k.map.get(path);
            if (ws != null && (watcher == null ? !ws.isEmpty() : ws.contains(watcher))) {
                return true;
            }
        }
        return false;
    }

    /** One table of watchers and the event its watchers get when removed. */
    private record Kind(Map<String, Set<Watcher>> map, EventType removal) {
    }

    /** The tables a removeWatches of {@code type} addresses: Data covers data and exist watches. */
    private List<Kind> kinds(Watcher.WatcherType type) {
        List<Kind> out = new ArrayList<>();
        boolean any = type == Watcher.WatcherType.Any;
        if (any || type == Watcher.WatcherType.Children) {
            out.add(new Kind(child, EventType.ChildWatchRemoved));
        }
        if (any || type == Watcher.WatcherType.Data) {
            out.add(new Kind(data, EventType.DataWatchRemoved));
            out.add(new Kind(exist, EventType.DataWatchRemoved));
        }
        if (any || type == Watcher.WatcherType.Persistent) {
            out.add(new Kind(persistent, EventType.PersistentWatchRemoved));
        }
        if (any || type == Watcher.WatcherType.PersistentRecursive) {
            out.add(new Kind(recursive, EventType.PersistentWatchRemoved));
        }
        return out;
    }

    private static void drop(Map<String, Set<Watcher>> map, String path, Watcher watcher, Set<Watcher> out) {
        Set<Watcher> ws = map.get(path);
        if (ws == null) {
            return;
        }
        if (watcher == null) {
            out.addAll(ws);
            map.remove(path);
        } else if (ws.remove(watcher)) {
            out.add(watcher);
            if (ws.isEmpty()) {
                map.remove(path);
            }
        }
    }

    /** Every watcher, all forgotten: the session has ended. */
    synchronized Set<Watcher> clear() {
        Set<Watcher> out = new LinkedHashSet<>();
        for (Map<String, Set<Watcher>> m : List.of(data, exist, child, persistent, recursive)) {
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
