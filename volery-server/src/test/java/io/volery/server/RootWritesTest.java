package io.volery.server;

import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Writes of the root, which every partition keeps whole while its owner (the lowest partition) alone
 * answers reads and holds watches of it (ADR 053).
 */
class RootWritesTest {

    /**
     * A multi that sets the root's data goes to every partition, as a plain setData of the root does:
     * before, only the root's owner applied it, so the other partitions' copies kept the old version and
     * a later versioned setData of the root was refused there (BadVersion from some replicas, OK from
     * others) and left the copies apart.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aMultiSettingTheRootKeepsEveryPartitionsCopyInStep() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            DeferredTopLevelTest.Split split = DeferredTopLevelTest.split(c, c.partitions()[1]);
            ZooKeeper home = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper other = VolerySmokeTest.connect(split.inConnect());
            try {
                int before = home.exists("/", false).getVersion();
                home.multi(List.of(Op.setData("/", "m".getBytes(StandardCharsets.UTF_8), -1)));
                Stat after = other.setData("/", "s".getBytes(StandardCharsets.UTF_8), before + 1);
                assertEquals(before + 2, after.getVersion());
                for (VoleryNode n : c.nodes()) {
                    io.volery.server.tree.Stat s = n.replica().probe().inspect(t -> t.stat("/")).get(20, TimeUnit.SECONDS);
                    assertEquals(before + 2, s.version(), "the root's version at node " + n.nodeId());
                    assertEquals("s", new String(n.replica().probe().inspect(t -> t.data("/")).get(20, TimeUnit.SECONDS),
                            StandardCharsets.UTF_8), "the root's data at node " + n.nodeId());
                }
            } finally {
                home.close();
                other.close();
            }
        }
    }

    /**
     * A session watching the root through a front end of another partition than the root's owner gets
     * the event of its own setData of the root before the reply, even with the root's owner's replicas
     * held after delivering the write (the other partition has the write's signal, sent on delivery, and
     * would answer at once without the owner's events).
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theRootsWatchFiresBeforeTheReplyOfItsOwnSessionsWrite() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int home = c.partitions()[0];
            DeferredTopLevelTest.Split split = DeferredTopLevelTest.split(c, home);
            String z = "/root-writes-0";
            for (int i = 1; partitioner.ownerOf(z) != home; i++) {
                z = "/root-writes-" + i;
            }
            ZooKeeper watcher = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.inConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                trigger.create(z, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                List<String> seen = new CopyOnWriteArrayList<>();
                watcher.getData("/", (WatchedEvent e) -> seen.add("event " + e.getType()), null);
                DeferredTopLevelTest.holdAfterNextCommand(split.in(), trigger, z, release);
                CompletableFuture<Integer> set = new CompletableFuture<>();
                watcher.setData("/", "w".getBytes(StandardCharsets.UTF_8), -1, (rc, path, ctx, stat) -> {
                    seen.add("reply " + rc);
                    set.complete(rc);
                }, null);
                Thread.sleep(500);
                assertFalse(set.isDone(), "the reply waits for the root's owner's events: " + seen);
                release.countDown();
                assertEquals(0, set.get(20, TimeUnit.SECONDS));
                assertEquals(List.of("event NodeDataChanged", "reply 0"), seen);
            } finally {
                release.countDown();
                watcher.close();
                trigger.close();
            }
        }
    }
}
