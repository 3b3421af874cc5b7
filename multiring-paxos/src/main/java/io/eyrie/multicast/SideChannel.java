package io.eyrie.multicast;

import io.eyrie.multicast.internal.transport.ClusterFingerprint;
import io.eyrie.multicast.internal.transport.SideRequest;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One question to a peer's ring port outside the protocol (ADR 063), such as "your newest checkpoint",
 * asked by a node whose own rings may not be up yet. It takes the ring port's guard: the asker names a
 * node of the same cluster file, and with {@link PeerTls} both sides present certificates the cluster's
 * trust store accepts, so what crosses is encrypted like every other message between the nodes; without
 * TLS a peer answers only connections from the cluster's hosts. Served by the Netty transport, once a
 * {@link Server} is set ({@link MulticastNode#serveSideRequests}).
 */
public final class SideChannel {

    /** What a node answers to side requests. */
    @FunctionalInterface
    public interface Server {
        /**
         * The answer to a request of {@code kind} from node {@code fromNodeId}: the bytes, or null when there
         * is nothing to give. Runs on a thread of its own (one request at a time), never on a transport
         * thread, so it may read files. An exception refuses the request with its message.
         */
        byte[] answer(int fromNodeId, int kind) throws Exception;
    }

    /** The peer refused the request; the message is its reason. */
    public static final class Refused extends IOException {
        public Refused(String message) {
            super(message);
        }
    }

    private SideChannel() {
    }

    /**
     * A socket that connects from the asker's own host as the cluster file names it, when that address is this
     * machine's: without TLS the peer answers only the cluster's hosts, and a machine with several addresses (or
     * several loopback ones) would otherwise connect from whichever its routes pick. Unbound when the address is
     * not local (a NAT'd or advertised one).
     */
    private static Socket fromOwnHost(String host) throws IOException {
        Socket s = new Socket();
        try {
            s.bind(new InetSocketAddress(host, 0));
            return s;
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            s.close();
            return new Socket();
        }
    }

    /**
     * Asks node {@code peerId}'s ring port for {@code kind} on behalf of node {@code selfId} and reads the answer.
     *
     * @param maxBytes the largest answer accepted (a bound on what a peer can make this node buffer)
     * @return the answer, or null when the peer has nothing of that kind
     * @throws Refused     when the peer refused (not a cluster host, nothing serves that kind, its server failed)
     * @throws IOException when the peer cannot be reached, the TLS handshake fails, or the answer is cut short
     *                     or larger than {@code maxBytes}
     */
    public static byte[] ask(ClusterConfig config, int selfId, int peerId, int kind, int timeoutMillis, int maxBytes)
            throws IOException {
        ClusterConfig.Node self = config.node(selfId);
        ClusterConfig.Node peer = config.node(peerId);
        byte[] request = new SideRequest(selfId, ClusterFingerprint.of(config), kind).frame();
        Socket plain = fromOwnHost(self.host());
        try {
            plain.connect(new InetSocketAddress(peer.host(), peer.port()), timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
        } catch (IOException e) {
            plain.close();
            throw e;
        }
        PeerTls tls = config.peerTls();
        try (Socket s = tls == null ? plain : tls.dial(plain, peer.host(), peer.port())) {
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte status;
            int length;
            try {
                status = in.readByte();
                length = in.readInt();
            } catch (EOFException e) {
                throw new IOException("node " + peerId + " closed the connection without an answer", e);
            }
            if (length < 0 || length > maxBytes) {
                throw new IOException("node " + peerId + " announced an answer of " + length + " bytes, more than "
                        + maxBytes + " accepted");
            }
            byte[] body = in.readNBytes(length);
            if (body.length != length) {
                throw new IOException("node " + peerId + " sent " + body.length + " of " + length + " bytes");
            }
            return switch (status) {
                case SideRequest.STATUS_OK -> body;
                case SideRequest.STATUS_NONE -> null;
                case SideRequest.STATUS_REFUSED -> throw new Refused("node " + peerId + " refused: "
                        + new String(body, StandardCharsets.UTF_8));
                default -> throw new IOException("node " + peerId + " answered with unknown status " + status);
            };
        } finally {
            plain.close();
        }
    }
}
