package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog.AcceptedValue;
import io.eyrie.multicast.AcceptorLog.RecoveredState;
import io.eyrie.multicast.Ballot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SegmentedAcceptorLogTest {

    private static final long BIG_SEGMENT = 1 << 20;
    private static final long B1 = Ballot.of(1, 1);
    private static final long B2 = Ballot.of(2, 1);
    private static final long B3 = Ballot.of(3, 2);

    @TempDir
    Path tmp;

    @Test
    void aFreshLogRecoversNothing() {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp.resolve("new/ring"), BIG_SEGMENT)) {
            RecoveredState state = log.recovered();
            assertEquals(Ballot.NONE, state.promisedBallot(), "promise of a fresh log");
            assertEquals(0, state.lowestInstance(), "lowest instance of a fresh log");
            assertEquals(-1, state.highestInstance(), "highest instance of a fresh log");
            assertTrue(state.accepted().isEmpty(), "accepted values of a fresh log: " + state.accepted());
            assertEquals(0, state.tornBytesDiscarded(), "torn bytes of a fresh log");
            assertEquals(Optional.empty(), log.read(0), "read of instance 0 in a fresh log");
        }
    }

    @Test
    void votesAndDecisionsOfRecentInstancesAreAnsweredWithoutReadingTheFiles() {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            log.appendPromise(B1);
            for (long i = 0; i < 500; i++) {
                byte[] value = bytes(1000, (int) i);
                // what an acceptor does per instance: ask for the vote held, vote, decide, read the value back
                assertEquals(io.eyrie.multicast.AcceptorLog.NO_VOTE, log.acceptedBallot(i), "ballot before the vote of " + i);
                assertFalse(log.isDecided(i), "decided before the vote of " + i);
                log.appendAccept(i, B1, value);
                assertEquals(B1, log.acceptedBallot(i), "ballot after the vote of " + i);
                log.appendDecision(i, B1);
                assertTrue(log.isDecided(i), "decided after the decision of " + i);
                assertArrayEquals(value, log.read(i).orElseThrow().value(), "value of " + i);
            }
            log.sync();
            assertEquals(0, log.fileReads, "values read back from the files");
            assertEquals(0, log.unforcedBytesForTesting(), "bytes not yet fsynced after the sync");
        }
    }

    @Test
    void valuesNoLongerAmongTheRecentOnesAreReadFromTheFiles() {
        int count = 3 * SegmentedAcceptorLog.RECENT_SLOTS;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 64L << 20)) {
            log.appendPromise(B1);
            for (long i = 0; i < count; i++) {
                log.appendAccept(i, B1, bytes(100, (int) i));
            }
            log.appendAccept(5, B2, text("five again")); // a higher ballot replaces the recent value too
            for (long i = 0; i < count; i++) {
                byte[] expected = i == 5 ? text("five again") : bytes(100, (int) i);
                assertArrayEquals(expected, log.read(i).orElseThrow().value(), "value of " + i);
            }
            assertTrue(log.fileReads >= count - SegmentedAcceptorLog.RECENT_SLOTS,
                    "old values must come from the files: " + log.fileReads + " file reads for " + count + " values");
        }
    }

    @Test
    void everythingAppendedSurvivesCloseAndOpen() {
        byte[] bigValue = bytes(3 * SegmentedAcceptorLog.DEFAULT_BUFFER_BYTES / 2, 7); // bypasses the buffer
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            log.appendPromise(B1);
            log.appendAccept(0, B1, text("zero"));
            log.appendAccept(1, B1, new byte[0]);
            log.appendAccept(2, B1, bigValue);
            log.appendDecision(0, B1);
            log.appendPromise(B2);
            log.appendAccept(3, B2, text("three"));
            log.sync();
            log.appendDecision(3, B2);
        } // close syncs the last decision
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            RecoveredState state = log.recovered();
            assertEquals(B2, state.promisedBallot(), "promise");
            assertEquals(0, state.lowestInstance(), "lowest instance");
            assertEquals(3, state.highestInstance(), "highest instance");
            assertEquals(0, state.tornBytesDiscarded(), "torn bytes after a clean close");
            Map<Long, String> expected = new TreeMap<>(Map.of(
                    0L, describe(0, B1, text("zero"), true),
                    1L, describe(1, B1, new byte[0], false),
                    2L, describe(2, B1, bigValue, false),
                    3L, describe(3, B2, text("three"), true)));
            assertEquals(expected, describe(state.accepted()), "recovered accepted values");
            for (long instance = 0; instance <= 3; instance++) {
                assertEquals(expected.get(instance), describe(log.read(instance).orElseThrow()),
                        "read(" + instance + ") after reopening");
            }
        }
    }

    @Test
    void theHighestBallotAcceptWinsAndOnlyAMatchingDecisionMarksItDecided() {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            log.appendAccept(5, B2, text("b2"));
            log.appendAccept(5, B1, text("stale b1")); // lower ballot: recorded, but must not win
            log.appendDecision(6, B1);                 // nothing accepted for 6: nothing to mark
            log.appendAccept(7, B1, text("b1"));
            log.appendDecision(7, B2);                 // decided at a higher ballot than we accepted
            log.appendDecision(5, B2);
            assertLive(log, "before reopening");
        }
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            assertLive(log, "after reopening");
            assertEquals(describe(5, B2, text("b2"), true), describe(log.recovered().accepted().get(5L)),
                    "recovered instance 5");
            assertEquals(describe(7, B1, text("b1"), false), describe(log.recovered().accepted().get(7L)),
                    "recovered instance 7");
        }
    }

    private static void assertLive(SegmentedAcceptorLog log, String when) {
        assertEquals(describe(5, B2, text("b2"), true), describe(log.read(5).orElseThrow()), "instance 5 " + when);
        assertEquals(Optional.empty(), log.read(6), "instance 6 (decision only) " + when);
        assertEquals(describe(7, B1, text("b1"), false), describe(log.read(7).orElseThrow()), "instance 7 " + when);
    }

    @Test
    void truncatingTheLastRecordAtAnyByteKeepsThePrefixAndReportsTheTornBytes() throws IOException {
        Path original = tmp.resolve("original");
        long sizeBeforeLast;
        long sizeAfterLast;
        Path segment;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(original, BIG_SEGMENT)) {
            log.appendPromise(B1);
            log.appendAccept(0, B1, text("kept"));
            log.appendDecision(0, B1);
            log.sync();
            segment = log.currentSegmentForTesting();
            sizeBeforeLast = Files.size(segment);
            log.appendAccept(1, B1, text("the last record, torn at every byte"));
            log.sync();
            sizeAfterLast = Files.size(segment);
        }
        Map<Long, String> prefix = Map.of(0L, describe(0, B1, text("kept"), true));
        for (long cut = sizeBeforeLast; cut < sizeAfterLast; cut++) {
            Path copy = copyOf(original, "cut-" + cut);
            truncate(copy.resolve(segment.getFileName()), cut);
            try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(copy, BIG_SEGMENT)) {
                RecoveredState state = log.recovered();
                assertEquals(cut - sizeBeforeLast, state.tornBytesDiscarded(), "torn bytes when cut at " + cut);
                assertEquals(prefix, describe(state.accepted()), "accepted values when cut at " + cut);
                assertEquals(B1, state.promisedBallot(), "promise when cut at " + cut);
                assertEquals(sizeBeforeLast, Files.size(copy.resolve(segment.getFileName())),
                        "segment size after recovery when cut at " + cut);
                // The log goes on appending where the valid prefix ends.
                log.appendAccept(1, B2, text("rewritten"));
            }
            try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(copy, BIG_SEGMENT)) {
                assertEquals(0, log.recovered().tornBytesDiscarded(), "torn bytes on the second open, cut " + cut);
                assertEquals(describe(1, B2, text("rewritten"), false), describe(log.read(1).orElseThrow()),
                        "record appended after recovering from cut " + cut);
            }
        }
    }

    @Test
    void aFlippedByteInTheLastRecordIsATornTail() throws IOException {
        Path original = tmp.resolve("original");
        long lastOffset;
        long size;
        Path segment;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(original, BIG_SEGMENT)) {
            log.appendAccept(0, B1, text("kept"));
            log.sync();
            segment = log.currentSegmentForTesting();
            lastOffset = Files.size(segment);
            log.appendAccept(1, B1, text("damaged"));
            log.sync();
            size = Files.size(segment);
        }
        for (long at = lastOffset; at < size; at++) {
            Path copy = copyOf(original, "flip-" + at);
            flipByte(copy.resolve(segment.getFileName()), at);
            try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(copy, BIG_SEGMENT)) {
                assertEquals(size - lastOffset, log.recovered().tornBytesDiscarded(),
                        "torn bytes with byte " + at + " flipped");
                assertEquals(Map.of(0L, describe(0, B1, text("kept"), false)), describe(log.recovered().accepted()),
                        "accepted values with byte " + at + " flipped");
            }
        }
    }

    @Test
    void aFlippedByteInARecordFollowedByValidRecordsIsCorruption() throws IOException {
        Path segment;
        long damagedOffset;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            log.appendAccept(0, B1, text("first"));
            log.sync();
            segment = log.currentSegmentForTesting();
            damagedOffset = Files.size(segment);
            log.appendAccept(1, B1, text("second, to be damaged"));
            log.appendAccept(2, B1, text("third, valid"));
        }
        flipByte(segment, damagedOffset + 12); // inside the body: length intact, CRC wrong
        CorruptLogException e = assertThrows(CorruptLogException.class, () -> SegmentedAcceptorLog.open(tmp, BIG_SEGMENT),
                "a bad record followed by a valid one must not be taken for a torn tail");
        assertEquals(segment, e.file(), "file named by the exception");
        assertEquals(damagedOffset, e.offset(), "offset named by the exception");
        assertTrue(e.getMessage().contains(segment.toString()) && e.getMessage().contains("offset " + damagedOffset),
                "message names file and offset: " + e.getMessage());
    }

    @Test
    void aDamagedLengthFollowedByValidRecordsIsCorruption() throws IOException {
        Path segment;
        long damagedOffset;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            log.appendAccept(0, B1, text("first"));
            log.sync();
            segment = log.currentSegmentForTesting();
            damagedOffset = Files.size(segment);
            log.appendAccept(1, B1, text("second, length to be damaged"));
            log.appendAccept(2, B1, text("third, valid"));
        }
        flipByte(segment, damagedOffset + 1); // the length now points far past the end: looks short
        CorruptLogException e = assertThrows(CorruptLogException.class, () -> SegmentedAcceptorLog.open(tmp, BIG_SEGMENT),
                "a record whose length was damaged, followed by valid ones, must not be taken for a torn tail");
        assertEquals(damagedOffset, e.offset(), "offset named by the exception");
    }

    @Test
    void damageInASegmentOtherThanTheLastIsCorruptionEvenAtItsEnd() throws IOException {
        List<Path> files;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 100)) {
            for (int i = 0; i < 10; i++) {
                log.appendAccept(i, B1, bytes(60, i));
            }
            files = log.segmentFilesForTesting();
        }
        assertTrue(files.size() >= 3, "expected several segments, got " + files);
        Path first = files.get(0);
        long lastByte = Files.size(first) - 1;
        flipByte(first, lastByte);
        CorruptLogException e = assertThrows(CorruptLogException.class, () -> SegmentedAcceptorLog.open(tmp, 100),
                "the tail of a segment that is not the last was fsynced before the roll: damage there is corruption");
        assertEquals(first, e.file(), "file named by the exception");
    }

    @Test
    void aMissingSegmentInTheMiddleIsCorruption() throws IOException {
        List<Path> files;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 100)) {
            for (int i = 0; i < 10; i++) {
                log.appendAccept(i, B1, bytes(60, i));
            }
            files = log.segmentFilesForTesting();
        }
        Files.delete(files.get(1));
        CorruptLogException e = assertThrows(CorruptLogException.class, () -> SegmentedAcceptorLog.open(tmp, 100));
        assertEquals(files.get(2), e.file(), "the segment after the gap is named");
    }

    @Test
    void aSegmentTornWhileBeingCreatedIsDiscarded() throws IOException {
        List<Path> files;
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 100)) {
            log.appendPromise(B3);
            for (int i = 0; i < 4; i++) {
                log.appendAccept(i, B1, bytes(60, i));
            }
            files = log.segmentFilesForTesting();
        }
        Path last = files.get(files.size() - 1);
        long lastSequence = Long.parseLong(last.getFileName().toString().substring(0, 20));
        // A crash during the next roll: the new file exists but holds only part of its header.
        Path torn = tmp.resolve(Segment.fileName(lastSequence + 1000));
        Files.write(torn, Arrays.copyOf(SegmentHeader.encode(lastSequence + 1000).array(), 7));
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 100)) {
            assertEquals(7, log.recovered().tornBytesDiscarded(), "torn bytes of a half-written header");
            assertFalse(Files.exists(torn), "the torn segment is deleted");
            assertEquals(B3, log.recovered().promisedBallot(), "promise");
            assertEquals(4, log.recovered().accepted().size(), "accepted values kept");
        }
    }

    @Test
    void aRecordDamagedOnDiskAfterOpeningIsRejectedOnRead() throws IOException {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            log.appendAccept(0, B1, text("value"));
            log.sync();
            Path segment = log.currentSegmentForTesting();
            long offset = Files.size(segment) - 2; // inside the value
            flipByte(segment, offset);
            // Recent values are served from memory (the bytes that were written); instance 1024
            // takes instance 0's place among them, so 0 is read from the damaged file.
            log.appendAccept(SegmentedAcceptorLog.RECENT_SLOTS, B1, text("evicts zero"));
            CorruptLogException e = assertThrows(CorruptLogException.class, () -> log.read(0),
                    "read must verify the CRC again instead of serving damaged bytes");
            assertEquals(segment, e.file(), "file named by the exception");
        }
    }

    @Test
    void theRecoveredMapReadsValuesLazilyAndNavigatesLikeATreeMap() throws IOException {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            for (long i = 10; i < 20; i += 2) {
                log.appendAccept(i, B1, text("v" + i));
            }
        }
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            var accepted = log.recovered().accepted();
            assertEquals(List.of(10L, 12L, 14L, 16L, 18L), new ArrayList<>(accepted.keySet()), "keys");
            assertEquals(12L, accepted.ceilingKey(11L), "ceilingKey(11)");
            assertEquals(10L, accepted.lowerKey(12L), "lowerKey(12)");
            assertEquals(List.of(16L, 14L), new ArrayList<>(accepted.descendingMap().subMap(17L, 13L).keySet()),
                    "descending subMap(17, 13)");
            assertEquals(List.of(14L, 16L), new ArrayList<>(accepted.subMap(13L, true, 16L, true).keySet()),
                    "subMap[13, 16]");
            assertEquals("v18", new String(accepted.lastEntry().getValue().value(), StandardCharsets.UTF_8),
                    "value of the last entry");
            assertEquals(describe(14, B1, text("v14"), false), describe(accepted.get(14L)), "get(14)");
            assertEquals(null, accepted.get(13L), "get(13)");
            // Values are not held in the heap: damage on disk after opening shows on the next get.
            Path segment = log.currentSegmentForTesting();
            flipByte(segment, Files.size(segment) - 1);
            assertThrows(CorruptLogException.class, () -> accepted.get(18L),
                    "get(18) after damaging its record on disk must read and check it again");
        }
    }

    @Test
    void thePromiseSurvivesRollingAndTrimming() throws IOException {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 200)) {
            log.appendPromise(B3);
            for (int i = 0; i < 40; i++) {
                log.appendAccept(i, B1, bytes(50, i));
            }
            List<Path> before = log.segmentFilesForTesting();
            assertTrue(before.size() > 5, "expected many segments, got " + before.size());
            log.trimBelow(40);
            List<Path> after = log.segmentFilesForTesting();
            assertEquals(List.of(before.get(before.size() - 1)), after, "only the current segment is left");
            assertFalse(Files.exists(before.get(0)), "the first segment, the only one with the promise record, is deleted");
        }
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 200)) {
            assertEquals(B3, log.recovered().promisedBallot(), "promise after rolling and trimming");
            assertEquals(40, log.recovered().lowestInstance(), "lowest instance after trimming");
            assertEquals(39, log.recovered().highestInstance(), "highest instance when all were trimmed");
            assertTrue(log.recovered().accepted().isEmpty(), "no accepted values below the trim point");
        }
    }

    @Test
    void trimBelowDeletesWholeSegmentsBelowItAndReadsBelowItAreEmpty() throws IOException {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 300)) {
            for (int i = 0; i < 100; i++) {
                log.appendAccept(i, B1, bytes(40, i));
                log.appendDecision(i, B1);
            }
            log.sync();
            int segmentsBefore = log.segmentFilesForTesting().size();
            log.trimBelow(50);
            assertEquals(50, log.lowestInstance(), "lowestInstance after trimBelow(50)");
            assertTrue(log.segmentFilesForTesting().size() < segmentsBefore,
                    "segments before " + segmentsBefore + ", after " + log.segmentFilesForTesting().size());
            for (int i = 0; i < 100; i++) {
                assertEquals(i >= 50, log.read(i).isPresent(), "read(" + i + ") present after trimBelow(50)");
            }
            assertEquals(describe(50, B1, bytes(40, 50), true), describe(log.read(50).orElseThrow()), "read(50)");
            log.trimBelow(10); // moving the floor down is a no-op
            assertEquals(50, log.lowestInstance(), "lowestInstance after trimBelow(10)");
        }
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 300)) {
            RecoveredState state = log.recovered();
            assertEquals(50, state.lowestInstance(), "recovered lowest instance");
            assertEquals(50L, state.accepted().firstKey(), "first recovered instance");
            assertEquals(50, state.accepted().size(), "number of recovered instances");
            assertEquals(Optional.empty(), log.read(49), "read(49) after reopening");
        }
    }

    @Test
    void thousandsOfInstancesOutOfOrderAreIndexedAndTrimmedExactly() {
        int count = 5000;
        TreeMap<Long, String> expected = new TreeMap<>();
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 64 * 1024)) {
            for (int i = 0; i < count; i++) {
                long instance = (i * 7919L) % count; // every instance once, scattered
                log.appendAccept(instance, B1, bytes(i % 50, i));
                expected.put(instance, describe(instance, B1, bytes(i % 50, i), false));
            }
            log.sync();
            log.trimBelow(count / 2);
            expected.headMap((long) count / 2).clear();
            for (long instance = 0; instance < count; instance++) {
                assertEquals(expected.getOrDefault(instance, "absent"),
                        log.read(instance).map(SegmentedAcceptorLogTest::describe).orElse("absent"),
                        "read(" + instance + ")");
            }
        }
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, 64 * 1024)) {
            assertEquals(expected, describe(log.recovered().accepted()), "recovered values after trimming half");
            assertEquals(count - 1, log.recovered().highestInstance(), "highest instance");
        }
    }

    @Test
    void syncWithNothingAppendedDoesNotFsyncAndABatchCostsOneFsync() {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            long start = log.fsyncCount;
            log.sync();
            assertEquals(start, log.fsyncCount, "fsyncs for a sync with nothing appended");
            for (int i = 0; i < 100; i++) {
                log.appendAccept(i, B1, bytes(100, i));
                log.appendDecision(i, B1);
            }
            assertEquals(start, log.fsyncCount, "fsyncs before sync (appends must not fsync)");
            log.sync();
            assertEquals(start + 1, log.fsyncCount, "fsyncs for one sync of 200 appends");
            log.sync();
            assertEquals(start + 1, log.fsyncCount, "fsyncs for a second sync with nothing new");
        }
    }

    @Test
    void aClosedLogRefusesUse() {
        SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT);
        log.close();
        log.close(); // closing twice is harmless
        List<Runnable> uses = List.of(log::recovered, () -> log.appendPromise(B1), () -> log.appendAccept(0, B1, new byte[1]),
                () -> log.appendDecision(0, B1), log::sync, () -> log.read(0), () -> log.trimBelow(1), log::lowestInstance);
        for (Runnable use : uses) {
            assertThrows(IllegalStateException.class, use::run, "a closed log must refuse every call");
        }
    }

    @Test
    void valuesUpTo64MiBAreAcceptedAndLargerOnesRejected() {
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> log.appendAccept(0, B1, new byte[SegmentedAcceptorLog.MAX_VALUE_BYTES + 1]));
            assertTrue(e.getMessage().contains("64 MiB"), "message names the limit: " + e.getMessage());
            byte[] largest = bytes(SegmentedAcceptorLog.MAX_VALUE_BYTES, 3);
            log.appendAccept(1, B1, largest);
            log.sync();
            assertArrayEquals(largest, log.read(1).orElseThrow().value(), "the largest allowed value reads back");
        }
    }

    @Test
    void badArgumentsAreRejectedWithClearMessages() {
        assertThrows(IllegalArgumentException.class, () -> SegmentedAcceptorLog.open(tmp, 0), "segmentBytes 0");
        try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(tmp, BIG_SEGMENT)) {
            assertThrows(IllegalArgumentException.class, () -> log.appendAccept(-1, B1, new byte[1]), "negative instance");
            assertThrows(IllegalArgumentException.class, () -> log.appendAccept(0, B1, null), "null value");
            assertThrows(IllegalArgumentException.class, () -> log.appendPromise(-5), "negative ballot");
        }
    }

    // ---- helpers -----------------------------------------------------------------------------

    static String describe(long instance, long ballot, byte[] value, boolean decided) {
        return "instance " + instance + " ballot " + Ballot.toString(ballot) + " decided " + decided
                + " value " + Arrays.hashCode(value) + "/" + value.length + "B";
    }

    static String describe(AcceptedValue value) {
        return value == null ? "absent" : describe(value.instance(), value.ballot(), value.value(), value.decided());
    }

    static Map<Long, String> describe(Map<Long, AcceptedValue> accepted) {
        Map<Long, String> described = new TreeMap<>();
        accepted.forEach((instance, value) -> described.put(instance, describe(value)));
        return described;
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(int length, int seed) {
        byte[] value = new byte[length];
        for (int i = 0; i < length; i++) {
            value[i] = (byte) (seed * 31 + i);
        }
        return value;
    }

    private Path copyOf(Path dir, String name) throws IOException {
        Path copy = tmp.resolve(name);
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        return copy;
    }

    static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    static void flipByte(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, offset);
        }
    }
}
