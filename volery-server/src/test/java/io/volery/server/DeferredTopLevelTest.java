package io.volery.server;

import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ADR 036: top-level creates and deletes finish in continuations. A partition that follows the owner's
 * delete does not stop for the verdict; a request that reads what a pending command changed waits.
 */
class DeferredTopLevelTest {

    /**
     * With the owner partition's replicas all held, another partition still answers requests on its own
     * subtrees (before ADR 036 its executor waited at the delete), a read of the root waits for the
     * verdict, and once the owner goes on every replica agrees on the root's children.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aFollowerGoesOnWhileTheOwnersVerdictIsLate_andRootReadsWaitForIt() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int owner = c.partitions()[0];
            int follower = c.partitions()[1];
            String a = topLevelIn(partitioner, owner);
            String b = topLevelIn(partitioner, follower);
            Split split = split(c, owner);
            List<VoleryNode> owners = split.in();
            // both sessions live on the follower partition's front ends (their replicas answer them)
            ZooKeeper deleter = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper other = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                deleter.create(a, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                deleter.create(b, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                deleter.create(b + "/x", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

                holdAfterNextCommand(owners, trigger, a, release);

                List<VoleryNode> followers = split.out();
                CompletableFuture<Integer> deleted = deleteDeferredBy(followers, deleter, a);
                // a request on the follower's own subtree, ordered after the delete in every partition
                CompletableFuture<Integer> set = new CompletableFuture<>();
                other.setData(b + "/x", new byte[] {1}, -1, (rc, path, ctx, stat) -> set.complete(rc), null);
                assertEquals(0, set.get(20, TimeUnit.SECONDS),
                        "the follower answers a request on its own subtree while the owner's verdict is late");
                assertFalse(deleted.isDone(), "the delete is answered only with the owner's verdict");
                CompletableFuture<List<String>> root = new CompletableFuture<>();
                other.getChildren("/", false, (rc, path, ctx, children) -> root.complete(children), null);
                Thread.sleep(500);
                assertFalse(root.isDone(), "a read of the root's children waits for the verdict");

                release.countDown();
                assertEquals(0, deleted.get(20, TimeUnit.SECONDS));
                List<String> children = root.get(20, TimeUnit.SECONDS);
                assertFalse(children.contains(a.substring(1)), "the root no longer lists " + a + ": " + children);
                assertTrue(children.contains(b.substring(1)), children.toString());
                Stat stat = other.exists(b + "/x", false);
                assertEquals(1, stat.getVersion());
                // every replica of both partitions lists the same top-level nodes
                ZooKeeper check = VolerySmokeTest.connect(c.connectString());
                try {
                    check.sync("/", (rc, path, ctx) -> { }, null);
                    TreeSet<String> expected = new TreeSet<>(check.getChildren("/", false));
                    for (VoleryNode n : c.nodes()) {
                        TreeSet<String> listed = new TreeSet<>(n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS));
                        assertEquals(expected, listed, "node " + n.nodeId());
                    }
                } finally {
                    check.close();
                }
            } finally {
                release.countDown();
                deleter.close();
                other.close();
                trigger.close();
            }
        }
    }

    /**
     * The owner of a new top-level node goes on after creating it, but until the create's continuation
     * ran (here: the root's owner, held, has not sent its part of the events), a request on that node
     * waits, because its reply would reveal the create; a request on another subtree does not.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aRequestOnAPendingTopLevelNodeWaitsForItsCommand_othersDoNot() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            // the other partition owns the root, so its part is one the create waits for (ADR 053)
            int owner = c.partitions()[1];
            int other = c.partitions()[0];
            String x = topLevelIn(partitioner, owner);
            String y = x + "-y";
            for (int i = 0; partitioner.ownerOf(y) != owner; i++) {
                y = x + "-y" + i;
            }
            String z = topLevelIn(partitioner, other);
            Split split = split(c, owner);
            List<VoleryNode> owners = split.in();
            List<VoleryNode> others = split.out();
            ZooKeeper creator = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper reader = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper writer = VolerySmokeTest.connect(split.inConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                creator.create(y, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                creator.create(y + "/n", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holdAfterNextCommand(others, trigger, z, release);

                long[] before = owners.stream().mapToLong(n -> n.replica().deferredCommands()).toArray();
                CompletableFuture<Integer> created = new CompletableFuture<>();
                creator.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                        (rc, path, ctx, name) -> created.complete(rc), null);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int i = 0; i < owners.size(); i++) {
                    while (owners.get(i).replica().deferredCommands() == before[i]) {
                        assertTrue(System.nanoTime() < deadline, "node " + owners.get(i).nodeId() + " executes the create");
                        Thread.sleep(10);
                    }
                }
                CompletableFuture<Integer> onY = new CompletableFuture<>();
                writer.setData(y + "/n", new byte[] {2}, -1, (rc, path, ctx, stat) -> onY.complete(rc), null);
                assertEquals(0, onY.get(20, TimeUnit.SECONDS), "a request on another subtree is answered");
                CompletableFuture<Integer> onX = new CompletableFuture<>();
                reader.exists(x, false, (rc, path, ctx, stat) -> onX.complete(rc), null);
                Thread.sleep(300);
                assertFalse(onX.isDone(), "exists(" + x + ") would reveal the create before its command completed");
                assertFalse(created.isDone(), "the create is answered once every partition's events are in");
                release.countDown();
                assertEquals(0, created.get(20, TimeUnit.SECONDS));
                assertEquals(0, onX.get(20, TimeUnit.SECONDS));
            } finally {
                release.countDown();
                writer.close();
                creator.close();
                reader.close();
                trigger.close();
            }
        }
    }

    /**
     * A delete of a top-level node runs without signals (ADR 046), so its owner's reply rests on the event
     * parts alone: with the follower partition that owns the root held, the owner executes the delete and
     * goes on, but does not answer it until the follower applied it and sent its part.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theOwnersDeleteIsAnsweredOnlyOnceTheFollowerAppliedIt() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            // the follower owns the root, so its part is one the delete waits for (ADR 053)
            int owner = c.partitions()[1];
            int follower = c.partitions()[0];
            String x = topLevelIn(partitioner, owner);
            String z = topLevelIn(partitioner, follower);
            Split split = split(c, owner);
            List<VoleryNode> owners = split.in();
            List<VoleryNode> followers = split.out();
            ZooKeeper deleter = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                deleter.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holdAfterNextCommand(followers, trigger, z, release);

                long[] before = owners.stream().mapToLong(n -> n.replica().deferredCommands()).toArray();
                long[] independent = owners.stream().mapToLong(n -> n.replica().independentCommands()).toArray();
                CompletableFuture<Integer> deleted = new CompletableFuture<>();
                deleter.delete(x, -1, (rc, path, ctx) -> deleted.complete(rc), null);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int i = 0; i < owners.size(); i++) {
                    while (owners.get(i).replica().deferredCommands() == before[i]) {
                        assertTrue(System.nanoTime() < deadline, "node " + owners.get(i).nodeId() + " executes the delete");
                        Thread.sleep(10);
                    }
                    assertTrue(owners.get(i).replica().independentCommands() > independent[i],
                            "node " + owners.get(i).nodeId() + " ran the delete without signals");
                }
                Thread.sleep(500);
                assertFalse(deleted.isDone(), "the delete is answered once the follower applied it");
                release.countDown();
                assertEquals(0, deleted.get(20, TimeUnit.SECONDS));
                for (VoleryNode n : c.nodes()) {
                    List<String> listed = n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS);
                    assertFalse(listed.contains(x.substring(1)), "node " + n.nodeId() + " still lists " + x);
                }
            } finally {
                release.countDown();
                deleter.close();
                trigger.close();
            }
        }
    }

    /**
     * ADR 053: a top-level create or delete waits for the parts of the node's owner and the root's owner
     * only. With a third partition (neither) held, both are answered, the root and the node are read
     * through the held partition's front end (reads of the root go to its owner), and the held partition
     * sends no exchange for them; once released it lists what every other replica lists.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPartitionOwningNeitherTheNodeNorTheRootDoesNotHoldThemUp() throws Exception {
        try (VoleryCluster c = new VoleryCluster(3, 1, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int owner = c.partitions()[1];
            int bystander = c.partitions()[2];
            String x = topLevelIn(partitioner, owner);
            String z = topLevelIn(partitioner, bystander);
            Split split = split(c, bystander);
            List<VoleryNode> held = split.in();
            ZooKeeper writer = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper reader = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                writer.create(z, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holdAfterNextCommand(held, trigger, z, release);
                long[] sent = held.stream().mapToLong(n -> n.replica().exchangesSent()).toArray();

                CompletableFuture<Integer> created = new CompletableFuture<>();
                writer.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                        (rc, path, ctx, name) -> created.complete(rc), null);
                assertEquals(0, created.get(20, TimeUnit.SECONDS), "the create is answered with a bystander held");
                CompletableFuture<List<String>> root = new CompletableFuture<>();
                reader.getChildren("/", false, (rc, path, ctx, children) -> root.complete(children), null);
                assertTrue(root.get(20, TimeUnit.SECONDS).contains(x.substring(1)),
                        "the root, read through the held partition's front end, lists " + x);
                CompletableFuture<Stat> exists = new CompletableFuture<>();
                reader.exists(x, false, (rc, path, ctx, stat) -> exists.complete(stat), null);
                assertTrue(exists.get(20, TimeUnit.SECONDS) != null, x + " exists, read from its owner");
                CompletableFuture<Integer> deleted = new CompletableFuture<>();
                writer.delete(x, -1, (rc, path, ctx) -> deleted.complete(rc), null);
                assertEquals(0, deleted.get(20, TimeUnit.SECONDS), "the delete is answered with a bystander held");
                for (int i = 0; i < held.size(); i++) {
                    assertEquals(sent[i], held.get(i).replica().exchangesSent(), "the held partition sent nothing");
                }

                release.countDown();
                ZooKeeper check = VolerySmokeTest.connect(c.connectString());
                try {
                    check.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    TreeSet<String> expected = new TreeSet<>(check.getChildren("/", false));
                    assertTrue(expected.contains(x.substring(1)) && expected.contains(z.substring(1)), expected.toString());
                    for (VoleryNode n : c.nodes()) {
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                        TreeSet<String> listed;
                        do {
                            listed = new TreeSet<>(n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS));
                        } while (!listed.equals(expected) && System.nanoTime() < deadline);
                        assertEquals(expected, listed, "node " + n.nodeId());
                    }
                } finally {
                    check.close();
                }
            } finally {
                release.countDown();
                writer.close();
                reader.close();
                trigger.close();
            }
        }
    }

    /**
     * ADR 054: a partition that is neither the node's owner, nor the root's owner, nor the front end's
     * receives no part of a top-level create's events and waits for none. With the node's owner held
     * before it applies the create, the bystander applies it and has nothing pending: a request it
     * answers alone after settling its continuations (whoAmI through its front end) is answered at once
     * (ADR 053 had it wait for the owner's part, so it hung until the owner was released). The create
     * itself is answered only once its owner applied it, and then every replica lists it.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aBystanderOfATopLevelCreateWaitsForNoPart() throws Exception {
        try (VoleryCluster c = new VoleryCluster(3, 1, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int home = c.partitions()[0];
            int owner = c.partitions()[1];
            int bystander = c.partitions()[2];
            String x = topLevelIn(partitioner, owner);
            String y = topLevelIn(partitioner, owner) + "-held";
            for (int i = 0; partitioner.ownerOf(y) != owner; i++) {
                y = x + "-held" + i;
            }
            Split owners = split(c, owner);
            Split bystanders = split(c, bystander);
            ZooKeeper writer = VolerySmokeTest.connect(split(c, home).inConnect());
            ZooKeeper asker = VolerySmokeTest.connect(bystanders.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(owners.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                writer.create(y, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holdAfterNextCommand(owners.in(), trigger, y, release);
                long[] repliedElsewhere = bystanders.in().stream().mapToLong(n -> n.replica().repliesLeftToOthers()).toArray();

                CompletableFuture<Integer> created = new CompletableFuture<>();
                writer.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                        (rc, path, ctx, name) -> created.complete(rc), null);
                for (VoleryNode n : bystanders.in()) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS)
                            .contains(x.substring(1))) {
                        assertTrue(System.nanoTime() < deadline, "the bystander " + n.nodeId() + " applies the create");
                        Thread.sleep(10);
                    }
                }
                CompletableFuture<Object> who = CompletableFuture.supplyAsync(() -> {
                    try {
                        return asker.whoAmI();
                    } catch (Exception e) {
                        return e;
                    }
                });
                Object answer = who.get(10, TimeUnit.SECONDS);
                assertTrue(answer instanceof List<?>, "whoAmI through the bystander's front end: " + answer);
                assertFalse(created.isDone(), "the create is answered only once its owner applied it");
                for (int i = 0; i < repliedElsewhere.length; i++) {
                    assertTrue(bystanders.in().get(i).replica().repliesLeftToOthers() > repliedElsewhere[i],
                            "the bystander leaves the create's reply to the front end's partition");
                }

                release.countDown();
                assertEquals(0, created.get(20, TimeUnit.SECONDS));
                for (VoleryNode n : c.nodes()) {
                    List<String> listed = n.replica().probe().inspect(t -> t.children("/")).get(20, TimeUnit.SECONDS);
                    assertTrue(listed.contains(x.substring(1)), "node " + n.nodeId() + " lists " + x + ": " + listed);
                }
            } finally {
                release.countDown();
                writer.close();
                asker.close();
                trigger.close();
            }
        }
    }

    /**
     * ADR 053: the root's owner answers reads of the root, and one that would reveal a top-level create
     * waits until the create's command completed (the node's owner, held here, has sent its part), as a
     * read of the node waits in its owner; a read of the root must not see the node before a read of the
     * node would.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aReadOfTheRootWaitsForAPendingTopLevelCreate() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 1, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int home = c.partitions()[0];
            int owner = c.partitions()[1];
            String x = topLevelIn(partitioner, owner);
            String z = topLevelIn(partitioner, owner) + "-z";
            for (int i = 0; partitioner.ownerOf(z) != owner; i++) {
                z = x + "-z" + i;
            }
            Split split = split(c, home);
            ZooKeeper creator = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper reader = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                creator.create(z, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                holdAfterNextCommand(split.out(), trigger, z, release);
                long[] before = split.in().stream().mapToLong(n -> n.replica().deferredCommands()).toArray();
                CompletableFuture<Integer> created = new CompletableFuture<>();
                creator.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                        (rc, path, ctx, name) -> created.complete(rc), null);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                for (int i = 0; i < before.length; i++) {
                    while (split.in().get(i).replica().deferredCommands() == before[i]) {
                        assertTrue(System.nanoTime() < deadline, "the root's owner executes the create");
                        Thread.sleep(10);
                    }
                }
                CompletableFuture<List<String>> root = new CompletableFuture<>();
                reader.getChildren("/", false, (rc, path, ctx, children) -> root.complete(children), null);
                Thread.sleep(500);
                assertFalse(root.isDone(), "a read of the root waits for the pending create: " + (root.isDone() ? root.get() : ""));
                assertFalse(created.isDone(), "the create waits for its owner's part");
                release.countDown();
                assertEquals(0, created.get(20, TimeUnit.SECONDS));
                assertTrue(root.get(20, TimeUnit.SECONDS).contains(x.substring(1)), root.get().toString());
            } finally {
                release.countDown();
                creator.close();
                reader.close();
                trigger.close();
            }
        }
    }

    /**
     * A reconnect's setWatches, which exchanges with every partition, first runs the continuations before it:
     * otherwise a partition could wait in it for another that waits for that very partition's part of an
     * earlier top-level delete (a continuation that only runs between commands). The root's owner F follows
     * a delete of a node owned by O while O is held: F defers it, then runs a session's setWatches and waits
     * there for O; O, released, runs the delete and then an exists of the pending node, which settles and so
     * waits for F's part of the delete's events. Before the fix F sent that part only after the setWatches,
     * which waited for O: both stopped for good (session 51's WatchDeliveryTest hang, with a front end dying;
     * this test stops so without the fix).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aReconnectsSetWatchesRunsTheContinuationsBeforeIt() throws Exception {
        // An idle replica settles after one exchange timeout by itself: with a long one F is not idle-settling
        // when the setWatches comes (under load, as in WatchDeliveryTest, it never idles).
        System.setProperty("eyrie.exchangeTimeoutMillis", "10000");
        VoleryCluster cluster;
        try {
            cluster = new VoleryCluster(2, 3, 0, 2000);
        } finally {
            System.clearProperty("eyrie.exchangeTimeoutMillis");
        }
        try (VoleryCluster c = cluster) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int rootOwner = c.partitions()[0];
            assertEquals(rootOwner, partitioner.ownerOf("/"));
            int owner = c.partitions()[1];
            String a = topLevelIn(partitioner, owner);
            String b = topLevelIn(partitioner, rootOwner);
            Split split = split(c, owner);
            List<VoleryNode> owners = split.in();
            List<VoleryNode> followers = split.out();
            ZooKeeper deleter = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper reader = VolerySmokeTest.connect(split.outConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            CuttableProxy proxy = new CuttableProxy(followers.get(0).clientAddress());
            // the session's events, not its state: a reconnect through the proxy can take less than a poll's sleep
            CountDownLatch connected = new CountDownLatch(1);
            CountDownLatch disconnected = new CountDownLatch(1);
            CountDownLatch reconnected = new CountDownLatch(1);
            ZooKeeper watcher = new ZooKeeper(proxy.connectString(), 10_000, e -> {
                if (e.getState() == Watcher.Event.KeeperState.Disconnected) {
                    disconnected.countDown();
                } else if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    (disconnected.getCount() == 0 ? reconnected : connected).countDown();
                }
            });
            try {
                assertTrue(connected.await(20, TimeUnit.SECONDS), "the watcher connects");
                deleter.create(a, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                deleter.create(b, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                CountDownLatch changed = new CountDownLatch(1);
                assertNotNull(watcher.exists(b, e -> changed.countDown()), "the watcher watches " + b);

                holdAfterNextCommand(owners, trigger, a, release);
                CompletableFuture<Integer> deleted = deleteDeferredBy(followers, deleter, a);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                // O's next command after the delete: a read of the pending node, which settles there
                int[] waitingBefore = owners.stream().mapToInt(n -> n.replica().deliveriesWaiting()).toArray();
                CompletableFuture<Integer> read = new CompletableFuture<>();
                reader.exists(a, false, (rc, path, ctx, stat) -> read.complete(rc), null);
                for (int i = 0; i < owners.size(); i++) {
                    while (owners.get(i).replica().deliveriesWaiting() < waitingBefore[i] + 1) {
                        assertTrue(System.nanoTime() < deadline, "node " + owners.get(i).nodeId() + " delivers the read");
                        Thread.sleep(10);
                    }
                }
                // the watcher reconnects through the same front end: its setWatches goes to every partition
                proxy.drop();
                assertTrue(disconnected.await(20, TimeUnit.SECONDS), "the watcher notices the drop");
                assertTrue(reconnected.await(20, TimeUnit.SECONDS), "the watcher reconnects");
                Thread.sleep(1_000); // its setWatches follows the reconnect at once
                assertFalse(deleted.isDone(), "the delete waits for O's verdict");
                release.countDown();
                assertEquals(KeeperException.Code.OK.intValue(), deleted.get(30, TimeUnit.SECONDS));
                assertEquals(KeeperException.Code.NONODE.intValue(), read.get(30, TimeUnit.SECONDS));
                deleter.setData(b, new byte[] {1}, -1);
                assertTrue(changed.await(30, TimeUnit.SECONDS), "the watch, set again at the reconnect, fires");
                assertNull(watcher.exists(a, false));
            } finally {
                release.countDown();
                watcher.close();
                proxy.close();
                deleter.close();
                reader.close();
                trigger.close();
            }
        }
    }

    /** Deletes {@code path} asynchronously and waits until every follower executed it and deferred the rest. */
    private static CompletableFuture<Integer> deleteDeferredBy(List<VoleryNode> followers, ZooKeeper deleter, String path)
            throws InterruptedException {
        long[] deferredBefore = followers.stream().mapToLong(n -> n.replica().deferredCommands()).toArray();
        CompletableFuture<Integer> deleted = new CompletableFuture<>();
        deleter.delete(path, -1, (rc, p, ctx) -> deleted.complete(rc), null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; i < followers.size(); i++) {
            while (followers.get(i).replica().deferredCommands() == deferredBefore[i]) {
                assertTrue(System.nanoTime() < deadline, "node " + followers.get(i).nodeId()
                        + " executes the delete and defers the rest");
                Thread.sleep(10);
            }
        }
        return deleted;
    }

    /**
     * Holds every replica in {@code replicas} (one partition's) after its next command until {@code release}:
     * {@code trigger} sends it one, an exists of {@code path} in that partition, never answered while held.
     */
    static void holdAfterNextCommand(List<VoleryNode> replicas, ZooKeeper trigger, String path,
                                             CountDownLatch release) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(replicas.size());
        for (VoleryNode n : replicas) {
            n.replica().probe().inspect(t -> {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            });
        }
        trigger.exists(path, false, (rc, p, ctx, stat) -> { }, null);
        assertTrue(held.await(20, TimeUnit.SECONDS), "the partition's replicas are held");
    }

    /** A cluster's nodes split by partition: {@code partition}'s replicas and the others, with connect strings. */
    record Split(List<VoleryNode> in, List<VoleryNode> out, String inConnect, String outConnect) {
    }

    static Split split(VoleryCluster c, int partition) {
        List<VoleryNode> in = new ArrayList<>();
        List<VoleryNode> out = new ArrayList<>();
        StringJoiner inNodes = new StringJoiner(",");
        StringJoiner outNodes = new StringJoiner(",");
        for (VoleryNode n : c.nodes()) {
            boolean mine = n.replica().getLocalPartition().getId() == partition;
            (mine ? in : out).add(n);
            (mine ? inNodes : outNodes).add("127.0.0.1:" + n.clientAddress().getPort());
        }
        return new Split(in, out, inNodes.toString(), outNodes.toString());
    }

    private static String topLevelIn(PathPartitioner partitioner, int partition) {
        for (int i = 0; ; i++) {
            String path = "/deferred-" + i;
            if (partitioner.ownerOf(path) == partition) {
                return path;
            }
        }
    }
}
