package io.eyrie.core.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * Checkpoint files of one replica in a directory: {@code checkpoint-<position>.kryo}, written to a
 * temporary file, forced to disk and renamed, so a crash leaves either the old or the new one. The
 * newest is kept along with one predecessor, so that a damaged newest file still leaves one to
 * recover from.
 *
 * <p>File format (big-endian): {@code magic "EYCP":int, version:int, position:long, length:int,
 * crc32c:int} then {@code length} bytes of image; the CRC32C covers position, length and image. A
 * file that fails a check is never restored from: it is renamed to {@code *.corrupt} (kept for the
 * operator, out of the way of later recoveries), logged and counted.
 */
public final class SnapshotStore {

    private static final Logger log = LoggerFactory.getLogger(SnapshotStore.class);
    private static final String PREFIX = "checkpoint-";
    private static final String SUFFIX = ".kryo";
    private static final int MAGIC = 0x45594350; // "EYCP"
    private static final int VERSION = 1;
    static final int HEADER_BYTES = 24;
    private static final int KEEP = 2;

    /** A checkpoint that passed its checks. */
    public record Verified(long position, byte[] image) {
    }

    private final Path dir;
    private final AtomicLong corruptFound = new AtomicLong();

    public SnapshotStore(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create checkpoint directory " + dir, e);
        }
    }

    public Path directory() {
        return dir;
    }

    /** Checkpoint files found damaged (and set aside) since this store was opened. */
    public long corruptFound() {
        return corruptFound.get();
    }

    /** The file bytes (header included) a checkpoint of {@code image} at {@code position} is stored as. */
    public static byte[] frame(long position, byte[] image) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + image.length);
        b.putInt(MAGIC).putInt(VERSION).putLong(position).putInt(image.length).putInt(0).put(image);
        b.putInt(20, crc(b.array(), image.length));
        return b.array();
    }

    /**
     * Checks a framed checkpoint (from a file or a peer) and returns its contents.
     *
     * @throws IllegalArgumentException saying what is wrong, if the bytes fail a check
     */
    public static Verified unframe(byte[] file) {
        if (file.length < HEADER_BYTES) {
            throw new IllegalArgumentException("shorter (" + file.length + " bytes) than a checkpoint header");
        }
        ByteBuffer b = ByteBuffer.wrap(file);
        int magic = b.getInt();
        int version = b.getInt();
        long position = b.getLong();
        int length = b.getInt();
        int stored = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("bad magic 0x" + Integer.toHexString(magic));
        }
        if (version != VERSION) {
            throw new IllegalArgumentException("unknown format version " + version);
        }
        if (length != file.length - HEADER_BYTES) {
            throw new IllegalArgumentException("header says " + length + " image bytes, file holds "
                    + (file.length - HEADER_BYTES));
        }
        int actual = crc(file, length);
        if (actual != stored) {
            throw new IllegalArgumentException("checksum mismatch (stored " + Integer.toHexString(stored)
                    + ", computed " + Integer.toHexString(actual) + ")");
        }
        byte[] image = new byte[length];
        System.arraycopy(file, HEADER_BYTES, image, 0, length);
        return new Verified(position, image);
    }

    private static int crc(byte[] file, int imageLength) {
        CRC32C c = new CRC32C();
        c.update(file, 8, 12); // position and length
        c.update(file, HEADER_BYTES, imageLength);
        return (int) c.getValue();
    }

    /** Writes and forces a checkpoint, then deletes all but the newest {@value #KEEP}. */
    public void write(long position, byte[] image) {
        writeFramed(position, frame(position, image));
    }

    /** Stores a checkpoint already framed (checked by the caller, e.g. one fetched from a peer). */
    public synchronized void writeFramed(long position, byte[] file) {
        Path target = dir.resolve(String.format("%s%019d%s", PREFIX, position, SUFFIX));
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(file);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            } catch (IOException ignored) {
                // some file systems cannot sync a directory; the rename is then as durable as they allow
            }
            List<Path> all = list();
            for (int i = 0; i < all.size() - KEEP; i++) {
                Files.deleteIfExists(all.get(i));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write checkpoint " + target, e);
        }
    }

    /**
     * The newest checkpoint that passes its checks, or null if there is none. Damaged files met on
     * the way are set aside (renamed {@code *.corrupt}), logged and counted: recovery then falls
     * back to the one before.
     */
    public Verified readNewestValid() {
        List<Path> all = list();
        for (int i = all.size() - 1; i >= 0; i--) {
            Path p = all.get(i);
            try {
                Verified v = unframe(Files.readAllBytes(p));
                if (i < all.size() - 1) {
                    log.warn("recovering from the older checkpoint {} (position {}) because newer ones were damaged",
                            p, v.position());
                }
                return v;
            } catch (IOException | IllegalArgumentException e) {
                setAside(p, e.getMessage());
            }
        }
        return null;
    }

    /** The newest valid checkpoint's file bytes, framed as on disk (to ship to a peer), or null. */
    public byte[] newestValidFramed() {
        List<Path> all = list();
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                byte[] file = Files.readAllBytes(all.get(i));
                unframe(file);
                return file;
            } catch (IOException | IllegalArgumentException e) {
                // a concurrent prune deleted it, or it is damaged: the next recovery sets it aside
            }
        }
        return null;
    }

    private void setAside(Path p, String why) {
        corruptFound.incrementAndGet();
        Path aside = p.resolveSibling(p.getFileName() + ".corrupt");
        log.error("checkpoint {} is damaged and will not be used: {}; moved to {}", p, why, aside.getFileName());
        try {
            Files.move(p, aside, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set damaged checkpoint " + p + " aside", e);
        }
    }

    private List<Path> list() {
        List<Path> all = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
            s.forEach(all::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list checkpoint directory " + dir, e);
        }
        Collections.sort(all);
        return all;
    }
}
