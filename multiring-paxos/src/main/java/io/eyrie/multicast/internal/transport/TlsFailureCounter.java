package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.TlsHandshakes;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and logs failed TLS handshakes between nodes (ADR 061): an untrusted or missing certificate, a
 * plaintext peer, no common protocol. The TLS handler closes such a connection itself; a dialling link
 * then redials with its backoff. The 1st, 2nd, 4th, 8th... failure of a node is logged at WARN, so that a
 * misconfigured peer redialling every second is seen without flooding the log. A handshake abandoned before
 * a verdict (the connection closed or stayed silent, ADR 094) is counted apart and logged at DEBUG only.
 */
final class TlsFailureCounter extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(TlsFailureCounter.class);

    private final TransportCounters counters;
    private final int localNodeId;
    private final String direction;

    /** @param direction "to" for a connection this node dialled, "from" for one it accepted */
    TlsFailureCounter(TransportCounters counters, int localNodeId, String direction) {
        this.counters = counters;
        this.localNodeId = localNodeId;
        this.direction = direction;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
            if (TlsHandshakes.abandoned(e.cause())) {
                // closed or silent before a verdict (ADR 094): a peer's crash or restart, a probe; not a failure
                counters.tlsHandshakeAbandoned();
                LOG.debug("node={} TLS handshake {} {} abandoned: {}", localNodeId, direction, ctx.channel().remoteAddress(), e.cause());
            } else {
                long n = counters.tlsHandshakeFailed();
                if (Long.bitCount(n) == 1) {
                    LOG.warn("node={} TLS handshake {} {} failed ({} so far): {}", localNodeId, direction,
                            ctx.channel().remoteAddress(), n, e.cause() == null ? "?" : e.cause().getMessage());
                }
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() instanceof javax.net.ssl.SSLException) {
            ctx.close(); // reported above as a failed handshake, or a broken record: the connection goes
            return;
        }
        ctx.fireExceptionCaught(cause);
    }
}
