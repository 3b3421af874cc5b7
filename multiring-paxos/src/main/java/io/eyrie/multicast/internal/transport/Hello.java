package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The first frame on every connection: who is dialling and which cluster file it was started with.
 * Payload: hello magic (4) | version (1) | node id (4) | cluster fingerprint (8).
 */
public record Hello(int nodeId, long clusterFingerprint) {

    /** "EYHL" in ASCII: tells a hello apart from a message sent before one. */
    public static final int HELLO_MAGIC = 0x4559484C;
    public static final byte VERSION = 1;
    public static final int PAYLOAD_BYTES = 4 + 1 + 4 + 8;

    public ByteBuf encode(ByteBufAllocator alloc) {
        ByteBuf buf = alloc.buffer(PAYLOAD_BYTES);
        buf.writeInt(HELLO_MAGIC);
        buf.writeByte(VERSION);
        buf.writeInt(nodeId);
        buf.writeLong(clusterFingerprint);
        return buf;
    }

    /**
     * Reads a hello from a frame payload without consuming it.
     *
     * @throws MalformedHello naming what is wrong, when the payload is not a hello of this version
     */
    public static Hello decode(ByteBuf payload) throws MalformedHello {
        if (payload.readableBytes() != PAYLOAD_BYTES) {
            throw new MalformedHello("first frame is " + payload.readableBytes() + " bytes, a hello is " + PAYLOAD_BYTES
                    + " (data before the hello?)");
        }
        int at = payload.readerIndex();
        int magic = payload.getInt(at);
        if (magic != HELLO_MAGIC) {
            throw new MalformedHello(String.format("first frame is not a hello (magic 0x%08x, expected 0x%08x)",
                    magic, HELLO_MAGIC));
        }
        byte version = payload.getByte(at + 4);
        if (version != VERSION) {
            throw new MalformedHello("hello version " + version + ", this node speaks " + VERSION);
        }
        return new Hello(payload.getInt(at + 5), payload.getLong(at + 9));
    }

    /** A first frame that is not a valid hello. */
    public static final class MalformedHello extends Exception {
        public MalformedHello(String message) {
            super(message, null, false, false);
        }
    }
}
