package io.volery.server.internal;

import io.eyrie.core.Command;
import io.eyrie.core.internal.KryoCodec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** ADR 088: Volery's commands and results travel with their classes as ids, not names. */
class VoleryCodecTest {

    @Test
    void commandsAndResultsCarryNoClassNames() {
        VoleryCodec.registered();
        VoleryRequest r = VoleryRequest.zk(0x1234L, new byte[] {1, 2, 3}, 1_000L, 2);
        byte[] bytes = KryoCodec.encode(new Command(r));
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        assertFalse(text.contains("io.volery"), "a class name travels: " + text);
        VoleryRequest back = (VoleryRequest) ((Command) KryoCodec.decode(bytes)).getItem(0);
        assertEquals(r.sessionId, back.sessionId);
        assertArrayEquals(r.frame, back.frame);
        assertEquals(r.frontEnd, back.frontEnd);
        for (Object result : new Object[] {new VoleryStateMachine.SessionReply(true, 4_000), VoleryStateMachine.REORDERED}) {
            byte[] b = KryoCodec.encode(result);
            assertFalse(new String(b, StandardCharsets.ISO_8859_1).contains("io.volery"), result.getClass().getName());
            assertInstanceOf(result.getClass(), KryoCodec.decode(b));
        }
    }
}
