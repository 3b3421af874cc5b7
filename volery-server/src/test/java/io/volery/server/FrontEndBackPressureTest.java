package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.eyrie.core.EyrieClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import io.volery.server.frontend.ReadThrottle;
import org.junit.jupiter.api.Test;

/**
 * A front end under overload holds requests back at its node's proposer capacity (the multicast
 * layer refuses more than 256 pending multicasts per ring) and stops reading from its clients while
 * its backlog lasts, instead of multicasting into refusals that make the replicas' per-session order
 * check refuse the requests pipelined behind and the front end send them again.
 */
class FrontEndBackPressureTest {

    private static final int CLIENTS = 8;
    /** Asynchronous setData per client, all in flight at once: 8 x 400 is over 12 times the proposer's 256. */
    private static final int REQUESTS_PER_CLIENT = 400;

    @Test
    void anOverloadedFrontEndQueuesAtTheProposersCapacityAndEveryRequestCompletesInOrder() throws Exception {
        try (VoleryCluster c = new VoleryCluster(1, 3, 0, 2000)) {
            EyrieClient frontEnd = c.nodes().get(0).eyrieClient();
            overloadCompletesInOrder(c, () -> { });
            assertTrue(frontEnd.multicastsQueued() > 0, "the load exceeded the front end's multicast window of "
                    + frontEnd.multicastWindow() + " (else this test proves nothing); queued: " + frontEnd.multicastsQueued());
        }
    }

    /**
     * ZooKeeper's globalOutstandingLimit (ADR 064): the front end never has more requests in service (ordered,
     * not yet answered) than the limit; the others wait in it, and every request still completes in its
     * session's order.
     */
    @Test
    void theOutstandingLimitBoundsRequestsInServiceAndEveryRequestCompletesInOrder() throws Exception {
        int limit = 20;
        try (VoleryCluster c = new VoleryCluster(1, 3, 2000, r -> r, o -> o.withOutstandingLimit(limit))) {
            EyrieClient frontEnd = c.nodes().get(0).eyrieClient();
            java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
            overloadCompletesInOrder(c, () -> most.accumulateAndGet(frontEnd.inService(), Math::max));
            assertTrue(most.get() >= limit / 2, "the load should fill the places in service (else this test proves "
                    + "nothing); at most " + most.get() + " were");
            assertTrue(most.get() <= limit, "requests in service at once: " + most.get() + ", the limit is " + limit);
            assertEquals(0, frontEnd.inService(), "requests in service once all were answered");
        }
    }

    /** {@value #CLIENTS} sessions x {@value #REQUESTS_PER_CLIENT} setData at once through node 1; {@code sample} runs meanwhile. */
    private static void overloadCompletesInOrder(VoleryCluster c, Runnable sample) throws Exception {
        VoleryNode node = c.nodes().get(0);
        List<ZooKeeper> clients = new ArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean loading = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (loading.get()) {
                sample.run();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "sampler");
        try {
            for (int i = 0; i < CLIENTS; i++) {
                ZooKeeper zk = VolerySmokeTest.connect("127.0.0.1:" + node.clientAddress().getPort());
                clients.add(zk);
                zk.create("/load-" + i, bytes(-1), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            EyrieClient frontEnd = node.eyrieClient();
            long refusedBefore = frontEnd.multicastsRefused();
            sampler.start();

            CountDownLatch done = new CountDownLatch(CLIENTS * REQUESTS_PER_CLIENT);
            Map<Integer, Integer> failures = new ConcurrentHashMap<>();
            for (int n = 0; n < REQUESTS_PER_CLIENT; n++) {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.get(i).setData("/load-" + i, bytes(n), -1, (rc, path, ctx, stat) -> {
                        if (rc != KeeperException.Code.OK.intValue()) {
                            failures.merge(rc, 1, Integer::sum);
                        }
                        done.countDown();
                    }, null);
                }
            }
            assertTrue(done.await(120, TimeUnit.SECONDS), "every request answered; still waiting for "
                    + done.getCount() + " of " + CLIENTS * REQUESTS_PER_CLIENT);
            assertEquals(Map.of(), failures, "error codes of failed requests (code -> count)");
            assertEquals(0, frontEnd.multicastsRefused() - refusedBefore,
                    "multicasts the node's proposer refused under overload");
            assertEquals(0, node.service().reorderedResends(),
                    "requests the replicas refused as overtaking an earlier one of their session, sent again");
            assertEquals(0, frontEnd.backlog(), "multicasts still waiting in the front end once all were answered");
            for (int i = 0; i < CLIENTS; i++) {
                assertEquals(String.valueOf(REQUESTS_PER_CLIENT - 1),
                        new String(clients.get(i).getData("/load-" + i, false, null), StandardCharsets.UTF_8),
                        "the data of /load-" + i + " after its session's writes, applied in the session's order");
            }
        } finally {
            loading.set(false);
            sampler.join(10_000);
            for (ZooKeeper zk : clients) {
                zk.close();
            }
        }
    }

    /**
     * A long stall (the ring has lost its quorum, nothing is ordered) with requests waiting: a client
     * whose unanswered requests stay under the per-connection bound keeps reading, so its pings are
     * answered and it keeps its connection for three session timeouts; a client flooding large
     * requests is stopped at the bound. Reading off at the first sign of pressure held back every
     * client's pings, and under a long overload clients dropped their connections.
     */
    @Test
    void duringALongStallASmallClientKeepsItsConnectionAndAFloodingOneIsStoppedAtTheByteBound() throws Exception {
        try (VoleryCluster c = new VoleryCluster(1, 3, 0, 1000)) {
            VoleryNode node = c.nodes().get(0);
            String address = "127.0.0.1:" + node.clientAddress().getPort();
            java.util.List<Watcher.Event.KeeperState> smallStates = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper small = new ZooKeeper(address, 4000, e -> {
                if (e.getType() == Watcher.Event.EventType.None) {
                    smallStates.add(e.getState());
                    if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                }
            });
            ZooKeeper flooder = VolerySmokeTest.connect(address);
            try {
                assertTrue(connected.await(20, TimeUnit.SECONDS), "the small client connected");
                small.create("/stall", bytes(0), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                flooder.create("/flood", bytes(0), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                c.nodes().get(1).close();
                c.nodes().get(2).close(); // no quorum left: nothing is ordered any more

                EyrieClient frontEnd = node.eyrieClient();
                for (int n = 0; n < 400; n++) {
                    small.setData("/stall", bytes(n), -1, (rc, path, ctx, stat) -> { }, null);
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!frontEnd.pressured() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertTrue(frontEnd.pressured(), "the front end is under back-pressure (else this test proves nothing)");
                byte[] large = new byte[200 * 1024];
                for (int n = 0; n < 30; n++) { // 6 MB, three times the per-connection bound
                    flooder.setData("/flood", large, -1, (rc, path, ctx, stat) -> { }, null);
                }
                // Three session timeouts without a reply to any request: only pings can keep the session.
                Thread.sleep(12_000);
                assertTrue(frontEnd.pressured(), "still under back-pressure at the end of the stall");
                assertEquals(List.of(Watcher.Event.KeeperState.SyncConnected), smallStates,
                        "connection states of the client whose requests waited through the stall");
                assertTrue(node.readThrottle().pauses() >= 1,
                        "the flooding connection stopped reading at its byte bound; pauses: " + node.readThrottle().pauses());
                assertTrue(node.readThrottle().unansweredBytes() < 2 * ReadThrottle.DEFAULT_CONNECTION_BYTES + 400 * 100,
                        "request bytes read and unanswered stay near the bounds: " + node.readThrottle().unansweredBytes());
            } finally {
                small.close(1000);
                flooder.close(1000);
            }
        }
    }

    private static byte[] bytes(int n) {
        return String.valueOf(n).getBytes(StandardCharsets.UTF_8);
    }
}
