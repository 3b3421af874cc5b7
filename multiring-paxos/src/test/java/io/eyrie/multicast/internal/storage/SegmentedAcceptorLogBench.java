package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.Ballot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Append throughput of the durable acceptor log with group commit: appends {@code records} accepts
 * of {@code valueBytes} each, syncing every {@code syncEvery} records. Not a test; run by hand:
 * {@code java -cp ... SegmentedAcceptorLogBench [records] [valueBytes] [syncEvery] [segmentBytes] [dir]}.
 */
public final class SegmentedAcceptorLogBench {

    private SegmentedAcceptorLogBench() {
    }

    public static void main(String[] args) throws IOException {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int valueBytes = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
        int syncEvery = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        long segmentBytes = args.length > 3 ? Long.parseLong(args[3]) : 64L << 20;
        boolean ownDir = args.length <= 4;
        Path dir = ownDir ? Files.createTempDirectory("acceptor-log-bench") : Path.of(args[4]);
        byte[] value = new byte[valueBytes];
        for (int i = 0; i < valueBytes; i++) {
            value[i] = (byte) i;
        }
        long ballot = Ballot.of(1, 1);
        try {
            long fsyncs;
            long startNanos = System.nanoTime();
            try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(dir, segmentBytes)) {
                long fsyncsAtOpen = log.fsyncCount;
                for (int i = 0; i < records; i++) {
                    log.appendAccept(i, ballot, value);
                    if ((i + 1) % syncEvery == 0) {
                        log.sync();
                    }
                }
                log.sync();
                fsyncs = log.fsyncCount - fsyncsAtOpen;
            }
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            System.out.printf("records=%d valueBytes=%d syncEvery=%d segmentBytes=%d: %.0f records/s, %.1f MB/s,"
                            + " %d fsyncs (%.0f fsyncs/s), %.2f s%n",
                    records, valueBytes, syncEvery, segmentBytes, records / seconds,
                    (double) records * valueBytes / seconds / 1e6, fsyncs, fsyncs / seconds, seconds);
        } finally {
            if (ownDir) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                        Files.deleteIfExists(path);
                    }
                }
            }
        }
    }
}
