package io.volery.server.internal;

import io.volery.server.tree.Command;

/** The paths operations touch, and how a partition that does not own a top-level node follows it. */
final class MultiPaths {

    private MultiPaths() {
    }

    static String pathOf(Command op) {
        if (op instanceof Command.Create c) {
            return c.path();
        } else if (op instanceof Command.Delete d) {
            return d.path();
        } else if (op instanceof Command.SetData s) {
            return s.path();
        } else if (op instanceof Command.Check c) {
            return c.path();
        } else if (op instanceof Command.GetData g) {
            return g.path();
        } else if (op instanceof Command.GetChildren g) {
            return g.path();
        }
        throw new IllegalArgumentException("no path in " + op);
    }

    /**
     * Creating or deleting a node every partition lists, or writing the root, which every partition
     * keeps whole: every partition applies it.
     */
    static boolean listedEverywhere(Command op, PathPartitioner p) {
        return (op instanceof Command.Create || op instanceof Command.Delete) && p.listedEverywhere(pathOf(op))
                || op instanceof Command.SetData s && PathPartitioner.isRoot(s.path());
    }

    /**
     * The operation as a partition that keeps only a copy of the node applies it: that copy's data
     * version is not current, so a delete ignores the version (the owner checked it).
     */
    static Command.MultiOp followerCopy(Command.MultiOp op) {
        if (op instanceof Command.Delete d) {
            return new Command.Delete(d.sessionId(), d.path(), -1);
        }
        return op;
    }
}
