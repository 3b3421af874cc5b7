package io.eyrie.multicast.internal.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The first bytes of every segment file: {@code magic:int, version:int, firstSequence:long,
 * crc:int} (CRC32C over the 16 bytes before it). The first sequence repeats the file name so that a
 * renamed or misplaced file is caught.
 */
final class SegmentHeader {

    static final int MAGIC = 0x45594C47; // "EYLG"
    static final int VERSION = 1;
    static final int BYTES = 20;

    private SegmentHeader() {
    }

    static ByteBuffer encode(long firstSequence) {
        ByteBuffer header = ByteBuffer.allocate(BYTES);
        header.putInt(MAGIC).putInt(VERSION).putLong(firstSequence);
        header.putInt(crc(header));
        return header.flip();
    }

    /** Why the header is unusable, or null if it is a valid header for {@code expectedSequence}. */
    static String problem(ByteBuffer file, long expectedSequence) {
        if (file.limit() < BYTES) {
            return "segment header cut short: " + file.limit() + " of " + BYTES + " bytes";
        }
        if (file.getInt(0) != MAGIC) {
            return String.format("bad magic 0x%08x, expected 0x%08x", file.getInt(0), MAGIC);
        }
        if (file.getInt(BYTES - 4) != crc(file)) {
            return "segment header CRC32C mismatch";
        }
        if (file.getInt(4) != VERSION) {
            return "unsupported format version " + file.getInt(4) + " (this build reads version " + VERSION + ")";
        }
        if (file.getLong(8) != expectedSequence) {
            return "header says the segment starts at record " + file.getLong(8) + " but its name says "
                    + expectedSequence;
        }
        return null;
    }

    /** A header whose own CRC holds but whose version this build cannot read: never a torn write. */
    static boolean isIntactButUnsupported(ByteBuffer file) {
        return file.limit() >= BYTES && file.getInt(0) == MAGIC && file.getInt(BYTES - 4) == crc(file)
                && file.getInt(4) != VERSION;
    }

    private static int crc(ByteBuffer header) {
        CRC32C crc = new CRC32C();
        crc.update(header.slice(0, BYTES - 4));
        return (int) crc.getValue();
    }
}
