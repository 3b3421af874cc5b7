package io.volery.server.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Port unification (ZooKeeper's {@code client.portUnification}): looks at a connection's first byte and
 * puts TLS in the pipeline when it starts a TLS handshake (a record of type 22), or steps aside for a
 * plaintext client. One byte suffices, so a four-letter word (four bytes, then silence) is not held back
 * waiting for more: no ZooKeeper frame starts with 0x16 (its length would be over 369 MB) and no
 * four-letter word does.
 */
final class TlsDetector extends ByteToMessageDecoder {
    private static final byte TLS_HANDSHAKE = 0x16;

    private final ClientTls tls;

    TlsDetector(ClientTls tls) {
        this.tls = tls;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!in.isReadable()) {
            return;
        }
        // the bytes read so far go on to what replaces this handler
        if (in.getByte(in.readerIndex()) == TLS_HANDSHAKE) {
            ctx.pipeline().replace(this, "tls", tls.newHandler(ctx.alloc()));
        } else {
            ctx.pipeline().remove(this);
        }
    }
}
