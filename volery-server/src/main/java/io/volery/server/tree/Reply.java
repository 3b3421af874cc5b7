package io.volery.server.tree;

import java.util.List;

/** The payload of a successful {@link Result}. */
public sealed interface Reply {

    /** Success with nothing to return (delete, addWatch, removeWatches, setWatches, closeSession, errors). */
    record Empty() implements Reply {
        public static final Empty INSTANCE = new Empty();
    }

    record Created(String path, Stat stat) implements Reply {
    }

    /** setData, setACL, exists and the rolled-forward check of a multi (stat null there). */
    record StatReply(Stat stat) implements Reply {
    }

    record Data(byte[] data, Stat stat) implements Reply {
    }

    /** Children sorted by name; {@code stat} is null unless asked for. */
    record Children(List<String> children, Stat stat) implements Reply {
    }

    record Acls(List<Acl> acl, Stat stat) implements Reply {
    }

    record Paths(List<String> paths) implements Reply {
    }

    record Count(int count) implements Reply {
    }

    /** One result per op, in op order; for a failed multi every result carries an error code. */
    record MultiResults(List<Result> results) implements Reply {
    }

    record Session(long sessionId, int timeoutMs) implements Reply {
    }

    record Identities(List<Id> ids) implements Reply {
    }

    record Synced(String path) implements Reply {
    }
}
