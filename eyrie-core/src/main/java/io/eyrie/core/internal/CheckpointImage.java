package io.eyrie.core.internal;

import java.util.HashMap;

/** Everything a replica restores from: the application, the reply table, the caches, and where the learner was. */
final class CheckpointImage {
    long position;
    byte[] learnerCheckpoint;
    Object applicationState;
    ReplyTable replies;
    HashMap<Integer, CopyTable> readerCaches;
    HashMap<Integer, CopyTable> shipMirrors;
    /** The exchanges this replica sent for its recent commands, by position (see {@link SentExchanges#copy}). */
    java.util.LinkedHashMap<Long, java.util.Map<Long, byte[]>> sentExchanges;
}
