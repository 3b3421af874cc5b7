package io.eyrie.multicast.internal.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The on-disk frame of one acceptor-log record:
 * {@code length:int, crc:int, type:byte, body}, where {@code length} counts type and body and the
 * CRC32C covers type and body. The same {@link #check} runs during recovery and on every read, so
 * what was verified when the log was scanned is verified again when a value is served.
 */
final class RecordFormat {

    /** Body: ballot. */
    static final byte PROMISE = 1;
    /** Body: instance, ballot, value bytes (the rest of the frame). */
    static final byte ACCEPT = 2;
    /** Body: instance, ballot. */
    static final byte DECISION = 3;
    /**
     * Body: instance. Everything below it was trimmed; kept so that values left in surviving
     * segments do not come back after a restart.
     */
    static final byte FLOOR = 4;

    static final int PREFIX_BYTES = 8;
    static final int MAX_VALUE_BYTES = 64 * 1024 * 1024;
    private static final int ONE_LONG_PAYLOAD_BYTES = 1 + 8;
    private static final int TWO_LONG_PAYLOAD_BYTES = 1 + 8 + 8;
    static final int MAX_PAYLOAD_BYTES = TWO_LONG_PAYLOAD_BYTES + MAX_VALUE_BYTES;

    /** Why a frame is not a valid record. */
    enum Check {
        VALID("valid"),
        SHORT_PREFIX("fewer than 8 bytes left for the length and CRC"),
        BAD_LENGTH("length out of range"),
        SHORT_RECORD("record runs past the end of the file"),
        BAD_TYPE("unknown type or a length that does not fit the type"),
        BAD_CRC("CRC32C mismatch");

        final String description;

        Check(String description) {
            this.description = description;
        }
    }

    private RecordFormat() {
    }

    static int payloadBytes(byte type, int valueBytes) {
        return switch (type) {
            case PROMISE, FLOOR -> ONE_LONG_PAYLOAD_BYTES;
            case DECISION -> TWO_LONG_PAYLOAD_BYTES;
            case ACCEPT -> TWO_LONG_PAYLOAD_BYTES + valueBytes;
            default -> throw new AssertionError("unknown record type " + type);
        };
    }

    static int frameBytes(byte type, int valueBytes) {
        return PREFIX_BYTES + payloadBytes(type, valueBytes);
    }

    /** Writes a whole frame at the buffer's position; the caller made sure it fits. */
    static void encode(ByteBuffer buffer, byte type, long first, long second, byte[] value) {
        int start = buffer.position();
        int payloadBytes = payloadBytes(type, value == null ? 0 : value.length);
        buffer.putInt(payloadBytes).putInt(0).put(type).putLong(first);
        if (type == ACCEPT || type == DECISION) {
            buffer.putLong(second);
        }
        if (type == ACCEPT) {
            buffer.put(value);
        }
        assert buffer.position() - start == PREFIX_BYTES + payloadBytes;
        buffer.putInt(start + 4, crc(buffer, start + PREFIX_BYTES, payloadBytes));
    }

    /**
     * The prefix and fixed fields of an accept frame whose value is written separately (values
     * larger than the write buffer go straight to the file).
     */
    static ByteBuffer encodeAcceptHead(long instance, long ballot, byte[] value) {
        ByteBuffer head = ByteBuffer.allocate(PREFIX_BYTES + TWO_LONG_PAYLOAD_BYTES);
        head.putInt(payloadBytes(ACCEPT, value.length)).putInt(0).put(ACCEPT).putLong(instance).putLong(ballot);
        CRC32C crc = new CRC32C();
        crc.update(head.array(), PREFIX_BYTES, TWO_LONG_PAYLOAD_BYTES);
        crc.update(value);
        head.putInt(4, (int) crc.getValue());
        return head.flip();
    }

    /** Checks the frame starting at absolute index {@code offset}; the buffer's limit is the end of data. */
    static Check check(ByteBuffer buffer, int offset) {
        int available = buffer.limit() - offset;
        if (available < PREFIX_BYTES) {
            return Check.SHORT_PREFIX;
        }
        int payloadBytes = buffer.getInt(offset);
        if (payloadBytes < ONE_LONG_PAYLOAD_BYTES || payloadBytes > MAX_PAYLOAD_BYTES) {
            return Check.BAD_LENGTH;
        }
        if (payloadBytes > available - PREFIX_BYTES) {
            return Check.SHORT_RECORD;
        }
        if (!fitsType(buffer.get(offset + PREFIX_BYTES), payloadBytes)) {
            return Check.BAD_TYPE;
        }
        if (crc(buffer, offset + PREFIX_BYTES, payloadBytes) != buffer.getInt(offset + 4)) {
            return Check.BAD_CRC;
        }
        return Check.VALID;
    }

    /**
     * The first offset at or after {@code from} where a valid frame starts, or -1. Used to tell a
     * torn tail (garbage to the end) from damage in the middle (garbage, then valid records).
     */
    static int findValidFrame(ByteBuffer buffer, int from) {
        for (int offset = from; offset <= buffer.limit() - PREFIX_BYTES; offset++) {
            if (check(buffer, offset) == Check.VALID) {
                return offset;
            }
        }
        return -1;
    }

    /** Whether a payload length is a plausible length read from a file (before allocating for it). */
    static boolean plausiblePayloadBytes(int payloadBytes) {
        return payloadBytes >= ONE_LONG_PAYLOAD_BYTES && payloadBytes <= MAX_PAYLOAD_BYTES;
    }

    static byte type(ByteBuffer buffer, int offset) {
        return buffer.get(offset + PREFIX_BYTES);
    }

    static long first(ByteBuffer buffer, int offset) {
        return buffer.getLong(offset + PREFIX_BYTES + 1);
    }

    static long second(ByteBuffer buffer, int offset) {
        return buffer.getLong(offset + PREFIX_BYTES + 1 + 8);
    }

    static int frameBytesAt(ByteBuffer buffer, int offset) {
        return PREFIX_BYTES + buffer.getInt(offset);
    }

    static byte[] acceptValue(ByteBuffer buffer, int offset) {
        byte[] value = new byte[buffer.getInt(offset) - TWO_LONG_PAYLOAD_BYTES];
        buffer.get(offset + PREFIX_BYTES + TWO_LONG_PAYLOAD_BYTES, value);
        return value;
    }

    private static boolean fitsType(byte type, int payloadBytes) {
        return switch (type) {
            case PROMISE, FLOOR -> payloadBytes == ONE_LONG_PAYLOAD_BYTES;
            case DECISION -> payloadBytes == TWO_LONG_PAYLOAD_BYTES;
            case ACCEPT -> payloadBytes >= TWO_LONG_PAYLOAD_BYTES;
            default -> false;
        };
    }

    private static int crc(ByteBuffer buffer, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.slice(offset, length));
        return (int) crc.getValue();
    }
}
