package io.volery.server.durability;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code volery start} with {@code logDir} appends to {@code volery-ID.log}, as ZooKeeper appends to its log: the
 * lines a node wrote before it was killed with kill -9 are still there after its restart (before: slf4j-simple
 * truncated the file at each start, so a crash's log was lost when the node came back).
 */
class LogFileProcessTest {

    @Test
    void aRestartedNodeAppendsToItsLogFile(@TempDir Path dir) throws Exception {
        Path logs = dir.resolve("logs");
        try (ProcessCluster cluster = new ProcessCluster(dir, "memory", 100_000, "logDir = " + logs + "\n")) {
            cluster.start(1);
            cluster.kill(1);
            cluster.start(1);
            Path log = logs.resolve("volery-1.log");
            ProcessCluster.await("two starts in " + log, 30_000, () -> starts(log) >= 2);
            cluster.kill(1);
            assertEquals(2, starts(log), Files.readString(log));
            assertTrue(Files.readString(cluster.log(1)).contains("serving ZooKeeper clients"),
                    "the launcher's own line still goes to standard output");
        }
    }

    private static long starts(Path log) {
        try {
            return Files.readAllLines(log).stream().filter(l -> l.contains("MulticastNode - node=1 started rings")).count();
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}
