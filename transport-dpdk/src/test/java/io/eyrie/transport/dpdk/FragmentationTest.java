package io.eyrie.transport.dpdk;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Messages cut into MTU-sized UDP packets and put back together, as the polling thread does it. */
class FragmentationTest {

    static final Endpoint A = new Endpoint(1, Endpoint.macOf(1), 0x0a4d0001, 9001);
    static final Endpoint B = new Endpoint(2, Endpoint.macOf(2), 0x0a4d0002, 9002);
    static final int MTU = 1500;
    static final long FINGERPRINT = 42;

    /** The packets of one message to B, each as its own buffer (one Ethernet frame). */
    static List<ByteBuffer> packetsOf(byte[] payload, long messageId) {
        ByteBuffer frame = ByteBuffer.allocate(MessageFrame.frameBytes(payload.length));
        MessageFrame.write(ByteBuffer.wrap(payload), frame);
        frame.flip();
        Fragmenter f = new Fragmenter(A, FINGERPRINT, MTU);
        ByteBuffer records = ByteBuffer.allocate(f.recordBytes(frame.remaining()));
        int n = f.write(frame, B, messageId, records);
        assertEquals(records.capacity(), records.position(), "recordBytes() should be exact");
        records.flip();
        List<ByteBuffer> packets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int len = records.getShort() & 0xffff;
            assertTrue(len <= MTU + UdpPacket.ETHERNET_BYTES, "packet of " + len + " bytes exceeds the MTU " + MTU);
            ByteBuffer p = ByteBuffer.allocate(len);
            p.put(records.slice(records.position(), len)).flip();
            records.position(records.position() + len);
            packets.add(p);
        }
        return packets;
    }

    /** Feeds one packet to B's receiving side; returns the checked payload once a message is whole. */
    static byte[] receive(Reassembler r, ByteBuffer packet) {
        ByteBuffer p = packet.duplicate();
        int at = UdpPacket.payloadOffset(p, B);
        assertTrue(at > 0, "B should accept the IPv4/UDP headers A wrote");
        Fragment f = Fragment.read(p, at, p.limit() - at - Fragment.HEADER_BYTES);
        assertNotNull(f, "fragment header should parse");
        ByteBuffer frame = r.accept(f, p.position(at + Fragment.HEADER_BYTES).slice(), 0);
        if (frame == null) {
            return null;
        }
        assertNull(MessageFrame.check(frame, 1 << 20), "reassembled frame should pass the checks");
        ByteBuffer payload = MessageFrame.payload(frame);
        byte[] out = new byte[payload.remaining()];
        payload.get(out);
        return out;
    }

    static byte[] randomBytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    /** 1500 - IPv4 20 - UDP 8 - fragment header 36; 1424-byte payloads fill exactly one packet. */
    @Test
    void messagesOfAnySizeSurviveFragmentationInAnyArrivalOrderWithDuplicates() {
        Random rnd = new Random(7);
        for (int size : new int[] {0, 1, 1423, 1424, 1425, 4000, 100_000, 300_000}) {
            byte[] m = randomBytes(rnd, size);
            List<ByteBuffer> packets = packetsOf(m, size);
            int expectedPackets = Math.max(1, (MessageFrame.frameBytes(size) + 1435) / 1436);
            assertEquals(expectedPackets, packets.size(), "packets for a " + size + "-byte message");
            List<ByteBuffer> arrival = new ArrayList<>(packets);
            arrival.add(packets.get(packets.size() / 2)); // a duplicate
            Collections.shuffle(arrival, rnd);
            Reassembler r = new Reassembler(1 << 20, 16, Long.MAX_VALUE);
            List<byte[]> delivered = new ArrayList<>();
            for (ByteBuffer p : arrival) {
                byte[] got = receive(r, p);
                if (got != null) {
                    delivered.add(got);
                }
            }
            // A duplicated one-packet message is a duplicated message (the protocol tolerates those);
            // a duplicated fragment of a larger message must not yield a second copy.
            int expected = packets.size() == 1 ? 2 : 1;
            assertEquals(expected, delivered.size(), "deliveries of a " + size + "-byte message in "
                    + packets.size() + " packets, one packet duplicated");
            for (byte[] d : delivered) {
                assertArrayEquals(m, d, "content of the " + size + "-byte message");
            }
            assertEquals(0, r.inProgress(), "nothing left half-assembled");
        }
    }

    @Test
    void aMessageWithALostFragmentIsNeverDeliveredAndIsAbandonedAfterTheTimeout() {
        List<ByteBuffer> packets = packetsOf(randomBytes(new Random(1), 10_000), 5);
        Reassembler r = new Reassembler(1 << 20, 16, 1_000);
        for (int i = 1; i < packets.size(); i++) {
            assertNull(receive(r, packets.get(i)), "no delivery without fragment 0");
        }
        assertEquals(1, r.inProgress());
        // A later message after the timeout clears the stale one.
        ByteBuffer p = packetsOf(new byte[5000], 6).get(0).duplicate();
        int at = UdpPacket.payloadOffset(p, B);
        Fragment f = Fragment.read(p, at, p.limit() - at - Fragment.HEADER_BYTES);
        r.accept(f, p.position(at + Fragment.HEADER_BYTES).slice(), 2_000);
        assertEquals(1, r.abandoned(), "the incomplete message should be counted as abandoned");
        assertEquals(1, r.inProgress(), "only the new message in progress");
    }

    @Test
    void partialMessagesAreBoundedByEvictingTheOldest() {
        Reassembler r = new Reassembler(1 << 20, 4, Long.MAX_VALUE);
        for (int id = 0; id < 10; id++) {
            assertNull(receive(r, packetsOf(new byte[3000], id).get(0)));
        }
        assertEquals(4, r.inProgress(), "at most maxPartial messages in progress");
        assertEquals(6, r.abandoned(), "the six oldest given up");
    }

    @Test
    void aMessageAboveTheMaximumIsRefusedFromItsFirstFragment() {
        Reassembler r = new Reassembler(10_000, 4, Long.MAX_VALUE);
        assertNull(receive(r, packetsOf(new byte[20_000], 1).get(0)));
        assertEquals(1, r.refused());
        assertEquals(0, r.inProgress(), "no buffer allocated for a refused message");
    }

    @Test
    void packetsForAnotherAddressOrWithABadIpChecksumAreIgnored() {
        ByteBuffer p = packetsOf(new byte[10], 1).get(0);
        assertEquals(-1, UdpPacket.payloadOffset(p.duplicate(), A), "A is not the destination");
        ByteBuffer corrupt = ByteBuffer.allocate(p.remaining()).put(p.duplicate()).flip();
        corrupt.put(UdpPacket.ETHERNET_BYTES + 8, (byte) 1); // TTL changed, checksum not updated
        assertEquals(-1, UdpPacket.payloadOffset(corrupt, B), "bad IPv4 header checksum");
        assertTrue(UdpPacket.payloadOffset(p.duplicate(), B) > 0, "the intact packet is accepted");
    }
}
