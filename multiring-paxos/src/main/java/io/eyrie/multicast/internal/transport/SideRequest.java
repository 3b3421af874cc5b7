package io.eyrie.multicast.internal.transport;

import java.nio.ByteBuffer;

/**
 * The first and only frame of a side-channel connection (ADR 063): a node asks a peer's ring port for
 * one thing outside the protocol, such as its newest checkpoint, and reads one answer.
 * Payload: side magic (4) | version (1) | asking node id (4) | cluster fingerprint (8) | kind (4).
 * Answer, unframed: status (1) | length (4) | that many bytes (the thing, or a refusal's reason in UTF-8).
 */
public record SideRequest(int nodeId, long clusterFingerprint, int kind) {

    /** "EYSQ" in ASCII: tells a side request apart from a {@link Hello}. */
    public static final int MAGIC = 0x45595351;
    public static final byte VERSION = 1;
    public static final int PAYLOAD_BYTES = 4 + 1 + 4 + 8 + 4;

    public static final byte STATUS_OK = 0;
    public static final byte STATUS_NONE = 1;
    public static final byte STATUS_REFUSED = 2;
    public static final int ANSWER_HEADER_BYTES = 5;

    /** Whether a first frame's payload claims to be a side request (its magic); not whether it is valid. */
    public static boolean isSideRequest(io.netty.buffer.ByteBuf payload) {
        return payload.readableBytes() >= 4 && payload.getInt(payload.readerIndex()) == MAGIC;
    }

    /** The whole frame (header and payload) as the asking side writes it. */
    public byte[] frame() {
        ByteBuffer payload = ByteBuffer.allocate(PAYLOAD_BYTES);
        payload.putInt(MAGIC).put(VERSION).putInt(nodeId).putLong(clusterFingerprint).putInt(kind).flip();
        ByteBuffer frame = ByteBuffer.allocate(FrameFormat.HEADER_BYTES + PAYLOAD_BYTES);
        frame.putInt(FrameFormat.MAGIC).putInt(PAYLOAD_BYTES).putInt(FrameFormat.crc32c(payload)).put(payload);
        return frame.array();
    }

    /**
     * Reads a side request from a frame payload without consuming it.
     *
     * @throws Hello.MalformedHello naming what is wrong
     */
    public static SideRequest decode(io.netty.buffer.ByteBuf payload) throws Hello.MalformedHello {
        if (payload.readableBytes() != PAYLOAD_BYTES) {
            throw new Hello.MalformedHello("side request of " + payload.readableBytes() + " bytes, expected " + PAYLOAD_BYTES);
        }
        int at = payload.readerIndex();
        byte version = payload.getByte(at + 4);
        if (version != VERSION) {
            throw new Hello.MalformedHello("side request version " + version + ", this node speaks " + VERSION);
        }
        return new SideRequest(payload.getInt(at + 5), payload.getLong(at + 9), payload.getInt(at + 17));
    }
}
