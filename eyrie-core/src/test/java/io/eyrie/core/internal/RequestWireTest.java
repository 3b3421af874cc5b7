package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A request's kind (ADR 058) and replier travel in one flags byte. */
class RequestWireTest {

    @Test
    void everyKindAndReplierDecodesToWhatWasEncoded() {
        long client = 7L << 32 | 3;
        for (byte kind : new byte[] {Wire.Request.COMMAND, Wire.Request.RETIRE, Wire.Request.RETIRE_NODE}) {
            for (int replier : new int[] {Wire.Request.EVERY_REPLICA, 7, 12}) {
                Wire.Request r = new Wire.Request(client, 9, 4, replier, new byte[] {1, 2, 3}, kind);
                Wire.Request back = Wire.decodeRequest(Wire.encode(r));
                assertEquals(kind, back.kind());
                assertEquals(replier, back.replier());
                assertEquals(9, back.seq());
                assertArrayEquals(new byte[] {1, 2, 3}, back.command());
            }
        }
        assertEquals(Wire.Request.RETIRE, new Wire.Request(client, 1, 1, 7, new byte[0], Wire.Request.RETIRE)
                .toEveryReplica().kind(), "a copy sent again keeps its kind");
    }

    @Test
    void anUnknownKindIsMalformed() {
        byte[] bytes = Wire.encode(new Wire.Request(1, 1, 1, new byte[0]));
        bytes[24] = (byte) (3 << 3);
        assertThrows(IllegalArgumentException.class, () -> Wire.decodeRequest(bytes));
    }
}
