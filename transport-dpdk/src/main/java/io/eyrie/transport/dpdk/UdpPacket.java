package io.eyrie.transport.dpdk;

import java.nio.ByteBuffer;

/**
 * Ethernet II + IPv4 (no options, DF set: this transport fragments messages itself) + UDP headers.
 * The UDP checksum is left zero, which IPv4 allows: every message carries its own CRC32C, checked
 * after reassembly, so a second checksum per packet would buy nothing.
 */
public final class UdpPacket {

    public static final int ETHERNET_BYTES = 14;
    public static final int IPV4_BYTES = 20;
    public static final int UDP_BYTES = 8;
    public static final int HEADER_BYTES = ETHERNET_BYTES + IPV4_BYTES + UDP_BYTES;

    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int PROTOCOL_UDP = 17;

    private UdpPacket() {
    }

    /** Writes the headers of a packet carrying {@code payloadBytes} at {@code out}'s position. */
    public static void writeHeaders(ByteBuffer out, Endpoint from, Endpoint to, int payloadBytes) {
        out.put(to.mac()).put(from.mac()).putShort((short) ETHERTYPE_IPV4);
        int ipStart = out.position();
        out.put((byte) 0x45).put((byte) 0)
                .putShort((short) (IPV4_BYTES + UDP_BYTES + payloadBytes))
                .putShort((short) 0).putShort((short) 0x4000) // id 0, DF
                .put((byte) 64).put((byte) PROTOCOL_UDP).putShort((short) 0)
                .putInt(from.ipv4()).putInt(to.ipv4());
        out.putShort(ipStart + 10, (short) ipv4Checksum(out, ipStart));
        out.putShort((short) from.udpPort()).putShort((short) to.udpPort())
                .putShort((short) (UDP_BYTES + payloadBytes)).putShort((short) 0);
    }

    /**
     * Checks that the frame in {@code packet} (position to limit) is IPv4/UDP to {@code self} with a
     * valid IP header; returns the offset of the UDP payload, or -1 when it is not such a packet
     * (other traffic on a shared link is normal and ignored). On success the limit is cut to the
     * payload's end, dropping Ethernet padding.
     */
    public static int payloadOffset(ByteBuffer packet, Endpoint self) {
        int s = packet.position();
        if (packet.remaining() < HEADER_BYTES || (packet.getShort(s + 12) & 0xffff) != ETHERTYPE_IPV4) {
            return -1;
        }
        int ip = s + ETHERNET_BYTES;
        if ((packet.get(ip) & 0xff) != 0x45 || (packet.get(ip + 9) & 0xff) != PROTOCOL_UDP
                || packet.getInt(ip + 16) != self.ipv4() || ipv4Checksum(packet, ip) != 0) {
            return -1;
        }
        int total = packet.getShort(ip + 2) & 0xffff;
        int udp = ip + IPV4_BYTES;
        int udpLength = packet.getShort(udp + 4) & 0xffff;
        if (total < IPV4_BYTES + UDP_BYTES || ip + total > packet.limit() || udpLength != total - IPV4_BYTES
                || (packet.getShort(udp + 2) & 0xffff) != self.udpPort()) {
            return -1;
        }
        packet.limit(ip + total);
        return udp + UDP_BYTES;
    }

    /** The one's-complement sum of the 20-byte header at {@code at}: 0 when the stored checksum is right. */
    static int ipv4Checksum(ByteBuffer b, int at) {
        int sum = 0;
        for (int i = 0; i < IPV4_BYTES; i += 2) {
            sum += b.getShort(at + i) & 0xffff;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return ~sum & 0xffff;
    }
}
