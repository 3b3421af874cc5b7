package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ZooKeeper's promise "a client sees a watch event before any data that reflects the change, even data
 * of another znode written later" across Volery partitions. A write in one partition fires a watch of a
 * session served by another node; the network to that node is made slow for events (the node holds
 * them); the writer then writes a node of the other partition, and the watching session reads it.
 * Without the front ends' acknowledgement of events the read returns the new data while the event is
 * still on its way; with it the first write's reply waits until the watcher's node has queued the event.
 */
class EventBeforeLaterResponseTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void theWatcherSeesTheEventBeforeDataWrittenAfterTheChange(VoleryConfig.Partitioning partitioning) throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 1, 0, 2000, o -> o.withPartitioning(partitioning))) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions(), partitioning);
            String x = nameOn(partitioner, c.partitions()[0], "/x");
            String y = nameOn(partitioner, c.partitions()[1], "/y");
            VoleryNode watcherNode = c.nodes().get(0);
            VoleryNode writerNode = c.nodes().get(1);
            List<String> seen = new ArrayList<>();
            CountDownLatch eventSeen = new CountDownLatch(1);
            ZooKeeper watcher = VolerySmokeTest.connect("127.0.0.1:" + watcherNode.clientAddress().getPort());
            ZooKeeper writer = VolerySmokeTest.connect("127.0.0.1:" + writerNode.clientAddress().getPort());
            try {
                writer.create(x, bytes("old"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                writer.create(y, bytes("old"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                // the watcher's callbacks and watch events run on its client's one event thread, in the
                // order the client received them from the server
                watcher.getData(x, e -> {
                    if (e.getType() == Watcher.Event.EventType.NodeDataChanged) {
                        synchronized (seen) {
                            seen.add("event " + e.getPath());
                        }
                        eventSeen.countDown();
                    }
                }, null);

                watcherNode.service().holdEvents();
                CompletableFuture<Void> chain = CompletableFuture.runAsync(() -> {
                    try {
                        writer.setData(x, bytes("new"), -1);
                        writer.setData(y, bytes("new"), -1);
                        CountDownLatch read = new CountDownLatch(1);
                        watcher.getData(y, false, (rc, path, ctx, data, stat) -> {
                            synchronized (seen) {
                                seen.add("read " + path + "=" + new String(data, StandardCharsets.UTF_8));
                            }
                            read.countDown();
                        }, null);
                        assertTrue(read.await(20, TimeUnit.SECONDS), "the watcher's read of " + y + " answered");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                try {
                    // without the acknowledgement the whole chain runs while the event is held
                    chain.get(1, TimeUnit.SECONDS);
                } catch (TimeoutException expectedWithTheFix) {
                    // the first write waits for the watcher's node to queue the event
                }
                watcherNode.service().releaseEvents();
                chain.get(20, TimeUnit.SECONDS);
                assertTrue(eventSeen.await(10, TimeUnit.SECONDS), "the watch on " + x + " fired");
                synchronized (seen) {
                    assertEquals(List.of("event " + x, "read " + y + "=new"), seen,
                            "the watcher must see the event of " + x + " before the data of " + y
                                    + " written after the change");
                }
            } finally {
                watcherNode.service().releaseEvents();
                watcher.close();
                writer.close();
            }
        }
    }

    /** The first name {@code stem}N that {@code partition} owns. */
    static String nameOn(PathPartitioner p, int partition, String stem) {
        for (int i = 0; ; i++) {
            if (p.ownerOf(stem + i) == partition) {
                return stem + i;
            }
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
