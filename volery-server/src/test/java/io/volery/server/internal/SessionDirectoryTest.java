package io.volery.server.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.eyrie.core.internal.KryoCodec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionDirectoryTest {

    private static SessionDirectory twoSessions() {
        SessionDirectory d = new SessionDirectory();
        d.put(0x11L, 3, new byte[] {1, 2});
        d.get(0x11L).lastSeq = 9;
        d.get(0x11L).moves = 4;
        d.put(0x22L, 5, null);
        return d;
    }

    /**
     * A checkpoint encodes a copy of the directory and, beside it, the sessions' move counts; a replica restored
     * from it must number the sessions' later moves as its peers do (ADR 098), and keep the rest of each entry.
     */
    @Test
    void aCheckpointKeepsEachSessionsFrontEndPasswordRequestNumberAndMoveCount() {
        SessionDirectory copy = twoSessions().copy();
        Object[] decoded = (Object[]) KryoCodec.decode(KryoCodec.encode(new Object[] {copy, copy.movesById()}));
        SessionDirectory restored = new SessionDirectory();
        restored.restore((SessionDirectory) decoded[0]);
        @SuppressWarnings("unchecked")
        Map<Long, Long> moves = (Map<Long, Long>) decoded[1];
        restored.restoreMoves(moves);

        assertEquals(List.of(0x11L, 0x22L), restored.ids());
        SessionDirectory.Entry e = restored.get(0x11L);
        assertEquals(3, e.frontEnd);
        assertArrayEquals(new byte[] {1, 2}, e.passwd);
        assertEquals(9, e.lastSeq);
        assertEquals(4, e.moves);
        assertEquals(0, restored.get(0x22L).moves);
        assertEquals(5, restored.get(0x22L).frontEnd);
    }

    /** The entries encode as before ADR 098 (the count travels beside them): an older checkpoint's still decode. */
    @Test
    void theEntriesAloneEncodeWithoutTheMoveCount() {
        SessionDirectory restored = new SessionDirectory();
        restored.restore((SessionDirectory) KryoCodec.decode(KryoCodec.encode(twoSessions().copy())));
        assertEquals(9, restored.get(0x11L).lastSeq);
        assertEquals(0, restored.get(0x11L).moves);
    }
}
