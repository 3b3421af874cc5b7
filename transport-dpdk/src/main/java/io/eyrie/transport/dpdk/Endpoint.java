package io.eyrie.transport.dpdk;

import io.eyrie.multicast.ClusterConfig;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A node's link-layer and network addresses on the DPDK transport. IPv4 and UDP port are the
 * node's {@code host:port} from the cluster file; the MAC is derived from the node id
 * (locally administered 02:ee:00:00:HI:LO) so that no ARP is needed and a capture shows who is who.
 */
public record Endpoint(int nodeId, byte[] mac, int ipv4, int udpPort) {

    public static Endpoint of(ClusterConfig.Node node) {
        InetAddress a;
        try {
            a = InetAddress.getByName(node.host());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("node." + node.id() + ": cannot resolve host '" + node.host() + "'", e);
        }
        if (!(a instanceof Inet4Address)) {
            throw new IllegalArgumentException("node." + node.id() + ": the DPDK transport needs an IPv4 address, got "
                    + node.host());
        }
        byte[] b = a.getAddress();
        int ip = (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
        return new Endpoint(node.id(), macOf(node.id()), ip, node.port());
    }

    public static byte[] macOf(int nodeId) {
        return new byte[] {0x02, (byte) 0xee, 0, 0, (byte) (nodeId >>> 8), (byte) nodeId};
    }

    /** The MAC as text, for {@code ip link set dev X address ...}. */
    public static String macText(int nodeId) {
        byte[] m = macOf(nodeId);
        StringBuilder s = new StringBuilder();
        for (byte b : m) {
            if (s.length() > 0) {
                s.append(':');
            }
            s.append(String.format("%02x", b & 0xff));
        }
        return s.toString();
    }
}
