package io.volery.server.clients;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.volery.server.clients.Clients.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Apache Curator 5.9.0's recipes, unmodified, against a 2-partition x 3-replica Volery. Each recipe
 * lives under its own top-level path, so the recipes are spread over both partitions.
 * {@link CuratorRecipesHashTest} runs the same recipes against a hash-partitioned Volery.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CuratorRecipesTest extends CuratorAgainstVolery {
    @Test
    void interProcessMutexExcludesFiveContendingClients() throws Exception {
        int clients = 5;
        int rounds = 8;
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger mostHoldersAtOnce = new AtomicInteger();
        int[] unguardedCounter = {0};
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            InterProcessMutex mutex = new InterProcessMutex(client(), "/locks/mutex");
            workers.add(pool.submit(() -> {
                for (int r = 0; r < rounds; r++) {
                    assertTrue(mutex.acquire(30, TimeUnit.SECONDS), "a client waited over 30 s for the lock");
                    try {
                        mostHoldersAtOnce.accumulateAndGet(holders.incrementAndGet(), Math::max);
                        // read, yield, write: lost updates show if two clients are ever inside together
                        int seen = unguardedCounter[0];
                        Thread.yield();
                        unguardedCounter[0] = seen + 1;
                        holders.decrementAndGet();
                    } finally {
                        mutex.release();
                    }
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);
        }
        assertEquals(1, mostHoldersAtOnce.get(), "clients holding the mutex at the same time");
        assertEquals(clients * rounds, unguardedCounter[0], "counter incremented only under the mutex");
        // Curator 5 makes the lock's parent a container; once empty the server reaps it.
        CuratorFramework observer = client();
        eventually("the empty container /locks/mutex is reaped",
                () -> exists(observer, "/locks/mutex") == null);
    }

    @Test
    void leaderLatchFailsOverWhenTheLeaderLeaves() throws Exception {
        List<LeaderLatch> latches = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LeaderLatch latch = new LeaderLatch(client(), "/election/latch", "candidate-" + i);
            latch.start();
            latches.add(latch);
        }
        eventually("exactly one of three candidates leads", () -> leaders(latches).size() == 1);
        LeaderLatch first = leaders(latches).get(0);
        String firstId = first.getId();
        eventually("every candidate agrees on the leader", () -> latches.stream().allMatch(l -> {
            try {
                return l.getLeader().getId().equals(firstId);
            } catch (Exception e) {
                return false;
            }
        }));

        first.close();
        latches.remove(first);
        eventually("one of the two remaining candidates takes over", () -> leaders(latches).size() == 1);
        assertFalse(leaders(latches).get(0).getId().equals(firstId), "the closed candidate still leads");
        assertEquals(2, latches.get(0).getParticipants().size(), "participants after the leader left");
        for (LeaderLatch l : latches) {
            l.close();
        }
    }

    private static List<LeaderLatch> leaders(List<LeaderLatch> latches) {
        return latches.stream().filter(LeaderLatch::hasLeadership).toList();
    }

    @Test
    void distributedAtomicLongSumsConcurrentIncrements() throws Exception {
        int clients = 4;
        int increments = 15;
        List<Long> postValues = new CopyOnWriteArrayList<>();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            DistributedAtomicLong counter = new DistributedAtomicLong(client(), "/counters/sum", new RetryNTimes(50, 10));
            workers.add(pool.submit(() -> {
                for (int k = 0; k < increments; k++) {
                    AtomicValue<Long> v;
                    do {
                        v = counter.increment();
                    } while (!v.succeeded());
                    assertEquals(v.preValue() + 1, (long) v.postValue(), "an increment adds one");
                    postValues.add(v.postValue());
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);
        }
        DistributedAtomicLong reader = new DistributedAtomicLong(client(), "/counters/sum", new RetryNTimes(3, 10));
        assertEquals(clients * increments, (long) reader.get().postValue(), "the counter after every increment");
        List<Long> sorted = new ArrayList<>(postValues);
        Collections.sort(sorted);
        List<Long> expected = new ArrayList<>();
        for (long v = 1; v <= clients * increments; v++) {
            expected.add(v);
        }
        assertEquals(expected, sorted, "each increment saw a distinct value (no lost or doubled update)");
    }

    @Test
    void distributedQueueDeliversEveryItemExactlyOnce() throws Exception {
        int items = 40;
        Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        List<String> connectionStates = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        QueueConsumer<String> consumer = new QueueConsumer<>() {
            @Override
            public void consumeMessage(String item) {
                deliveries.merge(item, 1, Integer::sum);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
                // for the failure message: a reconnect re-registers watches through setWatches
                connectionStates.add(newState + "@" + System.currentTimeMillis() % 100_000);
            }
        };
        for (int i = 0; i < 2; i++) {
            DistributedQueue<String> q = QueueBuilder.builder(client(), consumer, UTF8, "/queues/work").buildQueue();
            q.start();
            opened.add(q);
        }
        DistributedQueue<String> producer = QueueBuilder.builder(client(), null, UTF8, "/queues/work").buildQueue();
        producer.start();
        opened.add(producer);
        for (int i = 0; i < items; i++) {
            producer.put("item-" + i);
        }
        CuratorFramework observer = client();
        eventually(() -> "all " + items + " items consumed (so far " + deliveries.size() + ": "
                        + new java.util.TreeMap<>(deliveries) + "; the queue holds " + childrenOf(observer, "/queues/work") + "; consumers' connection changes: "
                        + connectionStates + "; queue threads: " + queueThreads() + ")",
                () -> deliveries.size() == items);
        for (int i = 0; i < items; i++) {
            assertEquals(1, deliveries.get("item-" + i), "deliveries of item-" + i);
        }
        eventually("the queue holds no items once all are consumed", () -> {
            try {
                return observer.getChildren().forPath("/queues/work").isEmpty();
            } catch (KeeperException.NoNodeException gone) {
                return true;
            } catch (Exception e) {
                throw new AssertionError("getChildren(/queues/work) failed", e);
            }
        });
    }

    @Test
    void doubleBarrierHoldsEveryoneUntilAllEnterAndUntilAllLeave() throws Exception {
        int members = 3;
        AtomicInteger entered = new AtomicInteger();
        AtomicInteger left = new AtomicInteger();
        List<Integer> enteredSeenAfterEnter = new CopyOnWriteArrayList<>();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client(), "/barriers/double", members);
            workers.add(pool.submit(() -> {
                entered.incrementAndGet();
                assertTrue(barrier.enter(30, TimeUnit.SECONDS), "enter() timed out");
                enteredSeenAfterEnter.add(entered.get());
                assertTrue(barrier.leave(30, TimeUnit.SECONDS), "leave() timed out");
                left.incrementAndGet();
                return null;
            }));
            if (i < members - 1) {
                // the early members must still be waiting: nobody passes enter() before the last arrives
                Thread.sleep(200);
                assertTrue(enteredSeenAfterEnter.isEmpty(), "a member passed enter() with only " + (i + 1) + " of " + members);
            }
        }
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);
        }
        assertEquals(List.of(members, members, members), enteredSeenAfterEnter, "members entered when each passed enter()");
        assertEquals(members, left.get());
    }

    @Test
    void curatorCacheSeesCreatesChangesAndDeletesInOrder() throws Exception {
        CuratorFramework c = client();
        c.create().creatingParentContainersIfNeeded().forPath("/cache/watched", "v0".getBytes());
        LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
        CuratorCache cache = CuratorCache.build(c, "/cache/watched");
        opened.add(cache);
        cache.listenable().addListener(CuratorCacheListener.builder()
                .forCreates(n -> events.add("created " + n.getPath() + "=" + new String(n.getData())))
                .forChanges((before, after) -> events.add("changed " + after.getPath() + "=" + new String(after.getData())))
                .forDeletes(n -> events.add("deleted " + n.getPath()))
                .build());
        cache.start();
        assertEquals("created /cache/watched=v0", events.poll(20, TimeUnit.SECONDS), "initial load");

        // One change at a time: the cache reads data after each event, so back-to-back writes to one
        // node may fold into one event (with ZooKeeper too); each step must still be seen.
        CuratorFramework writer = client();
        writer.setData().forPath("/cache/watched", "v1".getBytes());
        assertEquals("changed /cache/watched=v1", events.poll(20, TimeUnit.SECONDS));
        writer.create().forPath("/cache/watched/child", "c".getBytes());
        assertEquals("created /cache/watched/child=c", events.poll(20, TimeUnit.SECONDS));
        writer.setData().forPath("/cache/watched/child", "c2".getBytes());
        assertEquals("changed /cache/watched/child=c2", events.poll(20, TimeUnit.SECONDS));
        writer.delete().forPath("/cache/watched/child");
        assertEquals("deleted /cache/watched/child", events.poll(20, TimeUnit.SECONDS));
        writer.delete().forPath("/cache/watched");
        assertEquals("deleted /cache/watched", events.poll(20, TimeUnit.SECONDS));
        assertNull(events.poll(300, TimeUnit.MILLISECONDS), "no event beyond the five changes");
        assertEquals(0, cache.size(), "entries left in the cache after everything was deleted");
    }

    @Test
    void transactionsCommitAtomicallyAndRollBackAsAWhole() throws Exception {
        CuratorFramework c = client();
        // across both partitions: /txa and /txb are different top-level subtrees
        List<CuratorOp> ops = List.of(
                c.transactionOp().create().forPath("/txa", "a".getBytes()),
                c.transactionOp().create().forPath("/txb", "b".getBytes()),
                c.transactionOp().setData().withVersion(0).forPath("/txa", "a2".getBytes()),
                c.transactionOp().check().withVersion(0).forPath("/txb"));
        List<CuratorTransactionResult> results = c.transaction().forOperations(ops);
        assertEquals(List.of(OperationType.CREATE, OperationType.CREATE, OperationType.SET_DATA, OperationType.CHECK),
                results.stream().map(CuratorTransactionResult::getType).toList());
        assertEquals("/txa", results.get(0).getResultPath());
        assertEquals(1, results.get(2).getResultStat().getVersion(), "version after the transaction's setData");
        assertArrayEquals("a2".getBytes(), c.getData().forPath("/txa"));

        List<CuratorOp> failing = List.of(
                c.transactionOp().create().forPath("/txc"),
                c.transactionOp().setData().forPath("/txb", "changed".getBytes()),
                c.transactionOp().delete().withVersion(7).forPath("/txa"));
        assertThrows(KeeperException.BadVersionException.class, () -> c.transaction().forOperations(failing));
        assertNull(exists(c, "/txc"), "a rolled-back create left /txc behind");
        assertArrayEquals("b".getBytes(), c.getData().forPath("/txb"), "a rolled-back setData changed /txb");
    }


    /** The children of {@code path} for a failure message, or what reading them failed with. */
    private static String childrenOf(CuratorFramework c, String path) {
        try {
            return c.getChildren().forPath(path).toString();
        } catch (Exception e) {
            return "(getChildren failed: " + e + ")";
        }
    }

    /**
     * Where Curator's queue threads stand, for a failure message: waiting for a children change
     * (a watch event that never came) or for an answer to a getData/delete (a reply that never came).
     */
    private static String queueThreads() {
        StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (java.util.Arrays.stream(stack).anyMatch(f -> f.getClassName().contains("recipes.queue"))) {
                out.append("\n  ").append(t.getName()).append(" ").append(t.getState());
                for (int i = 0; i < Math.min(stack.length, 12); i++) {
                    out.append("\n    at ").append(stack[i]);
                }
            }
        });
        return out.length() == 0 ? "none" : out.toString();
    }

}
