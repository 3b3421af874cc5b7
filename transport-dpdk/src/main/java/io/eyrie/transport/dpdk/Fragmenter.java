package io.eyrie.transport.dpdk;

import java.nio.ByteBuffer;

/**
 * Cuts a message frame into packets that fit the MTU and writes them, headers included, as the
 * records [u16 length][Ethernet frame] that the native TX burst takes.
 */
final class Fragmenter {

    private final Endpoint self;
    private final long fingerprint;
    private final int maxFragmentBytes;

    Fragmenter(Endpoint self, long fingerprint, int mtu) {
        this.self = self;
        this.fingerprint = fingerprint;
        this.maxFragmentBytes = mtu - UdpPacket.IPV4_BYTES - UdpPacket.UDP_BYTES - Fragment.HEADER_BYTES;
    }

    int maxFragmentBytes() {
        return maxFragmentBytes;
    }

    /** How many packets a frame of {@code frameBytes} needs. */
    int packets(int frameBytes) {
        return Math.max(1, (frameBytes + maxFragmentBytes - 1) / maxFragmentBytes);
    }

    /** Bytes of TX records those packets take. */
    int recordBytes(int frameBytes) {
        return packets(frameBytes) * (2 + UdpPacket.HEADER_BYTES + Fragment.HEADER_BYTES) + frameBytes;
    }

    /** Writes every packet of {@code frame} (position to limit) to {@code out}; returns the count. */
    int write(ByteBuffer frame, Endpoint to, long messageId, ByteBuffer out) {
        int length = frame.remaining();
        int count = packets(length);
        if (count > Fragment.MAX_COUNT) {
            throw new IllegalArgumentException("a message of " + length + " bytes needs " + count
                    + " fragments, above the limit " + Fragment.MAX_COUNT);
        }
        for (int i = 0; i < count; i++) {
            int offset = i * maxFragmentBytes;
            int n = Math.min(maxFragmentBytes, length - offset);
            int payload = Fragment.HEADER_BYTES + n;
            out.putShort((short) (UdpPacket.HEADER_BYTES + payload));
            UdpPacket.writeHeaders(out, self, to, payload);
            new Fragment(fingerprint, self.nodeId(), messageId, i, count, offset, length).write(out);
            out.put(frame.duplicate().position(frame.position() + offset).limit(frame.position() + offset + n));
        }
        return count;
    }
}
