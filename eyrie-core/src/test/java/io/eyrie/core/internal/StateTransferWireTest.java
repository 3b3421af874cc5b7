package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The state transfer messages survive the wire unchanged, and a truncated one is refused, not misread. */
class StateTransferWireTest {

    @Test
    void everyStateTransferMessageDecodesToWhatWasEncoded() {
        assertEquals(new Wire.Gone(42, 2), Wire.decodeDirect(Wire.encode(new Wire.Gone(42, 2))));
        assertEquals(new Wire.ImageRequest(7, 99), Wire.decodeDirect(Wire.encode(new Wire.ImageRequest(7, 99))));
        assertEquals(new Wire.ChunkRequest(7, 120, 49152),
                Wire.decodeDirect(Wire.encode(new Wire.ChunkRequest(7, 120, 49152))));

        byte[] sha = ImageFetch.sha256(new byte[] {1, 2, 3});
        Wire.ImageOffer offer = assertInstanceOf(Wire.ImageOffer.class,
                Wire.decodeDirect(Wire.encode(new Wire.ImageOffer(7, 120, 3, sha))));
        assertEquals(7, offer.requestId());
        assertEquals(120, offer.position());
        assertEquals(3, offer.length());
        assertArrayEquals(sha, offer.sha256(), "the offered checksum");

        Wire.Chunk chunk = assertInstanceOf(Wire.Chunk.class,
                Wire.decodeDirect(Wire.encode(new Wire.Chunk(7, 120, 0, new byte[] {1, 2, 3}))));
        assertEquals(120, chunk.position());
        assertArrayEquals(new byte[] {1, 2, 3}, chunk.bytes(), "the chunk's bytes");
    }

    @Test
    void aTruncatedChunkIsRefused() {
        byte[] whole = Wire.encode(new Wire.Chunk(7, 120, 0, new byte[100]));
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 1);
        assertThrows(IllegalArgumentException.class, () -> Wire.decodeDirect(cut));
    }
}
