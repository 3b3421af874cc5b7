package io.eyrie.multicast.internal.storage;

import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** One segment file of the log and what trimming needs to know about it. */
final class Segment {

    static final String SUFFIX = ".seg";

    final Path path;
    /** Sequence number (count of records ever written before it) of the segment's first record. */
    final long firstSequence;
    final FileChannel channel;
    long recordCount;
    /** Highest instance named by an accept or decision in this segment; -1 if none. */
    long maxInstance = -1;

    Segment(Path path, long firstSequence, FileChannel channel) {
        this.path = path;
        this.firstSequence = firstSequence;
        this.channel = channel;
    }

    /** Zero-padded so that lexical order is sequence order. */
    static String fileName(long firstSequence) {
        return String.format("%020d%s", firstSequence, SUFFIX);
    }

    void noteInstance(long instance) {
        maxInstance = Math.max(maxInstance, instance);
    }

    long nextSequence() {
        return firstSequence + recordCount;
    }

    @Override
    public String toString() {
        return path.getFileName().toString();
    }
}
