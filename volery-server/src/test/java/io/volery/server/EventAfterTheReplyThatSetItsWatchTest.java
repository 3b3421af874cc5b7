package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static io.volery.server.EventBeforeLaterResponseTest.bytes;
import static io.volery.server.EventBeforeLaterResponseTest.nameOn;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import io.volery.server.internal.VoleryService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ZooKeeper client registers a watch when the reply of the request that set it arrives, and drops an
 * event for a path it has no watch on. So an event must never reach the client before the reply of the
 * request that set its watch, although in Volery the event comes from whichever replica sends it first
 * and the reply from another, or from several partitions. Here the watching session's replies are held
 * at its front end (a slow replica) after the partitions executed its getData and getChildren with
 * watches; another session then changes both nodes, which fires both watches at once. Delivered as they
 * come, the events overtake the replies and the client drops them: the watches never fire (Curator's
 * queue consumers then wait forever for children they were never told of). Held behind the replies,
 * both fire, each after its reply.
 *
 * <p>The two reads go to different partitions, whose zxids are not ordered in real time: the event of
 * one partition must not go out before the reply of the other's read merely because that reply's zxid is
 * higher (ADR 077); with the reads the other way round the client would drop it.
 */
class EventAfterTheReplyThatSetItsWatchTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void aWatchEventNeverOvertakesTheReplyThatSetTheWatch(VoleryConfig.Partitioning partitioning) throws Exception {
        watchBothAndChangeBoth(partitioning, false);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(VoleryConfig.Partitioning.class)
    void theSameWithTheReadsTheOtherWayRound(VoleryConfig.Partitioning partitioning) throws Exception {
        watchBothAndChangeBoth(partitioning, true);
    }

    private static void watchBothAndChangeBoth(VoleryConfig.Partitioning partitioning, boolean childrenFirst)
            throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 1, 0, 2000, o -> o.withPartitioning(partitioning))) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions(), partitioning);
            String x = nameOn(partitioner, c.partitions()[0], "/x");
            String dir = nameOn(partitioner, c.partitions()[1], "/dir");
            VoleryNode watcherNode = c.nodes().get(0);
            VoleryService service = watcherNode.service();
            ZooKeeper watcher = VolerySmokeTest.connect("127.0.0.1:" + watcherNode.clientAddress().getPort());
            ZooKeeper writer = VolerySmokeTest.connect("127.0.0.1:" + c.nodes().get(1).clientAddress().getPort());
            List<String> seen = new ArrayList<>();
            CountDownLatch fired = new CountDownLatch(2);
            try {
                writer.create(x, bytes("old"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                writer.create(dir, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                // callbacks and watch events run on the watcher's one event thread, in arrival order
                Watcher record = e -> {
                    if (e.getType() != Watcher.Event.EventType.None) {
                        synchronized (seen) {
                            seen.add("event " + e.getType() + " " + e.getPath());
                        }
                        fired.countDown();
                    }
                };
                service.holdRepliesOf(watcher.getSessionId());
                Runnable getData = () -> watcher.getData(x, record, (rc, path, ctx, data, stat) -> {
                    synchronized (seen) {
                        seen.add("reply getData " + path + " rc=" + rc);
                    }
                }, null);
                Runnable getChildren = () -> watcher.getChildren(dir, record, (rc, path, ctx, children) -> {
                    synchronized (seen) {
                        seen.add("reply getChildren " + path + " rc=" + rc + " " + children);
                    }
                }, null);
                if (childrenFirst) {
                    getChildren.run();
                    getData.run();
                } else {
                    getData.run();
                    getChildren.run();
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (service.heldReplyCount() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertEquals(2, service.heldReplyCount(), "both watch-setting requests executed, replies held");

                // each returns once the watcher's front end has queued the event it fired
                writer.setData(x, bytes("new"), -1);
                writer.create(dir + "/child", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                service.releaseReplies();

                assertTrue(fired.await(10, TimeUnit.SECONDS), "both watches fired; seen by the watcher: " + seen);
                synchronized (seen) {
                    String dataReply = "reply getData " + x + " rc=0";
                    String childrenReply = "reply getChildren " + dir + " rc=0 []";
                    assertEquals(List.of(
                            childrenFirst ? childrenReply : dataReply,
                            childrenFirst ? dataReply : childrenReply,
                            "event NodeDataChanged " + x,
                            "event NodeChildrenChanged " + dir), seen);
                }
            } finally {
                service.releaseReplies();
                watcher.close();
                writer.close();
            }
        }
    }
}
