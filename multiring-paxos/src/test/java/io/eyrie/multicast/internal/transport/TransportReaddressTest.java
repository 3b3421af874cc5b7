package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A machine replaced at another address (ADR 102): real transports on 127.0.0.1; node 3 dies and comes back
 * elsewhere with the new version of the cluster file, which the survivors take up one after the other.
 */
class TransportReaddressTest {

    private static final int MAX_FRAME = 64 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<NettyTransport> started = new ArrayList<>();

    @AfterEach
    void closeAll() {
        started.forEach(NettyTransport::close);
    }

    private NettyTransport start(ClusterConfig config, int id, Inbox inbox) {
        NettyTransport t = new NettyTransport(config, id, MAX_FRAME,
                TransportOptions.defaults().withReconnectMillis(20, 200));
        started.add(t);
        t.start(inbox);
        return t;
    }

    /** Sends {@code seq} from {@code from} to {@code to} until it arrives (a refused connection loses what it carried). */
    private static void deliver(NettyTransport from, int fromId, int to, Inbox at, int seq) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!at.from(fromId).contains(seq)) {
            assertTrue(System.nanoTime() < deadline, "message " + seq + " from node " + fromId + " never reached node "
                    + to + "; it has " + at.from(fromId));
            from.send(to, Inbox.message(seq, 16));
            Thread.sleep(100);
        }
    }

    @Test
    void aMovedNodeIsDialledAtItsNewAddressAndPeersStillOnTheOldFileAreNotShutOut() throws Exception {
        int[] ports = TestCluster.freePorts(4);
        ClusterConfig before = TestCluster.config(new int[] {ports[0], ports[1], ports[2]});
        ClusterConfig after = TestCluster.config(new int[] {ports[0], ports[1], ports[3]});
        Inbox one = new Inbox();
        Inbox two = new Inbox();
        Inbox three = new Inbox();
        NettyTransport t1 = start(before, 1, one);
        NettyTransport t2 = start(before, 2, two);
        NettyTransport t3 = start(before, 3, three);
        deliver(t1, 1, 3, three, 0);

        t3.close(); // the machine dies; its replacement listens elsewhere, started with the new version of the file
        Inbox moved = new Inbox();
        NettyTransport t3b = start(after, 3, moved);

        // node 1 takes the new version up: it dials node 3 at its new address
        assertEquals(List.of(3), t1.readdress(after));
        deliver(t1, 1, 3, moved, 1);
        deliver(t3b, 3, 1, one, 2);

        // node 2 still runs the old version: its hello is node 1's previous file's, and node 1 still takes it
        long rejectedAtOne = t1.stats().framesRejected();
        deliver(t2, 2, 1, one, 3);
        assertEquals(rejectedAtOne, t1.stats().framesRejected(), "node 1 refused node 2's hello of its previous file");

        // node 2 does not know the new version yet: the moved node's hello is refused there until it reads it
        t3b.send(2, Inbox.message(4, 16));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (t2.stats().framesRejected() == 0) {
            assertTrue(System.nanoTime() < deadline, "node 2 did not refuse the hello of a file it has not read");
            Thread.sleep(20);
        }
        assertEquals(List.of(3), t2.readdress(after));
        deliver(t3b, 3, 2, two, 5);
        deliver(t2, 2, 3, moved, 6);

        // a version that is the one already taken up moves nothing
        assertEquals(List.of(), t1.readdress(after));
        deliver(t1, 1, 3, moved, 7);
    }

    @Test
    void aFileThatAddsANodeOrMovesThisOneIsRefusedAndChangesNothing() throws Exception {
        int[] ports = TestCluster.freePorts(5);
        ClusterConfig running = TestCluster.config(new int[] {ports[0], ports[1]});
        Inbox one = new Inbox();
        Inbox two = new Inbox();
        NettyTransport t1 = start(running, 1, one);
        NettyTransport t2 = start(running, 2, two);
        deliver(t1, 1, 2, two, 0);

        IllegalArgumentException added = assertThrows(IllegalArgumentException.class,
                () -> t1.readdress(TestCluster.config(new int[] {ports[0], ports[1], ports[2]})));
        assertTrue(added.getMessage().contains("nodes changed from [1, 2] to [1, 2, 3]"), added.getMessage());
        IllegalArgumentException self = assertThrows(IllegalArgumentException.class,
                () -> t1.readdress(TestCluster.config(new int[] {ports[3], ports[1]})));
        assertTrue(self.getMessage().contains("node 1 itself moves"), self.getMessage());

        // still the file it runs with: node 2 reaches it, and it reaches node 2
        deliver(t2, 2, 1, one, 1);
        deliver(t1, 1, 2, two, 2);
    }
}
