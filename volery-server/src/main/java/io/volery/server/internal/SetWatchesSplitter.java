package io.volery.server.internal;

import io.volery.server.tree.Command;

import java.util.ArrayList;
import java.util.List;

/**
 * setWatches goes to every partition; each re-arms only the watches on paths it answers for, so
 * every one-shot watch lives in exactly one partition (the root's in the lowest), and a persistent
 * watch where {@link PathPartitioner#persistentWatchEverywhere} says.
 */
final class SetWatchesSplitter {

    private SetWatchesSplitter() {
    }

    static Command.SetWatches restrict(Command.SetWatches s, PathPartitioner partitioner, int me) {
        return new Command.SetWatches(s.sessionId(), s.relativeZxid(), mine(s.dataWatches(), partitioner, me),
                mine(s.existWatches(), partitioner, me), mine(s.childWatches(), partitioner, me),
                persistent(s.persistentWatches(), false, partitioner, me),
                persistent(s.persistentRecursiveWatches(), true, partitioner, me));
    }

    /** A persistent watch whose nodes may live in any partition (see PathPartitioner) is kept by all. */
    private static List<String> persistent(List<String> paths, boolean recursive, PathPartitioner partitioner, int me) {
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            if (partitioner.persistentWatchEverywhere(p, recursive) || partitioner.ownerOf(p) == me) {
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
