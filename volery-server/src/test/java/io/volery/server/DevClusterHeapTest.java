package io.volery.server;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/volery dev} in a 256 MB heap keeps serving through writes worth several times its heap (ADR 056).
 * Every write sits in the in-memory log of each of its ring's three acceptors, all in this one JVM; with a
 * fixed 256 MiB per log the process ran out of heap within about a minute of 1 KB writes and its nodes'
 * event loops died. Now the process's logs share a quarter of the heap.
 */
class DevClusterHeapTest {
    private static final int VALUE_BYTES = 8 * 1024;
    private static final int WRITES = 40_000; // 320 MB of values, each held by three acceptors: ~3.7 heaps
    private static final int ZNODES = 8;

    @Test
    void devClusterInASmallHeapServesWritesWorthManyHeaps() throws Exception {
        Path output = Files.createTempFile("volery-dev-heap", ".out");
        output.toFile().deleteOnExit();
        List<String> command = List.of("bash", LauncherTest.locateScript().toString(), "dev", "--port", "0");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().put("VOLERY_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("JAVA_OPTS", "-Xmx256m");
        Process dev = pb.start();
        try {
            String connect = awaitConnectString(dev, output);
            ZooKeeper zk = connect(connect);
            try {
                for (int z = 0; z < ZNODES; z++) { // /heap-0 ... /heap-7: top-level subtrees spread over the partitions
                    zk.create("/heap-" + z, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }
                Semaphore window = new Semaphore(200);
                CountDownLatch done = new CountDownLatch(WRITES);
                Map<Integer, AtomicInteger> failures = new ConcurrentHashMap<>();
                for (int i = 0; i < WRITES; i++) {
                    assertTrue(window.tryAcquire(60, TimeUnit.SECONDS), () -> "no reply for 60 s after "
                            + (WRITES - done.getCount()) + " writes; failures by code " + failures + "\n" + tail(output));
                    zk.setData("/heap-" + (i % ZNODES), value(i), -1, (rc, path, ctx, stat) -> {
                        if (rc != KeeperException.Code.OK.intValue()) {
                            failures.computeIfAbsent(rc, k -> new AtomicInteger()).incrementAndGet();
                        }
                        window.release();
                        done.countDown();
                    }, null);
                }
                assertTrue(done.await(120, TimeUnit.SECONDS), "writes unanswered: " + done.getCount());
                assertTrue(failures.isEmpty(), () -> "failed writes by code " + failures + "\n" + tail(output));
                for (int z = 0; z < ZNODES; z++) {
                    int last = WRITES - ZNODES + z;
                    assertArrayEquals(value(last), zk.getData("/heap-" + z, false, null), "/heap-" + z + " holds its last write");
                    assertEquals(WRITES / ZNODES, zk.exists("/heap-" + z, false).getVersion(), "one version per write");
                }
                zk.create("/heap-after", "still-serving".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.PERSISTENT);
            } finally {
                zk.close();
            }
            assertTrue(dev.isAlive(), "the dev cluster's process ended");
            String out = new String(Files.readAllBytes(output), StandardCharsets.ISO_8859_1);
            assertFalse(out.contains("OutOfMemoryError"), () -> "the dev cluster ran out of heap:\n" + tail(output));
        } finally {
            dev.destroy();
            if (!dev.waitFor(20, TimeUnit.SECONDS)) {
                dev.destroyForcibly();
            }
        }
    }

    /** Value {@code i}: its number in the first four bytes, the rest filler. */
    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte) 'v');
        v[0] = (byte) (i >>> 24);
        v[1] = (byte) (i >>> 16);
        v[2] = (byte) (i >>> 8);
        v[3] = (byte) i;
        return v;
    }

    private static String awaitConnectString(Process dev, Path output) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (String line : Files.readAllLines(output, StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("connect string: ")) {
                    return line.substring("connect string: ".length());
                }
            }
            assertTrue(dev.isAlive(), () -> "volery dev ended before serving:\n" + tail(output));
            Thread.sleep(200);
        }
        throw new AssertionError("volery dev printed no connect string in 60 s:\n" + tail(output));
    }

    private static ZooKeeper connect(String connect) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 20_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertTrue(connected.await(30, TimeUnit.SECONDS), "no session with " + connect);
        assertNotNull(zk);
        return zk;
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (java.io.IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
