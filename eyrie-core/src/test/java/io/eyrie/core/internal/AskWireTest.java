package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** An ask survives the wire; one from a replica before ADR 038 (without uptime and silence) still decodes. */
class AskWireTest {

    @Test
    void anAskDecodesToWhatWasEncoded() {
        Wire.Ask a = new Wire.Ask(123_456_789L, 2, 1, 3, 7, 86_400_000L, false);
        assertEquals(a, Wire.decodeDirect(Wire.encode(a)));
        Wire.Ask silent = new Wire.Ask(5, 0, 4, 1, 12, 0, true);
        assertEquals(silent, Wire.decodeDirect(Wire.encode(silent)));
    }

    @Test
    void anAskOfTheOlderFormatIsTakenAsALostExchangeFromASilentSender() {
        byte[] current = Wire.encode(new Wire.Ask(99, 1, 2, 3, 4, 5_000, false));
        byte[] older = Arrays.copyOf(current, current.length - 9); // type, position, round, asker, owner, node
        assertEquals(new Wire.Ask(99, 1, 2, 3, 4, 0, true), Wire.decodeDirect(older));
        // a cut in the middle of the fields every version has is refused, not misread
        assertThrows(IllegalArgumentException.class, () -> Wire.decodeDirect(Arrays.copyOf(current, 10)));
    }
}
