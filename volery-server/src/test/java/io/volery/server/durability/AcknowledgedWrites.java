package io.volery.server.durability;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client workload that remembers what the service acknowledged: creates and setData calls on
 * {@value #ROOTS} top-level znodes (so both partitions get writes). Each root's data is a counter
 * that only grows, written by this one client in order, so after any crash a root must hold its
 * last acknowledged value or a later one (a write whose reply was lost may have been applied).
 */
final class AcknowledgedWrites {
    static final int ROOTS = 8;

    private final Map<String, Long> acknowledgedValue = new ConcurrentHashMap<>();
    private final Set<String> acknowledgedCreates = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> nextValue = new TreeMap<>();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private long step;

    static ZooKeeper connect(String connectString) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connectString, 30_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(60, TimeUnit.SECONDS)) {
            zk.close();
            throw new AssertionError("no ZooKeeper session with " + connectString + " within 60 s");
        }
        return zk;
    }

    /**
     * Runs {@code ops} writes with up to {@value #WINDOW} outstanding (one session keeps them in
     * order, so each root's counter is still written in increasing order), and waits for every reply.
     */
    void run(ZooKeeper zk, int ops) throws InterruptedException {
        // Top-level creates go through the all-partitions ring, writes below a root through its
        // partition's ring, and a pipelined session is not kept in order across rings (yet): the
        // roots are created one at a time before anything is pipelined.
        while (nextValue.size() < ROOTS && ops > 0) {
            writeOne(zk);
            ops--;
        }
        Semaphore window = new Semaphore(WINDOW);
        CountDownLatch replies = new CountDownLatch(ops);
        for (int i = 0; i < ops; i++) {
            window.acquire();
            issue(zk, () -> {
                window.release();
                replies.countDown();
            });
        }
        if (!replies.await(120, TimeUnit.SECONDS)) {
            throw new AssertionError(replies.getCount() + " of " + ops + " writes got no reply within 120 s");
        }
    }

    static final int WINDOW = 16;

    private void issue(ZooKeeper zk, Runnable replied) {
        long s = step++;
        String root = "/k" + (s % ROOTS);
        if (!nextValue.containsKey(root)) {
            nextValue.put(root, 1L);
            zk.create(root, value(0), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    acknowledgedCreates.add(root);
                    acknowledgedValue.merge(root, 0L, Math::max);
                }
                count(rc);
                replied.run();
            }, null);
        } else if (s % 3 == 0) {
            String child = root + "/c" + s;
            zk.create(child, value(s), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    acknowledgedCreates.add(child);
                }
                count(rc);
                replied.run();
            }, null);
        } else {
            long v = nextValue.get(root);
            nextValue.put(root, v + 1);
            zk.setData(root, value(v), -1, (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue()) {
                    acknowledgedValue.merge(root, v, Math::max);
                }
                count(rc);
                replied.run();
            }, null);
        }
    }

    private void count(int rc) {
        if (rc == KeeperException.Code.OK.intValue()) {
            acknowledged.incrementAndGet();
        } else {
            failed.incrementAndGet();
            failures.merge(KeeperException.Code.get(rc).name(), 1, Integer::sum);
        }
    }

    private final Map<String, Integer> failures = new ConcurrentHashMap<>();

    /** Failed writes by error code, for failure messages. */
    Map<String, Integer> failures() {
        return new TreeMap<>(failures);
    }

    void writeOne(ZooKeeper zk) throws InterruptedException {
        long s = step++;
        String root = "/k" + (s % ROOTS);
        try {
            if (!nextValue.containsKey(root)) {
                try {
                    zk.create(root, value(0), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    acknowledgedCreates.add(root);
                    acknowledgedValue.merge(root, 0L, Math::max);
                } catch (KeeperException.NodeExistsException e) {
                    // an earlier attempt whose reply was lost
                }
                nextValue.put(root, 1L);
            } else if (s % 3 == 0) {
                String child = root + "/c" + s;
                zk.create(child, value(s), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                acknowledgedCreates.add(child);
            } else {
                long v = nextValue.get(root);
                nextValue.put(root, v + 1);
                zk.setData(root, value(v), -1);
                acknowledgedValue.merge(root, v, Math::max);
            }
            acknowledged.incrementAndGet();
        } catch (KeeperException e) {
            failed.incrementAndGet();
            failures.merge(e.code().name(), 1, Integer::sum);
        }
    }

    long acknowledged() {
        return acknowledged.get();
    }

    long failed() {
        return failed.get();
    }

    int acknowledgedCreates() {
        return acknowledgedCreates.size();
    }

    /** What a reader finds missing or older than acknowledged; empty when every acknowledged write is there. */
    List<String> lostWrites(ZooKeeper reader) throws Exception {
        List<String> lost = new ArrayList<>();
        for (String path : new TreeSet<>(acknowledgedCreates)) {
            if (reader.exists(path, false) == null) {
                lost.add("created " + path + " is missing");
            }
        }
        for (Map.Entry<String, Long> e : new TreeMap<>(acknowledgedValue).entrySet()) {
            try {
                long found = Long.parseLong(new String(reader.getData(e.getKey(), false, null), StandardCharsets.UTF_8));
                if (found < e.getValue()) {
                    lost.add(e.getKey() + " holds " + found + " but " + e.getValue() + " was acknowledged");
                }
            } catch (KeeperException.NoNodeException x) {
                // reported above as a missing create
            }
        }
        return lost;
    }

    private static byte[] value(long v) {
        return Long.toString(v).getBytes(StandardCharsets.UTF_8);
    }
}
