package io.volery.client;

import io.volery.server.config.VoleryConfig;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The native client's events and pipelined reads: a session with a recursive persistent watch on "/" keeps
 * many getData requests in flight over nodes of every partition while a ZooKeeper client changes them. A
 * read that shows a node's version v must complete after the v-th NodeDataChanged of that node was delivered
 * (ZooKeeper's promise: a client sees the event before any read that shows the change), and every change is
 * delivered exactly once. The client delivers events and completions on one thread, in the order its node
 * receives them; with three replicas a partition, an event and a reply may come from different replicas, and
 * under hash partitioning a recursive watch is held by every partition, so a change's event also comes from
 * partitions other than the one a read of the node goes to. (Checked able to fail: with events counted 3 ms
 * late, both partitionings report reads that show changes before their events.)
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NativeClientEventOrderTest {

    private static final int NODES = 16;
    private static final int WRITES = 3000;
    private static final int IN_FLIGHT = 24;

    @ParameterizedTest
    @EnumSource(VoleryConfig.Partitioning.class)
    void aReadNeverShowsAChangeBeforeItsEventAndEveryChangeIsDeliveredOnce(VoleryConfig.Partitioning partitioning,
                                                                             @TempDir Path dir) throws Exception {
        try (ClusterWithClientNodes cluster = new ClusterWithClientNodes(2, 3, 1, 2000, partitioning)) {
            Path file = dir.resolve("volery.cfg");
            Files.writeString(file, cluster.clusterFileText() + "partitioning = " + partitioning.name().toLowerCase() + "\n",
                    StandardCharsets.UTF_8);
            EventLog zkLog = new EventLog();
            ZooKeeper writer = new ZooKeeper(cluster.connectString(), 30_000, zkLog);
            zkLog.await(KeeperState.SyncConnected);
            List<String> paths = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                writer.create("/t" + t, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                for (int n = 0; n < NODES / 4; n++) {
                    String p = "/t" + t + "/n" + n;
                    writer.create(p, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    paths.add(p);
                }
            }
            Map<String, Integer> changes = new ConcurrentHashMap<>();
            List<String> violations = new CopyOnWriteArrayList<>();
            VoleryClient watcher = VoleryClient.connect(file, 30_000, e -> {
                if (e.getType() == EventType.NodeDataChanged) {
                    changes.merge(e.getPath(), 1, Integer::sum);
                } else if (e.getType() != EventType.None) {
                    violations.add("unexpected " + e);
                }
            });
            try {
                watcher.addWatch("/", AddWatchMode.PERSISTENT_RECURSIVE);
                AtomicBoolean writing = new AtomicBoolean(true);
                Semaphore window = new Semaphore(IN_FLIGHT);
                Random random = new Random(partitioning.ordinal() + 43);
                int[] reads = new int[1];
                Thread reader = new Thread(() -> {
                    try {
                        while (writing.get() && violations.size() < 10) {
                            window.acquire();
                            String p = paths.get(random.nextInt(paths.size()));
                            CompletableFuture<VoleryClient.Data> f = watcher.getDataAsync(p, false);
                            f.whenComplete((d, t) -> {
                                window.release();
                                if (t != null) {
                                    violations.add("getData " + p + " failed: " + t);
                                    return;
                                }
                                // completions run on the client's event thread after the events it received first
                                int seen = changes.getOrDefault(p, 0);
                                if (d.stat().getVersion() > seen) {
                                    violations.add("getData " + p + " showed version " + d.stat().getVersion()
                                            + " with only " + seen + " NodeDataChanged delivered");
                                }
                            });
                            reads[0]++;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "pipelined-reader");
                reader.start();
                Random writes = new Random(7);
                List<CompletableFuture<Void>> pending = new ArrayList<>();
                for (int i = 0; i < WRITES; i++) {
                    String p = paths.get(writes.nextInt(paths.size()));
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    writer.setData(p, ("w" + i).getBytes(StandardCharsets.UTF_8), -1, (rc, path, ctx, stat) -> {
                        if (rc != 0) {
                            violations.add("setData " + path + " rc " + rc);
                        }
                        done.complete(null);
                    }, null);
                    pending.add(done);
                    if (pending.size() >= 8) {
                        pending.remove(0).get(30, TimeUnit.SECONDS);
                    }
                }
                for (CompletableFuture<Void> f : pending) {
                    f.get(30, TimeUnit.SECONDS);
                }
                writing.set(false);
                reader.join(30_000);
                window.acquire(IN_FLIGHT); // every read answered and checked
                // every change's event, exactly once: wait for the last ones, then compare with the versions
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                Map<String, Integer> versions = new java.util.HashMap<>();
                for (String p : paths) {
                    versions.put(p, writer.exists(p, false).getVersion());
                }
                while (System.nanoTime() < deadline && !versions.equals(new java.util.HashMap<>(changes))) {
                    Thread.sleep(50);
                }
                Thread.sleep(300); // a duplicate would come right behind
                assertEquals(List.of(), violations, partitioning + ": " + reads[0] + " reads");
                assertTrue(reads[0] > WRITES / 10, partitioning + ": reads overlapped the writes (" + reads[0] + ")");
                Map<String, Integer> delivered = new java.util.TreeMap<>(changes);
                assertEquals(new java.util.TreeMap<>(versions), delivered,
                        partitioning + ": one NodeDataChanged per setData of each node");
            } finally {
                watcher.close();
                writer.close();
            }
        }
    }
}
