package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** ADR 042: an exchange's sending number rides after it; one without (an answer, an older replica) reads as 0. */
class ExchangeWireTest {

    @Test
    void aNumberedExchangeCarriesItsNumberAndAnUnnumberedOneReadsAsZero() {
        Wire.ShippedObject o = new Wire.ShippedObject("k", Wire.ShipKind.VALUE, 42L, new byte[] {1, 2, 3});
        byte[] plain = Wire.encode(new Wire.Exchange(77L, 1, 2, 3, List.of(o)));
        Wire.Exchange unnumbered = (Wire.Exchange) Wire.decodeDirect(plain);
        assertEquals(0, unnumbered.seq());
        assertEquals(77L, unnumbered.position());
        Wire.Exchange numbered = (Wire.Exchange) Wire.decodeDirect(Wire.numbered(plain, 9_000_000_001L));
        assertEquals(9_000_000_001L, numbered.seq());
        assertEquals(unnumbered.position(), numbered.position());
        assertEquals(unnumbered.round(), numbered.round());
        assertEquals(unnumbered.from(), numbered.from());
        assertEquals(unnumbered.to(), numbered.to());
        assertEquals("k", numbered.object("k").id());
        assertEquals(3, numbered.object("k").value().length);
    }
}
