package io.eyrie.multicast.internal.transport;

import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which failed dials say the peer's process is gone (ADR 082): a refusal, not a timeout or an unreachable host. */
class PeerRefusalTest {

    @Test
    void aRefusedConnectionIsARefusalWhateverWrapsIt() {
        assertTrue(PeerLink.isRefusal(new ConnectException("Connection refused")));
        // Netty's native transport: "connect(..) failed: Connection refused", a ConnectException, sometimes wrapped
        assertTrue(PeerLink.isRefusal(new RuntimeException("dial", new ConnectException("connect(..) failed: Connection refused"))));
    }

    @Test
    void aPartitionOrATimeoutIsNot() {
        assertFalse(PeerLink.isRefusal(new NoRouteToHostException("No route to host")));
        assertFalse(PeerLink.isRefusal(new ConnectException("connect(..) failed: No route to host")));
        assertFalse(PeerLink.isRefusal(new SocketTimeoutException("connection timed out")));
        assertFalse(PeerLink.isRefusal(null));
    }
}
