package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnapshotStoreTest {

    private static byte[] image(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static void flipByte(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ 0x5a);
        }
    }

    @Test
    void theNewestIntactCheckpointIsRestoredAndOnlyTwoAreKept(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(10, image("ten"));
        store.write(20, image("twenty"));
        store.write(30, image("thirty"));
        assertEquals(List.of("checkpoint-0000000000000000020.kryo", "checkpoint-0000000000000000030.kryo"), names(dir),
                "the newest checkpoint and one predecessor are kept");
        SnapshotStore.Verified v = store.readNewestValid();
        assertEquals(30, v.position());
        assertArrayEquals(image("thirty"), v.image());
        assertEquals(0, store.corruptFound());
    }

    @Test
    void aFlippedByteInTheNewestIsDetectedSetAsideAndThePreviousUsed(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(20, image("twenty"));
        store.write(30, image("thirty"));
        flipByte(dir.resolve("checkpoint-0000000000000000030.kryo"), SnapshotStore.HEADER_BYTES + 2);
        SnapshotStore.Verified v = store.readNewestValid();
        assertEquals(20, v.position(), "recovery should fall back to the checkpoint before the damaged one");
        assertArrayEquals(image("twenty"), v.image());
        assertEquals(1, store.corruptFound(), "the damaged checkpoint should be counted");
        assertTrue(names(dir).contains("checkpoint-0000000000000000030.kryo.corrupt"),
                "the damaged checkpoint should be set aside, found " + names(dir));
        assertEquals(20, store.readNewestValid().position(), "a set-aside file is not looked at again");
        assertEquals(1, store.corruptFound());
    }

    @Test
    void aTruncatedOrHeaderDamagedFileIsNeverUsed(@TempDir Path dir) throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(20, image("twenty"));
        store.write(30, image("thirty"));
        flipByte(dir.resolve("checkpoint-0000000000000000020.kryo"), 9); // the position in the header
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("checkpoint-0000000000000000030.kryo").toFile(), "rw")) {
            f.setLength(f.length() - 1);
        }
        assertNull(store.readNewestValid(), "no checkpoint is intact, so none may be restored");
        assertEquals(2, store.corruptFound());
    }

    @Test
    void unframeNamesWhatIsWrong() {
        byte[] framed = SnapshotStore.frame(7, image("seven"));
        assertEquals(7, SnapshotStore.unframe(framed).position());
        framed[framed.length - 1] ^= 1;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SnapshotStore.unframe(framed));
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
    }
}
