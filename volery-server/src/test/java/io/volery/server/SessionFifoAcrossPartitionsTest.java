package io.volery.server;

import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's FIFO promise through a front end when a session's asynchronous requests switch
 * between partitions: a request pipelined behind one that still waits for another partition's
 * answers must not be sent, and so ordered, before it.
 */
class SessionFifoAcrossPartitionsTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void asynchronousRequestsAlternatingPartitionsRunInSubmissionOrder() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            ZooKeeper zk = VolerySmokeTest.connect(c.connectString());
            try {
                PathPartitioner partitioner = new PathPartitioner(c.partitions());
                String a = topLevelIn(partitioner, c.partitions()[0]);
                String b = topLevelIn(partitioner, c.partitions()[1]);
                zk.create(a, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create(b, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                int n = 40;
                List<Integer> order = new CopyOnWriteArrayList<>();
                List<Integer> codes = new CopyOnWriteArrayList<>();
                CountDownLatch done = new CountDownLatch(n);
                int versionA = 0;
                int versionB = 0;
                // Groups of three to one partition, then three to the other: each setData's expected
                // version holds only if it runs after every request issued before it.
                for (int i = 0; i < n; i++) {
                    boolean toA = (i / 3) % 2 == 0;
                    int version = toA ? versionA++ : versionB++;
                    int index = i;
                    zk.setData(toA ? a : b, new byte[] {(byte) i}, version, (rc, path, ctx, stat) -> {
                        order.add(index);
                        codes.add(rc);
                        done.countDown();
                    }, null);
                }
                assertTrue(done.await(30, TimeUnit.SECONDS), "all replies within 30 s");
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    expected.add(i);
                }
                assertEquals(expected, order, "replies in submission order");
                assertEquals(n, codes.stream().filter(rc -> rc == 0).count(),
                        "every setData saw the version its predecessors left; result codes: " + codes);
            } finally {
                zk.close();
            }
        }
    }

    /**
     * ADR 041: a session's requests to one partition go out behind its top-level creates and deletes
     * (which every partition runs) without waiting for their answers, and still run in submission
     * order: each setData names the version its predecessors leave, and the creates and deletes of the
     * same top-level node fail unless they alternate in order.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void requestsPipelinedBehindTopLevelCreatesAndDeletesRunInSubmissionOrder() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            ZooKeeper zk = VolerySmokeTest.connect(c.connectString());
            try {
                PathPartitioner partitioner = new PathPartitioner(c.partitions());
                String a = topLevelIn(partitioner, c.partitions()[0]);
                String b = topLevelIn(partitioner, c.partitions()[1]);
                zk.create(a, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create(b, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                int rounds = 30;
                List<Integer> order = new CopyOnWriteArrayList<>();
                List<String> failures = new CopyOnWriteArrayList<>();
                CountDownLatch done = new CountDownLatch(rounds * 8);
                int[] version = new int[2];
                int index = 0;
                for (int i = 0; i < rounds; i++) {
                    String top = "/pipelined-" + (i % 3);
                    int at = index++;
                    zk.create(top, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
                        record(order, failures, at, rc, "create " + path);
                        done.countDown();
                    }, null);
                    for (int k = 0; k < 6; k++) {
                        int which = (i + k / 3) % 2;
                        int mine = index++;
                        zk.setData(which == 0 ? a : b, new byte[] {(byte) mine}, version[which]++, (rc, path, ctx, stat) -> {
                            record(order, failures, mine, rc, "setData " + path);
                            done.countDown();
                        }, null);
                    }
                    int del = index++;
                    zk.delete(top, 0, (rc, path, ctx) -> {
                        record(order, failures, del, rc, "delete " + path);
                        done.countDown();
                    }, null);
                }
                assertTrue(done.await(60, TimeUnit.SECONDS), "all replies within 60 s");
                assertEquals(List.of(), failures, "every request saw what its predecessors left");
                assertEquals(java.util.stream.IntStream.range(0, index).boxed().toList(), order, "replies in submission order");
            } finally {
                zk.close();
            }
        }
    }

    /**
     * ADR 083, shown directly: with the other partition's replicas (the root's owner) held, a top-level create stays
     * unanswered (it waits for that partition's part of the events), and so does the same session's next request,
     * to the create's own partition (the front end's node's): the held partition may order the create after
     * reads sent later, so if that setData ran now, another session could see it and then list the root without
     * the create. Before ADR 083 (ADR 041) the setData went out once the front end's node delivered the create,
     * and another session saw it while the create was unanswered; this test fails so.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aRequestBehindAnUnansweredTopLevelCreateIsNotSeenBeforeTheCreateIsAnswered() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            // the held partition owns the root, so the create waits for its part (ADR 053)
            int owner = c.partitions()[1];
            String x = topLevelIn(partitioner, owner);
            String y = x + "-y";
            for (int i = 0; partitioner.ownerOf(y) != owner; i++) {
                y = x + "-y" + i;
            }
            String z = topLevelIn(partitioner, c.partitions()[0]);
            DeferredTopLevelTest.Split split = DeferredTopLevelTest.split(c, owner);
            List<VoleryNode> others = split.out();
            ZooKeeper session = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper reader = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                session.create(y, new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                DeferredTopLevelTest.holdAfterNextCommand(others, trigger, z, release);

                List<String> replies = new CopyOnWriteArrayList<>();
                CompletableFuture<Integer> created = new CompletableFuture<>();
                session.create(x, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
                    replies.add("create");
                    created.complete(rc);
                }, null);
                CompletableFuture<Integer> set = new CompletableFuture<>();
                session.setData(y, new byte[] {2}, 0, (rc, path, ctx, stat) -> {
                    replies.add("setData");
                    set.complete(rc);
                }, null);
                // the create is delivered in the front end's partition at once; give the setData time to run there
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < until) {
                    assertEquals(1, reader.getData(y, false, null)[0],
                            "the setData behind the unanswered create was seen before the create was answered");
                    Thread.sleep(50);
                }
                assertFalse(created.isDone(), "the create waits for the held partition's events");
                assertFalse(set.isDone());
                release.countDown();
                assertEquals(0, created.get(20, TimeUnit.SECONDS));
                assertEquals(0, set.get(20, TimeUnit.SECONDS));
                assertEquals(List.of("create", "setData"), replies, "replies in submission order");
                assertEquals(2, reader.getData(y, false, null)[0]);
                assertTrue(reader.getChildren("/", false).contains(x.substring(1)));
            } finally {
                release.countDown();
                session.close();
                reader.close();
                trigger.close();
            }
        }
    }

    /**
     * ADR 076: with the other partition held, a session's multis across both partitions stay unanswered (each
     * waits for that partition's verdicts), yet all of them are out at once, each sent when the front end's node
     * delivered the one before (every partition runs each only once both delivered it, ADR 083); released,
     * they run and answer in submission order. Top-level creates, which the partitions run without signals,
     * are not sent so: the next waits for the answer.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void multisAcrossEveryPartitionGoOutBehindEachOtherBeforeTheirAnswers() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions());
            int in = c.partitions()[1];
            DeferredTopLevelTest.Split split = DeferredTopLevelTest.split(c, in);
            String z = topLevelIn(partitioner, c.partitions()[0]);
            String a = topLevelIn(partitioner, in);
            ZooKeeper session = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                session.create(z, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                session.create(a, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                DeferredTopLevelTest.holdAfterNextCommand(split.out(), trigger, z, release);
                int n = 5;
                List<Integer> order = new CopyOnWriteArrayList<>();
                List<String> failures = new CopyOnWriteArrayList<>();
                CountDownLatch done = new CountDownLatch(n);
                for (int i = 0; i < n; i++) {
                    int at = i;
                    byte[] value = {(byte) i};
                    session.multi(List.of(Op.setData(z, value, -1), Op.setData(a, value, -1)),
                            (rc, path, ctx, results) -> {
                                record(order, failures, at, rc, "multi " + at);
                                done.countDown();
                            }, null);
                }
                long inService = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (System.nanoTime() < deadline && inService < n) {
                    inService = split.in().stream().mapToLong(node -> node.monitor().requestsInService()).sum();
                    Thread.sleep(20);
                }
                assertTrue(inService >= n, "all " + n + " multis out before any answer; in service: " + inService);
                assertEquals(List.of(), order, "nothing answered while the other partition is held");
                release.countDown();
                assertTrue(done.await(30, TimeUnit.SECONDS), "all replies within 30 s");
                assertEquals(List.of(), failures);
                assertEquals(java.util.stream.IntStream.range(0, n).boxed().toList(), order, "replies in submission order");
                assertEquals(n - 1, session.getData(z, false, null)[0]);
                assertEquals(n - 1, session.getData(a, false, null)[0]);
            } finally {
                release.countDown();
                session.close();
                trigger.close();
            }
        }
    }

    /**
     * ADR 085: under hash, creates and deletes run without signals but each partition waits in their all-to-all
     * exchange of events until every other partition executed them, so they are placed on delivery. With the
     * other partition held, a session's creates, its delete and a setData behind them, all unanswered, are all out
     * at once (each sent when the front end's node delivered the one before); nothing behind them runs in the
     * front end's partition meanwhile (a reader's getData of the written node stays unanswered or old), and
     * released, they answer in submission order. With the old rule each waited for the answer before it.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void underHashCreatesAndDeletesGoOutBehindEachOtherBeforeTheirAnswers() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 2000, r -> r,
                o -> o.withPartitioning(io.volery.server.config.VoleryConfig.Partitioning.HASH))) {
            PathPartitioner partitioner = new PathPartitioner(c.partitions(),
                    io.volery.server.config.VoleryConfig.Partitioning.HASH);
            int in = c.partitions()[1];
            DeferredTopLevelTest.Split split = DeferredTopLevelTest.split(c, in);
            String z = topLevelIn(partitioner, c.partitions()[0]);
            String y = topLevelIn(partitioner, in);
            ZooKeeper session = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper reader = VolerySmokeTest.connect(split.inConnect());
            ZooKeeper trigger = VolerySmokeTest.connect(split.outConnect());
            CountDownLatch release = new CountDownLatch(1);
            try {
                session.create(z, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                session.create(y, new byte[] {1}, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                session.create(y + "/gone", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                DeferredTopLevelTest.holdAfterNextCommand(split.out(), trigger, z, release);
                int creates = 4;
                List<Integer> order = new CopyOnWriteArrayList<>();
                List<String> failures = new CopyOnWriteArrayList<>();
                CountDownLatch done = new CountDownLatch(creates + 2);
                for (int i = 0; i < creates; i++) {
                    int at = i;
                    session.create(y + "/c" + i, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                            (rc, path, ctx, name) -> {
                                record(order, failures, at, rc, "create " + path);
                                done.countDown();
                            }, null);
                }
                session.delete(y + "/gone", -1, (rc, path, ctx) -> {
                    record(order, failures, creates, rc, "delete " + path);
                    done.countDown();
                }, null);
                session.setData(y, new byte[] {2}, -1, (rc, path, ctx, stat) -> {
                    record(order, failures, creates + 1, rc, "setData " + path);
                    done.countDown();
                }, null);
                long inService = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (System.nanoTime() < deadline && inService < creates + 2) {
                    inService = split.in().stream().mapToLong(node -> node.monitor().requestsInService()).sum();
                    Thread.sleep(20);
                }
                assertTrue(inService >= creates + 2, "all " + (creates + 2) + " requests out before any answer; in "
                        + "service: " + inService);
                CompletableFuture<Byte> read = new CompletableFuture<>();
                reader.getData(y, false, (rc, path, ctx, data, stat) -> read.complete(rc == 0 ? data[0] : (byte) -rc), null);
                Thread.sleep(1_000);
                assertTrue(!read.isDone() || read.get() == 1, "the setData behind unanswered creates was seen: " + read);
                assertEquals(List.of(), order, "nothing answered while the other partition is held");
                release.countDown();
                assertTrue(done.await(30, TimeUnit.SECONDS), "all replies within 30 s");
                assertEquals(List.of(), failures);
                assertEquals(java.util.stream.IntStream.rangeClosed(0, creates + 1).boxed().toList(), order,
                        "replies in submission order");
                assertEquals(2, reader.getData(y, false, null)[0]);
                List<String> children = reader.getChildren(y, false);
                java.util.Collections.sort(children);
                assertEquals(List.of("c0", "c1", "c2", "c3"), children);
            } finally {
                release.countDown();
                session.close();
                reader.close();
                trigger.close();
            }
        }
    }

    private static void record(List<Integer> order, List<String> failures, int index, int rc, String what) {
        order.add(index);
        if (rc != 0) {
            failures.add("request " + index + " (" + what + "): " + org.apache.zookeeper.KeeperException.Code.get(rc));
        }
    }

    private static String topLevelIn(PathPartitioner partitioner, int partition) {
        for (int i = 0; ; i++) {
            String path = "/fifo-" + i;
            if (partitioner.ownerOf(path) == partition) {
                return path;
            }
        }
    }
}
