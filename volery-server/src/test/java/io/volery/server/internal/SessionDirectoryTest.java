package io.volery.server.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.eyrie.core.internal.KryoCodec;
import org.junit.jupiter.api.Test;

class SessionDirectoryTest {

    /**
     * A checkpoint copies the directory and encodes the copy; a replica restored from it must number the
     * sessions' later moves as its peers do (ADR 098), and keep the rest of each entry.
     */
    @Test
    void aCheckpointKeepsEachSessionsFrontEndPasswordRequestNumberAndMoveCount() {
        SessionDirectory d = new SessionDirectory();
        d.put(0x11L, 3, new byte[] {1, 2});
        d.get(0x11L).lastSeq = 9;
        d.get(0x11L).moves = 4;
        d.put(0x22L, 5, null);

        SessionDirectory restored = new SessionDirectory();
        restored.restore((SessionDirectory) KryoCodec.decode(KryoCodec.encode(d.copy())));

        assertEquals(java.util.List.of(0x11L, 0x22L), restored.ids());
        SessionDirectory.Entry e = restored.get(0x11L);
        assertEquals(3, e.frontEnd);
        assertArrayEquals(new byte[] {1, 2}, e.passwd);
        assertEquals(9, e.lastSeq);
        assertEquals(4, e.moves);
        assertEquals(0, restored.get(0x22L).moves);
        assertEquals(5, restored.get(0x22L).frontEnd);
    }
}
