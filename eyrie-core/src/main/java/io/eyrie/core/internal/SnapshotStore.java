package io.eyrie.core.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Checkpoint files of one replica in a directory: {@code checkpoint-<position>.kryo}, written to a
 * temporary file, forced to disk and renamed, so a crash leaves either the old or the new one. The
 * newest is kept along with one predecessor.
 */
final class SnapshotStore {

    private static final String PREFIX = "checkpoint-";
    private static final String SUFFIX = ".kryo";
    private static final int KEEP = 2;

    private final Path dir;

    SnapshotStore(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create checkpoint directory " + dir, e);
        }
    }

    void write(long position, byte[] image) {
        Path target = dir.resolve(String.format("%s%019d%s", PREFIX, position, SUFFIX));
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(java.nio.ByteBuffer.wrap(image));
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

    /** The newest checkpoint's bytes, or null. */
    byte[] readNewest() {
        List<Path> all = list();
        if (all.isEmpty()) {
            return null;
        }
        try {
            return Files.readAllBytes(all.get(all.size() - 1));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read checkpoint " + all.get(all.size() - 1), e);
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
