package io.eyrie.multicast.internal.storage;

import java.nio.file.Path;

/**
 * The acceptor log holds damaged data that cannot be explained by a crash during an unsynced
 * write: a bad record in a segment other than the last, a bad record followed by valid ones, or a
 * missing segment. Recovery refuses to guess, because using or silently dropping synced votes
 * could break Paxos safety; an operator must restore the directory or rebuild the acceptor: with the
 * directory moved aside the acceptor starts empty and rejoins from the ring's other acceptors (ADR 074).
 */
public class CorruptLogException extends RuntimeException {

    private final Path file;
    private final long offset;

    public CorruptLogException(Path file, long offset, String problem) {
        super("corrupt acceptor log: " + file + " at offset " + offset + ": " + problem + "; to rebuild this acceptor, move "
                + (file.getParent() == null ? file : file.getParent()) + " aside and start the node again: it rejoins from the"
                + " ring's other acceptors (ADR 074)");
        this.file = file;
        this.offset = offset;
    }

    /** The segment file holding the damage. */
    public Path file() {
        return file;
    }

    /** The byte offset in {@link #file()} where the damaged record or header starts. */
    public long offset() {
        return offset;
    }
}
