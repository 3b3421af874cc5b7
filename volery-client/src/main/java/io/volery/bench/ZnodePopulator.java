package io.volery.bench;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the subtrees and znodes of a {@link ZnodeLayout} exist with a payload of the run's
 * size, so {@code getData} reads what the run asked for. Existing znodes from an earlier run are
 * reused and overwritten, which lets several runs share one ensemble.
 */
final class ZnodePopulator {

    private static final Logger LOG = LoggerFactory.getLogger(ZnodePopulator.class);
    /** Setup requests in flight at once: enough to hide the round trip, small enough not to swamp a capped server. */
    private static final int WINDOW = 200;

    private final BenchSession session;
    private final Semaphore window = new Semaphore(WINDOW);
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();

    ZnodePopulator(BenchSession session) {
        this.session = session;
    }

    void populate(ZnodeLayout layout, byte[] payload, long timeoutMillis) throws IOException, InterruptedException {
        long started = System.nanoTime();
        // Subtrees first: a child's create fails with NONODE if its parent is not there yet.
        for (int s = 0; s < layout.subtreeCount(); s++) {
            createOrOverwrite(layout.subtree(s), new byte[0]);
        }
        awaitAll(timeoutMillis, "subtrees");
        for (int i = 0; i < layout.znodeCount(); i++) {
            createOrOverwrite(layout.znode(i), payload);
        }
        awaitAll(timeoutMillis, "znodes");
        LOG.info("populated {} subtrees and {} znodes of {} bytes in {} ms", layout.subtreeCount(),
                layout.znodeCount(), payload.length, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private void createOrOverwrite(String path, byte[] data) throws InterruptedException {
        window.acquire();
        session.create(path, data, (rc, name) -> {
            if (rc == KeeperException.Code.NODEEXISTS.intValue()) {
                session.setData(path, data, overwrittenRc -> done(overwrittenRc, path));
            } else {
                done(rc, path);
            }
        });
    }

    private void done(int rc, String path) {
        if (rc != KeeperException.Code.OK.intValue()) {
            failures.computeIfAbsent(OperationRecorder.codeName(rc), k -> new LongAdder()).increment();
            LOG.warn("setup of {} failed: {}", path, OperationRecorder.codeName(rc));
        }
        window.release();
    }

    private void awaitAll(long timeoutMillis, String what) throws IOException, InterruptedException {
        if (!window.tryAcquire(WINDOW, timeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new IOException("creating the benchmark's " + what + " did not finish within " + timeoutMillis + " ms");
        }
        window.release(WINDOW);
        if (!failures.isEmpty()) {
            Map<String, Long> byCode = new TreeMap<>();
            failures.forEach((k, v) -> byCode.put(k, v.sum()));
            throw new IOException("creating the benchmark's " + what + " failed: " + byCode);
        }
    }
}
