package io.eyrie.core.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes Eyrie puts on the wire: requests (multicast payloads) and the direct messages between
 * replicas (exchanges, asks) and to clients (replies). User values inside them are Kryo bytes.
 */
public final class Wire {

    static final byte EXCHANGE = 1;
    static final byte ASK = 2;
    static final byte REPLY = 3;
    static final byte GONE = 4;
    static final byte IMAGE_REQUEST = 5;
    static final byte IMAGE_OFFER = 6;
    static final byte CHUNK_REQUEST = 7;
    static final byte CHUNK = 8;
    static final byte PROGRESS = 9;

    private static final int ITEMS_MAX = 1 << 20;

    private Wire() {
    }

    /**
     * A client's command: {@code ackedBelow} says every seq below it has its reply at the client.
     * {@code replier}: the one replica that answers the first copy (the others execute it and send
     * nothing), or {@link #EVERY_REPLICA}. The client names its own node's replica while that one is
     * caught up, else one replica of a destination partition; a copy sent again is answered by every
     * replica.
     */
    public record Request(long clientId, long seq, long ackedBelow, int replier, byte[] command, byte kind) {
        /** No replier named: every replica of every destination answers (the first reply wins). */
        public static final int EVERY_REPLICA = -1;
        /** {@link #kind}: a command for the state machine (Kryo bytes in {@link #command}). */
        public static final byte COMMAND = 0;
        /** {@link #kind}: the client leaves the request's destination set (ADR 058); no command bytes. */
        public static final byte RETIRE = 1;
        /**
         * {@link #kind}: the client succeeds its node's previous client (ADR 058), which leaves every
         * partition; {@link #command} holds the client's start time (8 bytes, epoch millis). To every partition.
         */
        public static final byte RETIRE_NODE = 2;

        public Request {
            if (kind < COMMAND || kind > RETIRE_NODE) {
                throw new IllegalArgumentException("unknown request kind " + kind);
            }
        }

        public Request(long clientId, long seq, long ackedBelow, int replier, byte[] command) {
            this(clientId, seq, ackedBelow, replier, command, COMMAND);
        }

        public Request(long clientId, long seq, long ackedBelow, byte[] command) {
            this(clientId, seq, ackedBelow, EVERY_REPLICA, command);
        }

        /** The same request answered by every replica (a copy sent again). */
        public Request toEveryReplica() {
            return new Request(clientId, seq, ackedBelow, EVERY_REPLICA, command, kind);
        }

        public int clientNode() {
            return (int) (clientId >>> 32);
        }

        public String name() {
            return Long.toHexString(clientId) + ":" + seq;
        }
    }

    /** How a replica's refusal of a retired client's request begins (ADR 058). */
    public static String retiredPrefix(long clientId) {
        return "client " + Long.toHexString(clientId) + " has retired";
    }

    /** What one object's owner says about it for one command. */
    public enum ShipKind { VALUE, UNCHANGED, ABSENT }

    public record ShippedObject(Object id, ShipKind kind, long hash, byte[] value) {
    }

    /**
     * Partition {@code from}'s message to partition {@code to} for the command at {@code position}:
     * a signal, plus the values of {@code from}'s objects that the command reads (round 0), or a
     * value the command exchanged while it executed (round 1, 2, ...: {@code StateMachine.exchange}).
     */
    public record Exchange(long position, int round, int from, int to, List<ShippedObject> objects) {
        public ShippedObject object(Object id) {
            for (ShippedObject o : objects) {
                if (o.id().equals(id)) {
                    return o;
                }
            }
            return null;
        }
    }

    /**
     * Node {@code askerNode} of partition {@code asker} still lacks {@code owner}'s exchange for a command.
     * {@code askerUptimeMillis}: how long the asker's replica has been running, so that the answerer can
     * tell exchanges sent before the asker (re)started, which it never received. {@code senderSilent}: the
     * asker has heard nothing from {@code owner}'s designated sender for a while (ADR 038).
     */
    public record Ask(long position, int round, int asker, int owner, int askerNode, long askerUptimeMillis,
                      boolean senderSilent) {
    }

    /**
     * The answer of partition {@code owner}'s replica to an ask for an exchange it no longer keeps:
     * it executed the command at {@code position} too long ago. The asker cannot replay that command
     * and catches up by state transfer instead.
     */
    public record Gone(long position, int owner) {
    }

    /**
     * A replica of {@code partition} has finished every command at or below {@code doneUpTo}, deferred
     * rounds included: the other partitions may forget their exchanges for it up to there (ADR 049).
     */
    public record Progress(int partition, long doneUpTo) {
    }

    /** A replica asks a peer of its own partition for a state image at a position of at least {@code minPosition}. */
    public record ImageRequest(long requestId, long minPosition) {
    }

    /** A peer holds an image for request {@code requestId}: its position, size and SHA-256. */
    public record ImageOffer(long requestId, long position, int length, byte[] sha256) {
    }

    /** The requester pulls the bytes of the offered image at {@code position} from {@code offset}. */
    public record ChunkRequest(long requestId, long position, int offset) {
    }

    /** Bytes of the image at {@code position} starting at {@code offset}. */
    public record Chunk(long requestId, long position, int offset, byte[] bytes) {
    }

    /** The outcome of a client's command: a result (Kryo bytes) or an error message. */
    public record Reply(long clientId, long seq, boolean ok, byte[] body) {
    }

    /**
     * Request flags: who answers in the low three bits (every replica; the client's node; the node in
     * the next int), the request's kind in the next two ({@link Request#kind} shifted by {@link #KIND_SHIFT}).
     */
    private static final byte REPLY_EVERY = 0;
    private static final byte REPLY_CLIENT_NODE = 1;
    private static final byte REPLY_NAMED = 2;
    private static final int REPLY_MASK = 0x07;
    private static final int KIND_SHIFT = 3;

    /** Sizes are known up front: one exact array, no stream and no growth copies (hot path). */
    public static byte[] encode(Request r) {
        byte[] command = r.command();
        byte flag = r.replier() == Request.EVERY_REPLICA ? REPLY_EVERY
                : r.replier() == r.clientNode() ? REPLY_CLIENT_NODE : REPLY_NAMED;
        ByteBuffer out = ByteBuffer.allocate(8 + 8 + 8 + 1 + (flag == REPLY_NAMED ? 4 : 0) + 4 + command.length)
                .putLong(r.clientId()).putLong(r.seq()).putLong(r.ackedBelow()).put((byte) (flag | r.kind() << KIND_SHIFT));
        if (flag == REPLY_NAMED) {
            out.putInt(r.replier());
        }
        return out.putInt(command.length).put(command).array();
    }

    public static Request decodeRequest(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            long clientId = in.getLong();
            long seq = in.getLong();
            long ackedBelow = in.getLong();
            byte flags = in.get();
            int kind = (flags & 0xff) >>> KIND_SHIFT;
            if (kind > Request.RETIRE_NODE) {
                throw malformed(bytes, "unknown request flags " + flags);
            }
            int replier = switch (flags & REPLY_MASK) {
                case REPLY_EVERY -> Request.EVERY_REPLICA;
                case REPLY_CLIENT_NODE -> (int) (clientId >>> 32);
                case REPLY_NAMED -> {
                    int node = in.getInt();
                    if (node < 0) {
                        throw malformed(bytes, "negative replier " + node);
                    }
                    yield node;
                }
                default -> throw malformed(bytes, "unknown request flags " + flags);
            };
            return new Request(clientId, seq, ackedBelow, replier, bytes(in), (byte) kind);
        } catch (BufferUnderflowException e) {
            throw malformed(bytes, "truncated request");
        }
    }

    public static byte[] encode(Exchange e) {
        return write(out -> {
            out.writeByte(EXCHANGE);
            out.writeLong(e.position());
            out.writeInt(e.round());
            out.writeInt(e.from());
            out.writeInt(e.to());
            out.writeInt(e.objects().size());
            for (ShippedObject o : e.objects()) {
                writeBytes(out, KryoCodec.encode(o.id()));
                out.writeByte(o.kind().ordinal());
                out.writeLong(o.hash());
                writeBytes(out, o.value() == null ? new byte[0] : o.value());
            }
        });
    }

    public static byte[] encode(Ask a) {
        return write(out -> {
            out.writeByte(ASK);
            out.writeLong(a.position());
            out.writeInt(a.round());
            out.writeInt(a.asker());
            out.writeInt(a.owner());
            out.writeInt(a.askerNode());
            out.writeLong(a.askerUptimeMillis());
            out.writeBoolean(a.senderSilent());
        });
    }

    public static byte[] encode(Reply r) {
        byte[] body = r.body();
        return ByteBuffer.allocate(REPLY_HEADER_BYTES + 4 + body.length)
                .put(REPLY).putLong(r.clientId()).putLong(r.seq()).put((byte) (r.ok() ? 1 : 0))
                .putInt(body.length).put(body).array();
    }

    /** The kind of a direct message (its first byte): lets a protocol skip the others' messages undecoded. */
    public static byte type(byte[] message) {
        return message.length == 0 ? 0 : message[0];
    }

    /** Whether a direct message of this type is for replicas: exchanges, asks and state transfer. */
    static boolean isReplicaMessage(byte type) {
        return type == EXCHANGE || type == ASK || (type >= GONE && type <= PROGRESS);
    }

    public static boolean isReply(byte[] message) {
        return type(message) == REPLY && message.length >= REPLY_HEADER_BYTES;
    }

    /** The client a reply is for, read in place (a client drops the replies of other clients undecoded). */
    public static long replyClientId(byte[] reply) {
        return ByteBuffer.wrap(reply).getLong(1);
    }

    /** The seq a reply answers, read in place (the first reply wins; later copies need no decoding). */
    public static long replySeq(byte[] reply) {
        return ByteBuffer.wrap(reply).getLong(9);
    }

    /** type, clientId, seq, ok */
    private static final int REPLY_HEADER_BYTES = 1 + 8 + 8 + 1;

    private static Reply decodeReply(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            in.get();
            return new Reply(in.getLong(), in.getLong(), in.get() != 0, bytes(in));
        } catch (BufferUnderflowException e) {
            throw malformed(bytes, "truncated reply");
        }
    }

    private static byte[] bytes(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    private static IllegalArgumentException malformed(byte[] bytes, String what) {
        return new IllegalArgumentException("malformed Eyrie message (" + bytes.length + " bytes): " + what);
    }

    public static byte[] encode(Gone g) {
        return write(out -> {
            out.writeByte(GONE);
            out.writeLong(g.position());
            out.writeInt(g.owner());
        });
    }

    public static byte[] encode(Progress p) {
        return write(out -> {
            out.writeByte(PROGRESS);
            out.writeInt(p.partition());
            out.writeLong(p.doneUpTo());
        });
    }

    public static byte[] encode(ImageRequest r) {
        return write(out -> {
            out.writeByte(IMAGE_REQUEST);
            out.writeLong(r.requestId());
            out.writeLong(r.minPosition());
        });
    }

    public static byte[] encode(ImageOffer o) {
        return write(out -> {
            out.writeByte(IMAGE_OFFER);
            out.writeLong(o.requestId());
            out.writeLong(o.position());
            out.writeInt(o.length());
            writeBytes(out, o.sha256());
        });
    }

    public static byte[] encode(ChunkRequest r) {
        return write(out -> {
            out.writeByte(CHUNK_REQUEST);
            out.writeLong(r.requestId());
            out.writeLong(r.position());
            out.writeInt(r.offset());
        });
    }

    public static byte[] encode(Chunk c) {
        return write(out -> {
            out.writeByte(CHUNK);
            out.writeLong(c.requestId());
            out.writeLong(c.position());
            out.writeInt(c.offset());
            writeBytes(out, c.bytes());
        });
    }

    /**
     * Decodes a direct message: an {@link Exchange}, {@link Ask}, {@link Reply}, {@link Progress} or one
     * of the state transfer messages ({@link Gone}, {@link ImageRequest}, {@link ImageOffer},
     * {@link ChunkRequest}, {@link Chunk}); null for a
     * message of another protocol on the same channel (its first byte is none of Eyrie's types).
     */
    public static Object decodeDirect(byte[] bytes) {
        if (type(bytes) == REPLY) {
            return decodeReply(bytes);
        }
        return read(bytes, in -> {
            byte type = in.readByte();
            switch (type) {
                case EXCHANGE -> {
                    long position = in.readLong();
                    int round = in.readInt();
                    int from = in.readInt();
                    int to = in.readInt();
                    int n = in.readInt();
                    if (n < 0 || n > ITEMS_MAX) {
                        throw new IOException("exchange with " + n + " objects");
                    }
                    List<ShippedObject> objects = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        Object id = KryoCodec.decode(readBytes(in));
                        ShipKind kind = ShipKind.values()[in.readByte()];
                        long hash = in.readLong();
                        byte[] value = readBytes(in);
                        objects.add(new ShippedObject(id, kind, hash, kind == ShipKind.VALUE ? value : null));
                    }
                    return new Exchange(position, round, from, to, List.copyOf(objects));
                }
                case ASK -> {
                    long position = in.readLong();
                    int round = in.readInt();
                    int asker = in.readInt();
                    int owner = in.readInt();
                    int askerNode = in.readInt();
                    // an ask of a replica from before ADR 038 ends here: treat it as that version did
                    // (every ask a lost exchange: catch up, volunteer)
                    if (in.available() < 9) {
                        return new Ask(position, round, asker, owner, askerNode, 0, true);
                    }
                    return new Ask(position, round, asker, owner, askerNode, in.readLong(), in.readBoolean());
                }
                case GONE -> {
                    return new Gone(in.readLong(), in.readInt());
                }
                case PROGRESS -> {
                    return new Progress(in.readInt(), in.readLong());
                }
                case IMAGE_REQUEST -> {
                    return new ImageRequest(in.readLong(), in.readLong());
                }
                case IMAGE_OFFER -> {
                    return new ImageOffer(in.readLong(), in.readLong(), in.readInt(), readBytes(in));
                }
                case CHUNK_REQUEST -> {
                    return new ChunkRequest(in.readLong(), in.readLong(), in.readInt());
                }
                case CHUNK -> {
                    return new Chunk(in.readLong(), in.readLong(), in.readInt(), readBytes(in));
                }
                default -> {
                    // another protocol sharing the node's direct channel (Volery's events): not ours
                    return null;
                }
            }
        });
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static <T> T read(byte[] bytes, Reader<T> r) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            return r.read(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed Eyrie message (" + bytes.length + " bytes): " + e.getMessage(), e);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("length " + n + " exceeds the " + in.available() + " bytes left");
        }
        return in.readNBytes(n);
    }
}
