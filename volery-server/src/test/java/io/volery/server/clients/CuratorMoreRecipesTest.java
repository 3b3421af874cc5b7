package io.volery.server.clients;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.NodeCache;
import org.apache.curator.framework.recipes.cache.PathChildrenCache;
import org.apache.curator.framework.recipes.cache.TreeCache;
import org.apache.curator.framework.recipes.cache.TreeCacheEvent;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.shared.SharedValue;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.zookeeper.WatchedEvent;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.recipes.nodes.PersistentTtlNode;
import org.apache.curator.framework.recipes.queue.DistributedDelayQueue;
import org.apache.curator.framework.recipes.queue.DistributedIdQueue;
import org.apache.curator.framework.recipes.queue.DistributedPriorityQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.SharedCountListener;
import org.apache.curator.framework.recipes.shared.SharedCountReader;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.details.ServiceCacheListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static io.volery.server.clients.Clients.PATIENCE;
import static io.volery.server.clients.Clients.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * More of Apache Curator 5.9.0's recipes, unmodified, against a 2-partition x 3-replica Volery:
 * the ones {@link CuratorRecipesTest} leaves out (leader selection with requeueing, read-write locks,
 * semaphores, multi-locks and revocation, shared counts, persistent and TTL nodes, group membership,
 * barriers, the older caches, priority, delay and id queues) and the service-discovery extension.
 * Each recipe lives under its own top-level path, and the multi-lock's two locks are in different
 * subtrees, so the recipes are spread over both partitions. {@link CuratorMoreRecipesHashTest} runs
 * them against a hash-partitioned Volery.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CuratorMoreRecipesTest extends CuratorAgainstVolery {

    /** A queue consumer that hands each item to {@code into}. */
    /** What a queue consumer does with an item; throwing makes the queue treat it as not consumed. */
    private interface ItemHandler {
        void handle(String item) throws Exception;
    }

    /** A queue consumer that hands each item to {@code handler} and ignores connection changes. */
    private static QueueConsumer<String> consumer(ItemHandler handler) {
        return new QueueConsumer<>() {
            @Override
            public void consumeMessage(String item) throws Exception {
                handler.handle(item);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        };
    }

    @Test
    void leaderSelectorGivesLeadershipToOneCandidateAtATimeAndRequeues() throws Exception {
        int candidates = 3;
        int turnsEach = 2;
        AtomicInteger leading = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        Map<String, AtomicInteger> turns = new ConcurrentHashMap<>();
        List<LeaderSelector> selectors = new ArrayList<>();
        for (int i = 0; i < candidates; i++) {
            String id = "candidate-" + i;
            turns.put(id, new AtomicInteger());
            LeaderSelector selector = new LeaderSelector(client(), "/selection/leader", new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    mostAtOnce.accumulateAndGet(leading.incrementAndGet(), Math::max);
                    try {
                        turns.get(id).incrementAndGet();
                        Thread.sleep(50); // a second leader would overlap this
                    } finally {
                        leading.decrementAndGet();
                    }
                }
            });
            selector.setId(id);
            selector.autoRequeue();
            selectors.add(selector);
        }
        selectors.forEach(LeaderSelector::start);
        eventually(() -> "every candidate led " + turnsEach + " times (so far " + turns + ")",
                () -> turns.values().stream().allMatch(t -> t.get() >= turnsEach));
        // every candidate is a participant (one that just led may be between its turns: its node comes back)
        LeaderSelector any = selectors.get(0);
        eventually("every candidate listed as a participant", () -> {
            try {
                return any.getParticipants().stream().map(p -> p.getId()).collect(Collectors.toSet())
                        .equals(Set.of("candidate-0", "candidate-1", "candidate-2"));
            } catch (Exception e) {
                throw new AssertionError("getParticipants", e);
            }
        });
        selectors.forEach(LeaderSelector::close);
        assertEquals(1, mostAtOnce.get(), "candidates leading at the same time");
    }

    @Test
    void readWriteLockSharesReadersAndExcludesTheWriter() throws Exception {
        InterProcessReadWriteLock reader1 = new InterProcessReadWriteLock(client(), "/rwlock/shared");
        InterProcessReadWriteLock reader2 = new InterProcessReadWriteLock(client(), "/rwlock/shared");
        InterProcessReadWriteLock writer = new InterProcessReadWriteLock(client(), "/rwlock/shared");
        // locks belong to the acquiring thread: each party acquires and releases on its own thread
        Party r1 = new Party(reader1.readLock());
        Party r2 = new Party(reader2.readLock());
        Party w = new Party(writer.writeLock());
        assertTrue(r1.acquire(PATIENCE.toSeconds()), "the first reader");
        assertTrue(r2.acquire(PATIENCE.toSeconds()), "a second reader beside the first");
        assertFalse(w.acquire(1), "the writer got the lock while two readers held it");
        r1.release();
        assertFalse(w.acquire(1), "the writer got the lock while one reader held it");
        r2.release();
        assertTrue(w.acquire(PATIENCE.toSeconds()), "the writer once the readers left");
        assertFalse(r1.acquire(1), "a reader got the lock while the writer held it");
        w.release();
        assertTrue(r1.acquire(PATIENCE.toSeconds()), "a reader once the writer left");
        r1.release();
    }

    /** Acquires and releases one Curator lock on a thread of its own, as its owner must. */
    private final class Party {
        private final org.apache.curator.framework.recipes.locks.InterProcessLock lock;
        private final ExecutorService thread = Executors.newSingleThreadExecutor();

        Party(org.apache.curator.framework.recipes.locks.InterProcessLock lock) {
            this.lock = lock;
            opened.add(thread::shutdownNow);
        }

        boolean acquire(long seconds) throws Exception {
            return thread.submit(() -> lock.acquire(seconds, TimeUnit.SECONDS)).get(seconds + 30, TimeUnit.SECONDS);
        }

        void release() throws Exception {
            thread.submit(() -> {
                lock.release();
                return null;
            }).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void semaphoreGrantsAtMostItsLeases() throws Exception {
        InterProcessSemaphoreV2 a = new InterProcessSemaphoreV2(client(), "/semaphore/two", 2);
        InterProcessSemaphoreV2 b = new InterProcessSemaphoreV2(client(), "/semaphore/two", 2);
        InterProcessSemaphoreV2 c = new InterProcessSemaphoreV2(client(), "/semaphore/two", 2);
        Lease first = a.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        Lease second = b.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(first, "the first lease");
        assertNotNull(second, "the second lease");
        assertNull(c.acquire(1, TimeUnit.SECONDS), "a third lease of a two-lease semaphore");
        assertEquals(2, c.getParticipantNodes().size(), "lease holders");
        Future<Lease> waiting = pool.submit(() -> c.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        Thread.sleep(300);
        assertFalse(waiting.isDone(), "the third client got a lease while two were held");
        a.returnLease(first);
        Lease third = waiting.get(PATIENCE.toSeconds() + 5, TimeUnit.SECONDS);
        assertNotNull(third, "the waiting client once a lease was returned");
        b.returnLease(second);
        c.returnLease(third);

        // four clients take leases in turn: never more than two at once, and every round completes
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            InterProcessSemaphoreV2 s = new InterProcessSemaphoreV2(client(), "/semaphore/two", 2);
            workers.add(pool.submit(() -> {
                for (int r = 0; r < 4; r++) {
                    Lease lease = s.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS);
                    assertNotNull(lease, "a client waited " + PATIENCE + " for a lease");
                    mostAtOnce.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    Thread.sleep(20);
                    holding.decrementAndGet();
                    s.returnLease(lease);
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertTrue(mostAtOnce.get() <= 2, "leases held at once: " + mostAtOnce.get());
    }

    @Test
    void multiLockHoldsLocksInTwoSubtreesAndRevocationAsksTheHolderToRelease() throws Exception {
        CuratorFramework holderClient = client();
        InterProcessMultiLock both = new InterProcessMultiLock(holderClient, List.of("/multilock-a/lock", "/multilock-b/lock"));
        Party holder = new Party(both);
        Party other = new Party(new InterProcessMutex(client(), "/multilock-b/lock"));
        assertTrue(holder.acquire(PATIENCE.toSeconds()), "both locks");
        assertFalse(other.acquire(1), "the second lock while the multi-lock held it");
        holder.release();
        assertTrue(other.acquire(PATIENCE.toSeconds()), "the second lock once the multi-lock released both");
        other.release();

        // revocation: a revocable holder is asked, through its lock node, to let go
        InterProcessMutex revocable = new InterProcessMutex(holderClient, "/revocation/lock");
        CountDownLatch asked = new CountDownLatch(1);
        revocable.makeRevocable(m -> asked.countDown());
        Party revocableHolder = new Party(revocable);
        assertTrue(revocableHolder.acquire(PATIENCE.toSeconds()), "the revocable lock");
        Collection<String> nodes = revocable.getParticipantNodes();
        assertEquals(1, nodes.size(), "participants of the revocable lock");
        Revoker.attemptRevoke(client(), nodes.iterator().next());
        assertTrue(asked.await(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the holder was asked to release");
        Party waiter = new Party(new InterProcessMutex(client(), "/revocation/lock"));
        revocableHolder.release();
        assertTrue(waiter.acquire(PATIENCE.toSeconds()), "the lock once the revoked holder released it");
        waiter.release();
    }

    @Test
    void sharedCountSetsByVersionAndTellsItsListeners() throws Exception {
        SharedCount mine = new SharedCount(client(), "/sharedcount/value", 0);
        SharedCount theirs = new SharedCount(client(), "/sharedcount/value", 0);
        LinkedBlockingQueue<Integer> heard = new LinkedBlockingQueue<>();
        theirs.addListener(new SharedCountListener() {
            @Override
            public void countHasChanged(SharedCountReader reader, int newCount) {
                heard.add(newCount);
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        });
        mine.start();
        theirs.start();
        opened.add(mine);
        opened.add(theirs);
        mine.setCount(5);
        assertEquals(5, heard.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the other client's listener");
        eventually("the other client's count follows", () -> theirs.getCount() == 5);

        VersionedValue<Integer> seen = theirs.getVersionedValue();
        assertTrue(mine.trySetCount(mine.getVersionedValue(), 6), "a set at the current version");
        assertEquals(6, heard.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        assertFalse(theirs.trySetCount(seen, 7), "a set at a version another client moved past");
        eventually("both read 6", () -> mine.getCount() == 6 && theirs.getCount() == 6);
        assertNull(heard.poll(300, TimeUnit.MILLISECONDS), "a refused set was heard as a change");
    }

    @Test
    void persistentEphemeralNodeComesBackAfterADeleteAndASessionExpiry() throws Exception {
        // the owner on the first front end, the handle that takes its session over on another (SessionTakeoverTest)
        String[] frontEnds = cluster.connectString().split(",");
        CuratorFramework owner = Clients.curator(frontEnds[0]);
        opened.add(owner);
        PersistentNode node = new PersistentNode(owner, CreateMode.EPHEMERAL, false, "/persistent/member", "here".getBytes());
        node.start();
        opened.add(node);
        assertTrue(node.waitForInitialCreate(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the initial create");
        CuratorFramework other = client();
        long firstSession = owner.getZookeeperClient().getZooKeeper().getSessionId();
        assertEquals(firstSession, exists(other, "/persistent/member").getEphemeralOwner(), "the node's owner");

        other.delete().forPath("/persistent/member");
        eventually("the deleted node is made again", () -> exists(other, "/persistent/member") != null);

        // expire the owner's session from outside, as ZooKeeper's tests do: a second handle on the
        // same session closes it; Curator reconnects with a new session and the recipe recreates
        ZooKeeper handle = owner.getZookeeperClient().getZooKeeper();
        CountDownLatch attached = new CountDownLatch(1);
        ZooKeeper intruder = new ZooKeeper(frontEnds[frontEnds.length - 1], 10_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                attached.countDown();
            }
        }, handle.getSessionId(), handle.getSessionPasswd());
        assertTrue(attached.await(PATIENCE.toSeconds(), TimeUnit.SECONDS), "a second handle attached to the session");
        intruder.close();
        eventually(() -> "the node is owned by the owner's new session (first session " + Long.toHexString(firstSession)
                + ", the owner's now " + Long.toHexString(sessionOf(owner)) + ", the node's " + exists(other, "/persistent/member") + ")", () -> {
            Stat s = exists(other, "/persistent/member");
            return s != null && s.getEphemeralOwner() != firstSession
                    && s.getEphemeralOwner() == sessionOf(owner);
        });
        assertEquals("here", new String(other.getData().forPath("/persistent/member")));
        node.close();
        opened.remove(node);
        eventually("the node goes with the recipe", () -> exists(other, "/persistent/member") == null);
    }

    @Test
    void persistentTtlNodeLivesWhileItsRecipeRunsAndExpiresAfter() throws Exception {
        CuratorFramework owner = client();
        CuratorFramework other = client();
        long ttlMs = 2_000; // the recipe touches every TTL / 2: slack for a loaded machine
        PersistentTtlNode node = new PersistentTtlNode(owner, "/ttl/node", ttlMs, "alive".getBytes());
        node.start();
        opened.add(node);
        assertTrue(node.waitForInitialCreate(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the initial create");
        Stat created = exists(other, "/ttl/node");
        assertNotNull(created, "the TTL node");
        assertEquals(0, created.getEphemeralOwner(), "a TTL node reports no ephemeral owner");
        // TTLs and reaping ticks (500 ms) pass: the recipe's touches keep it
        Thread.sleep(2 * ttlMs + 1_000);
        assertNotNull(exists(other, "/ttl/node"), "the TTL node while its recipe runs");
        assertEquals("alive", new String(other.getData().forPath("/ttl/node")));
        node.close();
        opened.remove(node);
        eventually("the TTL node is reaped once its recipe stopped", () -> exists(other, "/ttl/node") == null);
    }

    @Test
    void groupMembersSeeEachOtherJoinAndLeave() throws Exception {
        GroupMember one = new GroupMember(client(), "/group/members", "one", "1".getBytes());
        GroupMember two = new GroupMember(client(), "/group/members", "two", "2".getBytes());
        one.start();
        two.start();
        opened.add(one);
        opened.add(two);
        eventually(() -> "both members listed (one sees " + one.getCurrentMembers().keySet() + ")",
                () -> one.getCurrentMembers().keySet().equals(Set.of("one", "two"))
                        && two.getCurrentMembers().keySet().equals(Set.of("one", "two")));
        assertEquals("2", new String(one.getCurrentMembers().get("two")));
        two.setThisData("2b".getBytes());
        eventually("a member's new data reaches the other", () -> {
            byte[] d = one.getCurrentMembers().get("two");
            return d != null && new String(d).equals("2b");
        });
        two.close();
        opened.remove(two);
        eventually(() -> "the member that left is gone (one sees " + one.getCurrentMembers().keySet() + ")",
                () -> one.getCurrentMembers().keySet().equals(Set.of("one")));
    }

    @Test
    void barrierHoldsWaitersUntilRemoved() throws Exception {
        DistributedBarrier setter = new DistributedBarrier(client(), "/barrier/gate");
        setter.setBarrier();
        List<Future<Boolean>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DistributedBarrier b = new DistributedBarrier(client(), "/barrier/gate");
            waiters.add(pool.submit(() -> b.waitOnBarrier(PATIENCE.toSeconds(), TimeUnit.SECONDS)));
        }
        Thread.sleep(300);
        assertTrue(waiters.stream().noneMatch(Future::isDone), "a waiter passed a barrier still set");
        setter.removeBarrier();
        for (Future<Boolean> w : waiters) {
            assertTrue(w.get(PATIENCE.toSeconds() + 5, TimeUnit.SECONDS), "a waiter once the barrier was removed");
        }
        assertTrue(new DistributedBarrier(client(), "/barrier/gate").waitOnBarrier(1, TimeUnit.SECONDS),
                "waiting on a removed barrier returns at once");
    }

    @Test
    void treeCacheSeesANestedSubtreeChangeStepByStep() throws Exception {
        CuratorFramework c = client();
        c.create().forPath("/treecache", "root".getBytes());
        LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();
        TreeCache cache = TreeCache.newBuilder(c, "/treecache").build();
        opened.add(cache);
        cache.getListenable().addListener((client, e) -> {
            if (e.getType() == TreeCacheEvent.Type.INITIALIZED) {
                events.add("initialized");
            } else if (e.getData() != null) {
                String data = e.getData().getData() == null ? "" : "=" + new String(e.getData().getData());
                events.add(e.getType() + " " + e.getData().getPath() + (e.getType() == TreeCacheEvent.Type.NODE_REMOVED ? "" : data));
            }
        });
        cache.start();
        assertEquals("NODE_ADDED /treecache=root", poll(events));
        assertEquals("initialized", poll(events));
        CuratorFramework writer = client();
        writer.create().forPath("/treecache/a", "1".getBytes());
        assertEquals("NODE_ADDED /treecache/a=1", poll(events));
        writer.create().forPath("/treecache/a/b", "2".getBytes());
        assertEquals("NODE_ADDED /treecache/a/b=2", poll(events));
        writer.setData().forPath("/treecache/a/b", "3".getBytes());
        assertEquals("NODE_UPDATED /treecache/a/b=3", poll(events));
        assertEquals("3", new String(cache.getCurrentData("/treecache/a/b").getData()));
        writer.delete().forPath("/treecache/a/b");
        assertEquals("NODE_REMOVED /treecache/a/b", poll(events));
        writer.delete().forPath("/treecache/a");
        assertEquals("NODE_REMOVED /treecache/a", poll(events));
        assertNull(events.poll(300, TimeUnit.MILLISECONDS), "no event beyond the changes made");
        assertEquals(Map.of(), cache.getCurrentChildren("/treecache"), "children left in the cache");
    }

    @Test
    @SuppressWarnings("deprecation")
    void nodeCacheAndPathChildrenCacheFollowTheirNodes() throws Exception {
        CuratorFramework c = client();
        c.create().forPath("/oldcaches", "v0".getBytes());
        NodeCache nodeCache = new NodeCache(c, "/oldcaches");
        opened.add(nodeCache);
        LinkedBlockingQueue<String> nodeEvents = new LinkedBlockingQueue<>();
        nodeCache.getListenable().addListener(() -> {
            ChildData d = nodeCache.getCurrentData();
            nodeEvents.add(d == null ? "gone" : new String(d.getData()));
        });
        nodeCache.start(true);
        assertEquals("v0", new String(nodeCache.getCurrentData().getData()), "the node cache's initial build");

        PathChildrenCache children = new PathChildrenCache(c, "/oldcaches", true);
        opened.add(children);
        LinkedBlockingQueue<String> childEvents = new LinkedBlockingQueue<>();
        children.getListenable().addListener((client, e) -> {
            if (e.getData() != null) {
                childEvents.add(e.getType() + " " + e.getData().getPath());
            }
        });
        children.start(PathChildrenCache.StartMode.BUILD_INITIAL_CACHE);
        assertEquals(List.of(), children.getCurrentData(), "no children at first");

        CuratorFramework writer = client();
        writer.setData().forPath("/oldcaches", "v1".getBytes());
        assertEquals("v1", poll(nodeEvents));
        writer.create().forPath("/oldcaches/x", "x".getBytes());
        assertEquals("CHILD_ADDED /oldcaches/x", poll(childEvents));
        writer.setData().forPath("/oldcaches/x", "x2".getBytes());
        assertEquals("CHILD_UPDATED /oldcaches/x", poll(childEvents));
        eventually("the children cache holds x's new data", () -> {
            ChildData d = children.getCurrentData("/oldcaches/x");
            return d != null && new String(d.getData()).equals("x2");
        });
        writer.delete().forPath("/oldcaches/x");
        assertEquals("CHILD_REMOVED /oldcaches/x", poll(childEvents));
        // a running PathChildrenCache makes its path again (a container) when it finds it gone, with ZooKeeper
        // too: the node cache could then see "gone" or the new empty node first, so it stops before the delete
        children.close();
        opened.remove(children);
        writer.delete().forPath("/oldcaches");
        assertEquals("gone", poll(nodeEvents));
        assertNull(nodeCache.getCurrentData(), "the node cache after the delete");
    }

    @Test
    void priorityDelayAndIdQueuesKeepTheirOrderAndRemovals() throws Exception {
        // priority: items put before any consumer runs come out lowest priority first
        DistributedPriorityQueue<String> producer = QueueBuilder.builder(client(), null, UTF8, "/pqueue/items").buildPriorityQueue(0);
        producer.start();
        opened.add(producer);
        producer.put("five", 5);
        producer.put("one", 1);
        producer.put("three", 3);
        List<String> byPriority = new CopyOnWriteArrayList<>();
        DistributedPriorityQueue<String> pconsumer = QueueBuilder.builder(client(), consumer(byPriority::add), UTF8, "/pqueue/items")
                .buildPriorityQueue(0);
        pconsumer.start();
        opened.add(pconsumer);
        eventually(() -> "three items consumed (" + byPriority + ")", () -> byPriority.size() == 3);
        assertEquals(List.of("one", "three", "five"), byPriority, "consumption order");

        // delay: an item is not handed out before its time, an undelayed one put later comes first
        List<String> delayed = new CopyOnWriteArrayList<>();
        Map<String, Long> consumedAt = new ConcurrentHashMap<>();
        QueueConsumer<String> timing = consumer(item -> {
            consumedAt.put(item, System.currentTimeMillis());
            delayed.add(item);
        });
        DistributedDelayQueue<String> dqueue = QueueBuilder.builder(client(), timing, UTF8, "/dqueue/items").buildDelayQueue();
        dqueue.start();
        opened.add(dqueue);
        long due = System.currentTimeMillis() + 2_000;
        dqueue.put("later", due);
        dqueue.put("now", System.currentTimeMillis());
        eventually(() -> "both delayed items consumed (" + delayed + ")", () -> delayed.size() == 2);
        assertEquals(List.of("now", "later"), delayed, "consumption order");
        assertTrue(consumedAt.get("later") >= due, "the delayed item came " + (due - consumedAt.get("later")) + " ms early");

        // id: an item can be taken out by its id before anyone consumes it
        DistributedIdQueue<String> idProducer = QueueBuilder.builder(client(), null, UTF8, "/idqueue/items").buildIdQueue();
        idProducer.start();
        opened.add(idProducer);
        idProducer.put("keep", "id-keep");
        idProducer.put("drop", "id-drop");
        assertEquals(1, idProducer.remove("id-drop"), "items removed by id");
        List<String> byId = new CopyOnWriteArrayList<>();
        DistributedIdQueue<String> idConsumer = QueueBuilder.builder(client(), consumer(byId::add), UTF8, "/idqueue/items").buildIdQueue();
        idConsumer.start();
        opened.add(idConsumer);
        eventually(() -> "the kept item consumed (" + byId + ")", () -> byId.size() == 1);
        assertNull(pollQuietly(byId, 500), "an item beyond the one kept");
        assertEquals(List.of("keep"), byId);
    }

    @Test
    void semaphoreMutexIsNotReentrantAndPassesBetweenThreads() throws Exception {
        InterProcessSemaphoreMutex mutex = new InterProcessSemaphoreMutex(client(), "/semaphoremutex/lock");
        InterProcessSemaphoreMutex rival = new InterProcessSemaphoreMutex(client(), "/semaphoremutex/lock");
        assertTrue(mutex.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the mutex");
        assertFalse(mutex.acquire(1, TimeUnit.SECONDS), "the same holder again: a semaphore mutex is not reentrant");
        assertFalse(rival.acquire(1, TimeUnit.SECONDS), "a rival while it is held");
        // unlike InterProcessMutex, another thread may release it
        pool.submit(() -> {
            mutex.release();
            return null;
        }).get(30, TimeUnit.SECONDS);
        assertTrue(rival.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the rival once it was released");
        rival.release();
    }

    @Test
    void sharedValueComparesAndSetsBytes() throws Exception {
        SharedValue mine = new SharedValue(client(), "/sharedvalue/config", "v0".getBytes());
        SharedValue theirs = new SharedValue(client(), "/sharedvalue/config", "ignored".getBytes());
        mine.start();
        theirs.start();
        opened.add(mine);
        opened.add(theirs);
        assertEquals("v0", new String(theirs.getValue()), "the first starter's seed value");
        VersionedValue<byte[]> seen = theirs.getVersionedValue();
        assertTrue(mine.trySetValue(mine.getVersionedValue(), "v1".getBytes()), "a set at the current version");
        eventually("the other client reads v1", () -> new String(theirs.getValue()).equals("v1"));
        assertFalse(theirs.trySetValue(seen, "v2".getBytes()), "a set at a version another client moved past");
        assertEquals("v1", new String(client().getData().forPath("/sharedvalue/config")));
    }

    @Test
    void persistentRecursiveWatcherHearsEveryChangeBelowItsNode() throws Exception {
        CuratorFramework c = client();
        c.create().forPath("/persistentwatch");
        LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
        PersistentWatcher watcher = new PersistentWatcher(c, "/persistentwatch", true);
        opened.add(watcher);
        CountDownLatch set = new CountDownLatch(1);
        watcher.getResetListenable().addListener(set::countDown);
        watcher.getListenable().addListener((WatchedEvent e) -> {
            if (e.getPath() != null) {
                heard.add(e.getType() + " " + e.getPath());
            }
        });
        watcher.start();
        assertTrue(set.await(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the watcher was set");
        CuratorFramework writer = client();
        writer.create().forPath("/persistentwatch/a", "1".getBytes());
        writer.create().forPath("/persistentwatch/a/b");
        writer.setData().forPath("/persistentwatch/a/b", "2".getBytes());
        writer.delete().forPath("/persistentwatch/a/b");
        writer.setData().forPath("/persistentwatch", "3".getBytes());
        List<String> expected = List.of("NodeCreated /persistentwatch/a", "NodeCreated /persistentwatch/a/b",
                "NodeDataChanged /persistentwatch/a/b", "NodeDeleted /persistentwatch/a/b",
                "NodeDataChanged /persistentwatch");
        List<String> got = new ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
            got.add(poll(heard));
        }
        // one session's writes: a recursive watch hears them in the order they were made, and stays set
        assertEquals(expected, got);
        assertNull(heard.poll(300, TimeUnit.MILLISECONDS), "an event beyond the changes made");
    }

    @Test
    void lockedQueueRedeliversAnItemItsConsumerFailedOn() throws Exception {
        // with a lock path, an item stays in the queue until its consumer returns: one that throws gets it again
        AtomicInteger attempts = new AtomicInteger();
        List<String> done = new CopyOnWriteArrayList<>();
        QueueConsumer<String> flaky = consumer(item -> {
            if (attempts.incrementAndGet() == 1) {
                throw new Exception("the first attempt fails");
            }
            done.add(item);
        });
        DistributedQueue<String> queue = QueueBuilder.builder(client(), flaky, UTF8, "/lockedqueue/items")
                .lockPath("/lockedqueue/locks").buildQueue();
        queue.start();
        opened.add(queue);
        queue.put("only");
        eventually(() -> "the item consumed on a second attempt (" + attempts.get() + " attempts)", () -> done.size() == 1);
        assertEquals(List.of("only"), done);
        assertEquals(2, attempts.get(), "attempts: the failed one and the one that succeeded");
        CuratorFramework observer = client();
        eventually("the queue empties", () -> {
            try {
                return observer.getChildren().forPath("/lockedqueue/items").isEmpty();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void serviceDiscoveryRegistersFindsAndForgetsInstances() throws Exception {
        ServiceDiscovery<Void> registry = ServiceDiscoveryBuilder.builder(Void.class)
                .client(client()).basePath("/discovery").build();
        registry.start();
        opened.add(registry);
        ServiceInstance<Void> a = ServiceInstance.<Void>builder().name("orders").id("a").address("10.0.0.1").port(8001).build();
        ServiceInstance<Void> b = ServiceInstance.<Void>builder().name("orders").id("b").address("10.0.0.2").port(8002).build();
        registry.registerService(a);

        ServiceDiscovery<Void> lookup = ServiceDiscoveryBuilder.builder(Void.class)
                .client(client()).basePath("/discovery").watchInstances(true).build();
        lookup.start();
        opened.add(lookup);
        var cache = lookup.serviceCacheBuilder().name("orders").build();
        AtomicInteger changes = new AtomicInteger();
        cache.addListener(new ServiceCacheListener() {
            @Override
            public void cacheChanged() {
                changes.incrementAndGet();
            }

            @Override
            public void stateChanged(CuratorFramework client, ConnectionState newState) {
            }
        });
        cache.start();
        opened.add(cache);
        assertEquals(Set.of("a"), ids(cache.getInstances()), "the cache's initial instances");
        registry.registerService(b);
        eventually(() -> "the cache sees b (has " + ids(cache.getInstances()) + ")",
                () -> ids(cache.getInstances()).equals(Set.of("a", "b")));
        // (the cache takes the instance in, then tells its listeners)
        eventually("the cache's listener was told", () -> changes.get() >= 1);
        assertEquals(Set.of("orders"), Set.copyOf(lookup.queryForNames()));
        ServiceInstance<Void> found = lookup.queryForInstance("orders", "b");
        assertEquals("10.0.0.2", found.getAddress());
        assertEquals(8002, found.getPort());

        ServiceProvider<Void> provider = lookup.serviceProviderBuilder().serviceName("orders").build();
        provider.start();
        opened.add(provider);
        Set<String> picked = new TreeSet<>();
        for (int i = 0; i < 10; i++) {
            picked.add(provider.getInstance().getId());
        }
        assertEquals(Set.of("a", "b"), picked, "round-robin over both instances");

        registry.unregisterService(a);
        eventually(() -> "the cache forgets a (has " + ids(cache.getInstances()) + ")",
                () -> ids(cache.getInstances()).equals(Set.of("b")));
        assertEquals(Set.of("b"), ids(lookup.queryForInstances("orders")));
        assertNotNull(lookup.queryForInstance("orders", "b"));
        assertNull(lookup.queryForInstance("orders", "a"), "an unregistered instance");
    }

    private static Set<String> ids(Collection<ServiceInstance<Void>> instances) {
        return instances.stream().map(ServiceInstance::getId).collect(Collectors.toSet());
    }

    private static String poll(LinkedBlockingQueue<String> events) throws InterruptedException {
        String e = events.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(e, "no event within " + PATIENCE);
        return e;
    }

    /** The item after the first of {@code items} if one arrives within {@code millis}, otherwise null. */
    private static String pollQuietly(List<String> items, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < deadline) {
            if (items.size() > 1) {
                return items.get(1);
            }
            Thread.sleep(20);
        }
        return null;
    }

    private static long sessionOf(CuratorFramework c) {
        try {
            return c.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw new AssertionError("the client's ZooKeeper handle", e);
        }
    }

}
