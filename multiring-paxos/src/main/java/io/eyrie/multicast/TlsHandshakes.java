package io.eyrie.multicast;

import io.netty.handler.ssl.SslHandshakeTimeoutException;

import java.nio.channels.ClosedChannelException;

/**
 * Tells a TLS handshake that failed from one that was abandoned (ADR 094). A failed handshake reached a
 * verdict: the peer spoke something other than TLS, presented a certificate that is not trusted, or shares
 * no protocol or cipher suite; that is a misconfiguration or an attack, and operators count and log it. An
 * abandoned one never got that far: the connection closed before the handshake ended (a peer killed or
 * restarting mid-handshake, a load balancer's TCP health check, a port scan) or the peer sent nothing until
 * the handshake timed out. Both end the connection; only the first says something is wrong.
 */
public final class TlsHandshakes {
    private TlsHandshakes() {
    }

    /**
     * Whether a handshake that ended with {@code cause} (Netty's {@code SslHandshakeCompletionEvent#cause()})
     * was abandoned rather than failed.
     */
    public static boolean abandoned(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ClosedChannelException || t instanceof SslHandshakeTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
