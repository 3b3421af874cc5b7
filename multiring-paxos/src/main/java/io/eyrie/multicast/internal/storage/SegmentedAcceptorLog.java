package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.Ballot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The durable {@link AcceptorLog}: append-only segment files of CRC32C-framed records, group
 * commit, and recovery that cuts a torn tail off the last segment but refuses any other damage.
 *
 * <p>Appends are encoded into one write buffer; {@link #sync()} writes it and calls fsync once.
 * Segments are named by the sequence number of their first record, so their order is their name
 * order. A segment is rolled before the append that finds it at or past {@code segmentBytes}; the
 * roll fsyncs the old segment, and writes the current promise and trim floor at the head of the new
 * one and fsyncs it, so that deleting old segments never loses either and only the last segment can
 * ever hold unsynced bytes (which is what makes "torn tail of the last segment" the only benign
 * damage).
 *
 * <p>Meant to be owned by one thread (the acceptor's event loop); its methods are synchronized
 * anyway, which costs nothing uncontended, so that a stray reader (catch-up, metrics) is safe.
 * An I/O error fails the log for good (later calls throw {@link IllegalStateException}): after a
 * failed write or fsync the kernel may have dropped the dirty pages, so retrying could report
 * durable what is not.
 */
public final class SegmentedAcceptorLog implements AcceptorLog {

    private static final Logger LOG = LoggerFactory.getLogger(SegmentedAcceptorLog.class);

    /** Segments are memory-mapped when scanned, which caps a file (segment plus one value) at 2 GiB. */
    public static final long MAX_SEGMENT_BYTES = 1L << 30;
    public static final int MAX_VALUE_BYTES = RecordFormat.MAX_VALUE_BYTES;
    static final int DEFAULT_BUFFER_BYTES = 1 << 20;
    static final int RECENT_SLOTS = 1024;
    static final long RECENT_MAX_BYTES = 32L << 20;
    private static final Pattern SEGMENT_NAME = Pattern.compile("(\\d{20})\\" + Segment.SUFFIX);

    private final Path dir;
    private final long segmentBytes;
    private final ByteBuffer buffer;
    /** By first sequence; the last entry is the one appended to. */
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private final InstanceIndex index = new InstanceIndex();
    /** Recently accepted values, so that reading them back right after the vote does not touch the file. */
    private final RecentValues recent = new RecentValues(RECENT_SLOTS, RECENT_MAX_BYTES);

    private Segment current;
    /** Size of the current segment counting buffered bytes. */
    private long currentBytes;
    /** Bytes of the current segment handed to the file (the buffer holds the rest). */
    private long writtenBytes;
    /** Bytes of the current segment known durable. */
    private long forcedBytes;
    private long promisedBallot = Ballot.NONE;
    private long floorInstance;
    private boolean dirty;
    private boolean closed;
    private Throwable failure;
    private RecoveredState recovered;

    /** Number of fsyncs issued (files and directory), for tests of group commit. */
    long fsyncCount;
    /** Values read back from the files (not found among the recent ones), for tests. */
    long fileReads;

    private SegmentedAcceptorLog(Path dir, long segmentBytes, int bufferBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.buffer = ByteBuffer.allocateDirect(bufferBytes);
    }

    /**
     * Opens (creating if needed) the log in {@code dir} and recovers it.
     *
     * @param segmentBytes roll to a new segment once the current one reaches this size, in [1, 1 GiB]
     * @throws CorruptLogException if the directory holds damage other than a torn tail
     * @throws UncheckedIOException if the directory or its files cannot be read or written
     */
    public static SegmentedAcceptorLog open(Path dir, long segmentBytes) {
        return open(dir, segmentBytes, DEFAULT_BUFFER_BYTES);
    }

    static SegmentedAcceptorLog open(Path dir, long segmentBytes, int bufferBytes) {
        if (segmentBytes < 1 || segmentBytes > MAX_SEGMENT_BYTES) {
            throw new IllegalArgumentException("segmentBytes must be in [1, " + MAX_SEGMENT_BYTES + "], got "
                    + segmentBytes);
        }
        if (bufferBytes < 64) {
            throw new IllegalArgumentException("bufferBytes must be at least 64, got " + bufferBytes);
        }
        SegmentedAcceptorLog log = new SegmentedAcceptorLog(dir, segmentBytes, bufferBytes);
        try {
            Files.createDirectories(dir);
            log.recover();
        } catch (IOException e) {
            log.closeChannels();
            throw new UncheckedIOException("cannot open acceptor log in " + dir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            log.closeChannels();
            throw e;
        }
        return log;
    }

    @Override
    public synchronized RecoveredState recovered() {
        ensureUsable();
        return recovered;
    }

    @Override
    public synchronized void appendPromise(long ballot) {
        if (ballot < 0) {
            throw new IllegalArgumentException("ballot must not be negative: " + ballot);
        }
        append(RecordFormat.PROMISE, ballot, 0, null);
    }

    @Override
    public synchronized void appendAccept(long instance, long ballot, byte[] value) {
        requireInstance(instance);
        if (ballot < 0) {
            throw new IllegalArgumentException("ballot must not be negative: " + ballot);
        }
        if (value == null) {
            throw new IllegalArgumentException("value must not be null (instance " + instance + ")");
        }
        if (value.length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value of instance " + instance + " is " + value.length
                    + " bytes, over the limit of " + MAX_VALUE_BYTES + " bytes (64 MiB)");
        }
        append(RecordFormat.ACCEPT, instance, ballot, value);
        if (instance >= floorInstance) {
            recent.put(instance, ballot, value);
        }
    }

    @Override
    public synchronized void appendDecision(long instance, long ballot) {
        requireInstance(instance);
        append(RecordFormat.DECISION, instance, ballot, null);
    }

    @Override
    public synchronized void sync() {
        ensureUsable();
        if (!dirty) {
            return;
        }
        try {
            flushBuffer();
            forceCurrent();
        } catch (IOException e) {
            throw fail("sync", e);
        }
        dirty = false;
    }

    @Override
    public synchronized Optional<AcceptedValue> read(long instance) {
        ensureUsable();
        if (instance < floorInstance) {
            return Optional.empty();
        }
        int slot = index.find(instance);
        if (slot < 0) {
            return Optional.empty();
        }
        long ballot = index.ballot(slot);
        byte[] value = recent.get(instance, ballot);
        if (value == null) {
            fileReads++;
            value = readValue(index.segment(slot), index.offset(slot), instance, ballot);
        }
        return Optional.of(new AcceptedValue(instance, ballot, value, index.decided(slot)));
    }

    @Override
    public synchronized long acceptedBallot(long instance) {
        ensureUsable();
        if (instance < floorInstance) {
            return NO_VOTE;
        }
        int slot = index.find(instance);
        return slot < 0 ? NO_VOTE : index.ballot(slot);
    }

    @Override
    public synchronized boolean isDecided(long instance) {
        ensureUsable();
        if (instance < floorInstance) {
            return false;
        }
        int slot = index.find(instance);
        return slot >= 0 && index.decided(slot);
    }

    /**
     * Forgets instances below {@code instance}: records the new floor durably (so that values left
     * in surviving segments stay forgotten after a restart), then deletes the oldest segments whose
     * accepts and decisions all name instances below it. Costs an fsync when the floor moves.
     */
    @Override
    public synchronized void trimBelow(long instance) {
        ensureUsable();
        if (instance <= floorInstance) {
            return;
        }
        append(RecordFormat.FLOOR, instance, 0, null);
        index.removeBelow(floorInstance);
        sync();
        while (segments.size() > 1) {
            Segment oldest = segments.firstEntry().getValue();
            if (oldest == current || oldest.maxInstance >= instance) {
                break;
            }
            segments.pollFirstEntry();
            try {
                oldest.channel.close();
                Files.delete(oldest.path);
            } catch (IOException e) {
                throw fail("delete " + oldest.path, e);
            }
            LOG.debug("trimmed segment {} (instances below {})", oldest.path, instance);
        }
    }

    @Override
    public synchronized long lowestInstance() {
        ensureUsable();
        return floorInstance;
    }

    /** Syncs and closes; closing twice is harmless. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            if (failure == null) {
                sync();
            }
        } finally {
            closed = true;
            closeChannels();
        }
    }

    /** Closes the files without writing the buffer: what a crash leaves behind. */
    synchronized void crashForTesting() {
        closed = true;
        closeChannels();
    }

    /** Bytes of the current segment written to the file but not yet fsynced (a crash may keep any prefix). */
    synchronized long unforcedBytesForTesting() {
        return writtenBytes - forcedBytes;
    }

    /** The current segment's file. */
    synchronized Path currentSegmentForTesting() {
        return current.path;
    }

    synchronized List<Path> segmentFilesForTesting() {
        List<Path> paths = new ArrayList<>();
        for (Segment segment : segments.values()) {
            paths.add(segment.path);
        }
        return paths;
    }

    // ---- appending -------------------------------------------------------------------------

    private void append(byte type, long first, long second, byte[] value) {
        ensureUsable();
        try {
            // A segment holds at least one record, so that its successor gets a different name.
            if (currentBytes >= segmentBytes && current.recordCount > 0) {
                roll();
            }
            write(type, first, second, value);
        } catch (IOException e) {
            throw fail("append", e);
        }
        dirty = true;
    }

    private void write(byte type, long first, long second, byte[] value) throws IOException {
        int frameBytes = RecordFormat.frameBytes(type, value == null ? 0 : value.length);
        long offset = currentBytes;
        if (frameBytes > buffer.remaining()) {
            flushBuffer();
        }
        if (frameBytes > buffer.capacity()) {
            // Too big to buffer: write it through rather than grow the buffer without bound.
            writeFully(RecordFormat.encodeAcceptHead(first, second, value));
            writeFully(ByteBuffer.wrap(value));
        } else {
            RecordFormat.encode(buffer, type, first, second, value);
        }
        currentBytes += frameBytes;
        current.recordCount++;
        apply(type, first, second, current, offset);
    }

    /** The one place where a record changes the in-memory state, for appends and recovery alike. */
    private void apply(byte type, long first, long second, Segment segment, long offset) {
        switch (type) {
            case RecordFormat.PROMISE -> promisedBallot = Math.max(promisedBallot, first);
            case RecordFormat.FLOOR -> floorInstance = Math.max(floorInstance, first);
            case RecordFormat.ACCEPT -> {
                segment.noteInstance(first);
                if (first >= floorInstance) {
                    index.accept(first, second, segment.firstSequence, offset);
                }
            }
            case RecordFormat.DECISION -> {
                segment.noteInstance(first);
                if (first >= floorInstance) {
                    index.decide(first, second);
                }
            }
            default -> throw new AssertionError("unknown record type " + type);
        }
    }

    private void roll() throws IOException {
        flushBuffer();
        forceCurrent();
        startSegment(current.nextSequence());
    }

    /** Creates a segment, carries the promise and floor into it and makes it durable. */
    private void startSegment(long firstSequence) throws IOException {
        Path path = dir.resolve(Segment.fileName(firstSequence));
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        Segment segment = new Segment(path, firstSequence, channel);
        segments.put(firstSequence, segment);
        current = segment;
        currentBytes = 0;
        writtenBytes = 0;
        forcedBytes = 0;
        assert buffer.position() == 0 : "buffer must be flushed before a new segment starts";
        buffer.put(SegmentHeader.encode(firstSequence));
        currentBytes = SegmentHeader.BYTES;
        if (promisedBallot != Ballot.NONE) {
            write(RecordFormat.PROMISE, promisedBallot, 0, null);
        }
        if (floorInstance > 0) {
            write(RecordFormat.FLOOR, floorInstance, 0, null);
        }
        flushBuffer();
        forceCurrent();
        forceDirectory();
        LOG.debug("started segment {}", path);
    }

    private void flushBuffer() throws IOException {
        buffer.flip();
        writeFully(buffer);
        buffer.clear();
    }

    private void writeFully(ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            writtenBytes += current.channel.write(bytes, writtenBytes);
        }
    }

    private void forceCurrent() throws IOException {
        current.channel.force(false);
        fsyncCount++;
        forcedBytes = writtenBytes;
    }

    private void forceDirectory() {
        // Makes a new file's name durable; some platforms cannot open a directory, and then the
        // file system is trusted to order it.
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
            directory.force(true);
            fsyncCount++;
        } catch (IOException e) {
            LOG.debug("cannot fsync directory {}: {}", dir, e.toString());
        }
    }

    // ---- reading ---------------------------------------------------------------------------

    private synchronized byte[] readValue(long segmentSequence, long offset, long instance, long ballot) {
        ensureUsable();
        Segment segment = segments.get(segmentSequence);
        if (segment == null) {
            throw new IllegalStateException("instance " + instance + " was trimmed (below " + floorInstance
                    + ") after the log was opened; it can no longer be read");
        }
        try {
            if (segment == current && offset >= writtenBytes) {
                flushBuffer(); // the record is still in the buffer; a write (no fsync) puts it in the file
            }
            ByteBuffer prefix = ByteBuffer.allocate(RecordFormat.PREFIX_BYTES);
            readFully(segment, prefix, offset);
            int payloadBytes = prefix.getInt(0);
            if (!RecordFormat.plausiblePayloadBytes(payloadBytes)) {
                throw new CorruptLogException(segment.path, offset, "record length " + payloadBytes
                        + " out of range on read of instance " + instance);
            }
            ByteBuffer frame = ByteBuffer.allocate(RecordFormat.PREFIX_BYTES + payloadBytes);
            readFully(segment, frame, offset);
            RecordFormat.Check check = RecordFormat.check(frame, 0);
            if (check != RecordFormat.Check.VALID) {
                throw new CorruptLogException(segment.path, offset, check.description + " on read of instance "
                        + instance);
            }
            if (RecordFormat.type(frame, 0) != RecordFormat.ACCEPT || RecordFormat.first(frame, 0) != instance
                    || RecordFormat.second(frame, 0) != ballot) {
                throw new CorruptLogException(segment.path, offset, "expected the accept of instance " + instance
                        + " at ballot " + Ballot.toString(ballot) + ", found a record of type "
                        + RecordFormat.type(frame, 0) + " for " + RecordFormat.first(frame, 0));
            }
            return RecordFormat.acceptValue(frame, 0);
        } catch (IOException e) {
            throw fail("read of instance " + instance, e);
        }
    }

    private static void readFully(Segment segment, ByteBuffer target, long offset) throws IOException {
        while (target.hasRemaining()) {
            int n = segment.channel.read(target, offset + target.position());
            if (n < 0) {
                throw new CorruptLogException(segment.path, offset, "record cut short by the end of the file");
            }
        }
    }

    // ---- recovery --------------------------------------------------------------------------

    private void recover() throws IOException {
        List<Path> files = segmentFiles();
        long tornBytes = 0;
        long expectedSequence = -1;
        Segment last = null;
        long lastSize = 0;
        for (int i = 0; i < files.size(); i++) {
            Path path = files.get(i);
            boolean isLast = i == files.size() - 1;
            long nameSequence = sequenceOf(path);
            FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                channel.close();
                throw new CorruptLogException(path, 0, "segment of " + size + " bytes is larger than any this log writes");
            }
            MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            String headerProblem = SegmentHeader.problem(bytes, nameSequence);
            if (headerProblem != null) {
                if (isLast && !SegmentHeader.isIntactButUnsupported(bytes) && RecordFormat.findValidFrame(bytes, 0) < 0) {
                    // A crash while a roll created this file: the previous segment was fsynced first.
                    LOG.warn("discarding torn segment {}: {} bytes from offset 0 ({})", path, size, headerProblem);
                    tornBytes += size;
                    channel.close();
                    Files.delete(path);
                    if (expectedSequence < 0) {
                        expectedSequence = nameSequence;
                    }
                    break;
                }
                channel.close();
                throw new CorruptLogException(path, 0, headerProblem);
            }
            if (expectedSequence >= 0 && nameSequence != expectedSequence) {
                channel.close();
                throw new CorruptLogException(path, 0, "segment starts at record " + nameSequence
                        + " but the previous one ends before record " + expectedSequence + ": a segment is missing");
            }
            Segment segment = new Segment(path, nameSequence, channel);
            segments.put(nameSequence, segment);
            int offset = SegmentHeader.BYTES;
            while (offset < size) {
                RecordFormat.Check check = RecordFormat.check(bytes, offset);
                if (check != RecordFormat.Check.VALID) {
                    if (!isLast) {
                        throw new CorruptLogException(path, offset, check.description + " in a segment that is not the last");
                    }
                    int valid = RecordFormat.findValidFrame(bytes, offset + 1);
                    if (valid >= 0) {
                        throw new CorruptLogException(path, offset, check.description
                                + ", yet a valid record follows at offset " + valid + ": not a torn tail");
                    }
                    LOG.warn("discarding torn tail of {}: {} bytes from offset {} ({})", path, size - offset, offset,
                            check.description);
                    tornBytes += size - offset;
                    channel.truncate(offset);
                    channel.force(true);
                    fsyncCount++;
                    size = offset;
                    break;
                }
                segment.recordCount++;
                byte type = RecordFormat.type(bytes, offset);
                long second = type == RecordFormat.ACCEPT || type == RecordFormat.DECISION
                        ? RecordFormat.second(bytes, offset) : 0;
                apply(type, RecordFormat.first(bytes, offset), second, segment, offset);
                offset += RecordFormat.frameBytesAt(bytes, offset);
            }
            expectedSequence = segment.nextSequence();
            last = segment;
            lastSize = size;
        }
        index.removeBelow(floorInstance);
        if (last == null) {
            startSegment(Math.max(0, expectedSequence));
        } else {
            current = last;
            currentBytes = lastSize;
            writtenBytes = lastSize;
            forcedBytes = lastSize;
        }
        long highest = index.size() == 0 ? floorInstance - 1 : index.highestInstance();
        recovered = new RecoveredState(promisedBallot, floorInstance, highest,
                new RecoveredAcceptedMap(index.sortedSnapshot(), this::readValue), tornBytes);
        LOG.info("opened acceptor log {}: {} segments, promise {}, instances [{}, {}] ({} accepted), {} torn bytes discarded",
                dir, segments.size(), Ballot.toString(promisedBallot), floorInstance, highest, index.size(), tornBytes);
    }

    private List<Path> segmentFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> listing = Files.list(dir)) {
            listing.forEach(path -> {
                if (SEGMENT_NAME.matcher(path.getFileName().toString()).matches()) {
                    files.add(path);
                } else if (path.getFileName().toString().endsWith(Segment.SUFFIX)) {
                    LOG.warn("ignoring {}: not named like a segment (20 digits + {})", path, Segment.SUFFIX);
                }
            });
        }
        files.sort(null); // zero-padded names: lexical order is sequence order
        return files;
    }

    private static long sequenceOf(Path path) {
        Matcher matcher = SEGMENT_NAME.matcher(path.getFileName().toString());
        if (!matcher.matches()) {
            throw new AssertionError("not a segment name: " + path);
        }
        return Long.parseLong(matcher.group(1));
    }

    // ---- life cycle ------------------------------------------------------------------------

    private void ensureUsable() {
        if (failure != null) {
            throw new IllegalStateException("acceptor log " + dir + " failed earlier and must be reopened", failure);
        }
        if (closed) {
            throw new IllegalStateException("acceptor log " + dir + " is closed");
        }
    }

    private RuntimeException fail(String operation, IOException cause) {
        failure = cause;
        closeChannels();
        return new UncheckedIOException("acceptor log " + dir + ": " + operation + " failed; the log is now unusable",
                cause);
    }

    private void closeChannels() {
        for (Map.Entry<Long, Segment> entry : segments.entrySet()) {
            try {
                entry.getValue().channel.close();
            } catch (IOException e) {
                LOG.warn("cannot close {}: {}", entry.getValue().path, e.toString());
            }
        }
    }

    private static void requireInstance(long instance) {
        if (instance < 0) {
            throw new IllegalArgumentException("instance must not be negative: " + instance);
        }
    }
}
