package io.volery.client;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A native session keeps ZooKeeper's FIFO order when its pipelined requests reach the ring out of order: the
 * proposal of its first request is lost on the way and sent again only after the ones behind it were ordered.
 */
class NativeClientFifoTest {

    private static final String MARKER = "fifo-lost-once";

    @Test
    void pipelinedRequestsRunInTheSessionsOrderWhenTheFirstProposalIsLost() throws Exception {
        try (ClusterWithClientNodes cluster = new ClusterWithClientNodes(2, 1, 1, 2000)) {
            int clientNode = 3;
            AtomicReference<DroppingTransport> transport = new AtomicReference<>();
            try (RingAccess rings = RingAccess.open(cluster.config(), clientNode, RingAccess.Options.defaults(),
                    n -> {
                        DroppingTransport t = new DroppingTransport(cluster.config(), clientNode);
                        transport.set(t);
                        return t;
                    });
                 VoleryClient c = VoleryClient.connect(rings, 30_000, e -> { })) {
                Subtrees subtrees = new Subtrees(new int[] {1, 2});
                // The lost frame may carry the requests behind the first one too (the proposer batches what
                // it has): then nothing overtakes. Rounds go on until something did, each checked for FIFO.
                int rounds = 0;
                while (rounds < 3 || rings.reorderedResends() == 0 && rounds < 20) {
                    rounds++;
                    createThenChildThenWrite(c, transport.get(), subtrees.in(1, "fifo"), rounds);
                    pipelinedWrites(c, transport.get(), subtrees.in(2, "fifo"), rounds);
                }
                assertTrue(rings.reorderedResends() >= 1, "in " + rounds + " rounds, no request behind a lost one "
                        + "was refused and sent again: the fault was never injected");
            }
        }
    }

    /** A create, a create of its child and a write of it, pipelined; the first one's proposal is lost once. */
    private static void createThenChildThenWrite(VoleryClient c, DroppingTransport transport, String top, int round)
            throws Exception {
        c.create(top, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        String a = top + "/a";
        int dropped = transport.dropped();
        String marker = MARKER + "-create-" + round;
        transport.loseNext(marker, 1);
        CompletableFuture<VoleryClient.Created> first =
                c.createAsync(a, bytes(marker), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        CompletableFuture<VoleryClient.Created> child =
                c.createAsync(a + "/b", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        CompletableFuture<org.apache.zookeeper.data.Stat> write = c.setDataAsync(a, bytes("after"), -1);
        assertEquals(a, first.get(60, TimeUnit.SECONDS).path(), "the first create");
        assertEquals(a + "/b", child.get(60, TimeUnit.SECONDS).path(),
                "the child created behind its parent in the same session (FIFO)");
        assertNotNull(write.get(60, TimeUnit.SECONDS), "the write behind the create");
        assertEquals(dropped + 1, transport.dropped(), "the first request's proposal was lost once");
        assertEquals("after", new String(c.getData(a, false, null), StandardCharsets.UTF_8),
                "the last write in the session's order wins");
        assertNotNull(c.exists(a + "/b", false), "the child is there");
    }

    /** Forty writes of one node, pipelined; the first one's proposal is lost once. */
    private static void pipelinedWrites(VoleryClient c, DroppingTransport transport, String a, int round)
            throws Exception {
        c.create(a, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        int dropped = transport.dropped();
        String marker = MARKER + "-head-" + round;
        transport.loseNext(marker, 1);
        List<CompletableFuture<org.apache.zookeeper.data.Stat>> writes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            writes.add(c.setDataAsync(a, bytes(i == 0 ? marker : "v" + i), -1));
        }
        int version = -1;
        for (int i = 0; i < writes.size(); i++) {
            int v = writes.get(i).get(60, TimeUnit.SECONDS).getVersion();
            assertTrue(v > version, "write " + i + " got version " + v + " after version " + version);
            version = v;
        }
        assertEquals(dropped + 1, transport.dropped(), "the head's proposal was lost once");
        assertEquals("v39", new String(c.getData(a, false, null), StandardCharsets.UTF_8),
                "the session's last write wins");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
