package io.eyrie.core.internal;

import java.util.HashMap;

/** Everything a replica restores from: the application, the reply table, the caches, and where the learner was. */
final class CheckpointImage {
    long position;
    byte[] learnerCheckpoint;
    /** The application's Kryo-serializable state, or a {@link Written} image. */
    Object applicationState;
    ReplyTable replies;
    HashMap<Integer, CopyTable> readerCaches;
    HashMap<Integer, CopyTable> shipMirrors;
    /** The exchanges this replica sent for its recent commands, by position (see {@link SentExchanges#copy}). */
    java.util.LinkedHashMap<Long, java.util.Map<Long, byte[]>> sentExchanges;

    /** What a {@link io.eyrie.core.StateImage} wrote; restored by handing the bytes to the application. */
    static final class Written {
        byte[] bytes;

        Written() {
        }

        Written(byte[] bytes) {
            this.bytes = bytes;
        }
    }
}
