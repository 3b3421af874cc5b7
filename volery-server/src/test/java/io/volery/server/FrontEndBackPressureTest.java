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
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * A front end under overload holds requests back at its node's proposer capacity (the multicast
 * layer refuses more than 256 pending multicasts per node) and stops reading from its clients while
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
            VoleryNode node = c.nodes().get(0);
            List<ZooKeeper> clients = new ArrayList<>();
            try {
                for (int i = 0; i < CLIENTS; i++) {
                    ZooKeeper zk = VolerySmokeTest.connect("127.0.0.1:" + node.clientAddress().getPort());
                    clients.add(zk);
                    zk.create("/load-" + i, bytes(-1), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }
                EyrieClient frontEnd = node.eyrieClient();
                long refusedBefore = frontEnd.multicastsRefused();

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

                assertTrue(frontEnd.multicastsQueued() > 0, "the load exceeded the front end's multicast window of "
                        + frontEnd.multicastWindow() + " (else this test proves nothing); queued: " + frontEnd.multicastsQueued());
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
                for (ZooKeeper zk : clients) {
                    zk.close();
                }
            }
        }
    }

    private static byte[] bytes(int n) {
        return String.valueOf(n).getBytes(StandardCharsets.UTF_8);
    }
}
