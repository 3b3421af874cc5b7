package io.volery.server.internal;

import io.volery.server.tree.Command;

import java.util.ArrayList;
import java.util.List;

/**
 * setWatches goes to every partition; each re-arms only the watches on paths it answers for, so
 * every watch lives in exactly one partition (the root's in the lowest).
 */
final class SetWatchesSplitter {

    private SetWatchesSplitter() {
    }

    static Command.SetWatches restrict(Command.SetWatches s, PathPartitioner partitioner, int me) {
        return new Command.SetWatches(s.sessionId(), s.relativeZxid(), mine(s.dataWatches(), partitioner, me),
                mine(s.existWatches(), partitioner, me), mine(s.childWatches(), partitioner, me),
                mine(s.persistentWatches(), partitioner, me), recursive(s.persistentRecursiveWatches(), partitioner, me));
    }

    /** A recursive watch on the root sees every partition's nodes, so every partition keeps it. */
    private static List<String> recursive(List<String> paths, PathPartitioner partitioner, int me) {
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            if (PathPartitioner.isRoot(p) || partitioner.ownerOf(p) == me) {
                out.add(p);
            }
        }
        return out;
    }

    private static List<String> mine(List<String> paths, PathPartitioner partitioner, int me) {
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            if (partitioner.ownerOf(p) == me) {
                out.add(p);
            }
        }
        return out;
    }
}
