package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.MulticastException;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runtime-facing contract of NodeProtocol. */
class NodeProtocolTest {

    private static final class Recorder implements Output {
        final List<byte[]> sent = new ArrayList<>();
        final List<byte[]> direct = new ArrayList<>();

        @Override
        public void send(int toNodeId, byte[] message) {
            sent.add(message);
        }

        @Override
        public void deliver(Delivery delivery) {
        }

        @Override
        public void ordered(long proposalSeq) {
        }

        @Override
        public void direct(int fromNodeId, byte[] appMessage) {
            direct.add(appMessage);
        }
    }

    @Test
    void malformedMessage_throwsAndLeavesStateUntouched() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        c.propose(1, new int[] {1}, new byte[] {1});
        c.run(100);
        NodeProtocol n = c.nodes.get(2);
        String before = n.status().toString();
        byte[] cpBefore = n.learnerCheckpoint();
        Recorder out = new Recorder();
        byte[] valid = MessageCodec.encode(new Message.Decision(1, 65537, 0));
        assertThrows(MalformedMessageException.class,
                () -> n.onMessage(1, ByteBuffer.wrap(new byte[] {MessageCodec.ACCEPT, 0, 0}), c.now, out));
        assertThrows(MalformedMessageException.class,
                () -> n.onMessage(1, ByteBuffer.wrap(java.util.Arrays.copyOf(valid, valid.length + 3)), c.now, out));
        assertThrows(MalformedMessageException.class, () -> n.onMessage(99, ByteBuffer.wrap(valid), c.now, out),
                "a message from a node not in the cluster file must be refused");
        assertTrue(out.sent.isEmpty(), "a rejected message must produce nothing");
        assertEquals(before, n.status().toString());
        assertArrayEquals(cpBefore, n.learnerCheckpoint());
    }

    /**
     * With batches of up to a megabyte, ring.maxInFlight (64) instances would be 64 MB on the ring at
     * once, more than a peer link queues (8 MiB): the links dropped, the ring stalled in retransmission
     * back-off. The coordinator keeps the bytes launched and undecided near RingCoordinator's bound.
     */
    @Test
    void aCoordinatorBoundsTheBytesItHasLaunchedAndNotYetDecided() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, "batch.maxBytes = 1200000\n"), 1);
        c.run(100);
        c.drop = s -> s.message() instanceof Message.Accept; // nothing gets decided
        c.sent.clear();
        int valueBytes = 900_000;
        for (int i = 0; i < 30; i++) {
            c.propose(1, new int[] {1}, RingPaxosTest.payload(i, valueBytes));
        }
        c.run(50);
        java.util.Set<Long> launched = new java.util.TreeSet<>();
        for (TestCluster.Sent s : c.sent) {
            if (s.from() == 1 && s.message() instanceof Message.Accept a) {
                launched.add(a.instance());
            }
        }
        long bound = (4L << 20) / valueBytes + 1; // 4 MiB in flight, and the value that crosses it
        assertTrue(!launched.isEmpty() && launched.size() <= bound, "instances launched with 30 values of "
                + valueBytes + " bytes waiting: " + launched.size() + ", expected 1.." + bound);
    }

    @Test
    void propose_isBounded_andOversizedPayloadsAreRefusedClearly() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        c.drop = s -> true; // nothing is ever ordered
        int accepted = 0;
        MulticastException refused = null;
        for (int i = 0; i < 10_000 && refused == null; i++) {
            try {
                c.propose(2, new int[] {1}, new byte[] {1});
                accepted++;
            } catch (MulticastException e) {
                refused = e;
            }
        }
        assertEquals(Proposer.MAX_PENDING_PER_RING, accepted, "pending proposals of a ring should be bounded");
        assertTrue(refused != null && refused.getMessage().contains("pending"), String.valueOf(refused));
        MulticastException big = assertThrows(MulticastException.class,
                () -> c.propose(1, new int[] {2}, new byte[300 * 1024]));
        assertTrue(big.getMessage().contains("batch.maxBytes"), big.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.propose(1, new int[] {7}, new byte[1]),
                "an unknown group should be refused");
    }

    @Test
    void constructor_refusesAcceptorLogsThatDoNotMatchTheClusterFile() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        Map<Integer, AcceptorLog> onlyRing1 = Map.of(1, new MemoryAcceptorLog(10));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new NodeProtocol(c.config, 1, 1, onlyRing1, null, 0));
        assertTrue(e.getMessage().contains("acceptor logs"), e.getMessage());
    }

    @Test
    void lostProposal_isRetransmitted_andDeliveredAndOrderedOnce() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        c.run(100);
        int[] dropped = {0};
        c.drop = s -> s.message() instanceof Message.Propose && dropped[0]++ < 2;
        long seq = c.propose(3, new int[] {1, 2}, new byte[] {4, 2});
        c.run(200);
        assertTrue(dropped[0] >= 2, "the first two sends should have been lost, only " + dropped[0] + " were sent");
        for (int n = 1; n <= 3; n++) {
            assertEquals(1, c.deliveriesAt(n).size(), "node " + n + " should deliver the retransmitted message once");
        }
        assertEquals(1, c.ordered.size());
        assertEquals(seq, c.ordered.get(0)[1]);
    }

    /**
     * 20 messages to group 1 delivered by all three nodes, then every learner checkpointed: the acceptors trimmed
     * ring 1. Returns the checkpoints by node id.
     */
    private static byte[][] deliverAndTrim(TestCluster c) {
        c.run(100);
        for (int i = 0; i < 20; i++) {
            c.propose(1 + i % 3, new int[] {1}, new byte[] {(byte) i});
            c.run(2);
        }
        c.run(100);
        assertEquals(20, c.deliveriesAt(3).size());
        byte[][] cps = new byte[4][];
        for (int n = 1; n <= 3; n++) {
            cps[n] = c.nodes.get(n).learnerCheckpoint();
            c.nodes.get(n).checkpointed(cps[n], c.now, c.outputOf(n));
        }
        c.run(50);
        for (int n = 1; n <= 3; n++) {
            long lowest = c.logs.get(n).get(1).lowestInstance();
            assertTrue(lowest > 0, "node " + n + " should have trimmed ring 1 after every learner checkpointed, lowest "
                    + lowest);
        }
        return cps;
    }

    @Test
    void checkpointed_letsAcceptorsTrim_andALearnerRestartsFromItsCheckpoint() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        byte[][] cps = deliverAndTrim(c);
        c.crash(3);
        c.start(3, cps[3]);
        c.propose(1, new int[] {1}, new byte[] {99});
        c.run(200);
        List<Delivery> got = c.deliveriesAt(3);
        assertEquals(21, got.size(), "after restarting from its checkpoint node 3 should deliver only the new message");
        assertArrayEquals(new byte[] {99}, got.get(20).payload());
        assertTrue(got.get(20).position() > got.get(19).position(), "positions keep increasing across the restart");
    }

    /**
     * A learner whose state is older than every acceptor keeps (its application lost its checkpoints after
     * the ring trimmed) is told so once, and moved to a peer's checkpoint it delivers what follows at the
     * same positions as its peers. Before: it logged an error and never delivered again.
     */
    @Test
    void aLearnerBehindTrimmedLogs_isReported_andDeliversAgainFromAPeersCheckpoint() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        byte[][] cps = deliverAndTrim(c);
        c.crash(3);
        c.start(3, null); // its application lost every checkpoint: the learner starts from instance 0
        c.propose(1, new int[] {1}, new byte[] {99});
        c.run(300);
        List<Delivery> stuck = c.deliveriesAt(3);
        assertEquals(20, stuck.size(), "node 3 delivers nothing more from instance 0");
        // once per trimmed ring it learns, however often it asks
        assertEquals(c.config.ringsLearnedBy(3).length, c.behindTrimmed.size(), "reports " + c.behindTrimmed.size());
        assertEquals(c.behindTrimmed.size(), c.behindTrimmed.stream().mapToLong(r -> r[1]).distinct().count());
        for (long[] r : c.behindTrimmed) {
            assertEquals(3, r[0]);
            assertEquals(0, r[2], "it needs instance 0");
            assertTrue(r[3] > 0, "the acceptors keep nothing below " + r[3]);
        }

        assertFalse(c.nodes.get(3).repositionLearner(c.nodes.get(3).learnerCheckpoint(), c.now, c.outputOf(3)),
                "its own place is not ahead of itself");
        // the application took node 2's state of its checkpoint: the learner follows it there
        assertTrue(c.nodes.get(3).repositionLearner(cps[2], c.now, c.outputOf(3)));
        c.propose(2, new int[] {1}, new byte[] {100});
        c.run(300);
        List<Delivery> after = c.deliveriesAt(3).subList(20, c.deliveriesAt(3).size());
        List<Delivery> at2 = c.deliveriesAt(2).subList(20, c.deliveriesAt(2).size());
        assertEquals(2, after.size(), "the two messages after the checkpoint, once each");
        for (int i = 0; i < 2; i++) {
            assertEquals(at2.get(i).position(), after.get(i).position(), "same position as at node 2");
            assertArrayEquals(at2.get(i).payload(), after.get(i).payload());
        }
        assertFalse(c.nodes.get(3).repositionLearner(cps[2], c.now, c.outputOf(3)), "a checkpoint behind it now");
    }

    @Test
    void directMessages_shareTheConnection_andComeOutAsDirect() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        Recorder out = new Recorder();
        c.nodes.get(2).onMessage(1, ByteBuffer.wrap(NodeProtocol.encodeDirect(new byte[] {7, 7})), 0, out);
        assertEquals(1, out.direct.size());
        assertArrayEquals(new byte[] {7, 7}, out.direct.get(0));
    }

    @Test
    void applicationMayProposeAndCheckpointFromInsideDeliver() {
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1);
        c.run(100);
        c.onDeliver = (node, d) -> {
            if (node == 2 && d.payload()[0] == 1) {
                c.nodes.get(2).learnerCheckpoint();
                c.propose(2, new int[] {2}, new byte[] {2});
            }
        };
        c.propose(1, new int[] {1}, new byte[] {1});
        c.run(100);
        for (int n = 1; n <= 3; n++) {
            List<Delivery> got = c.deliveriesAt(n);
            assertEquals(2, got.size(), "node " + n + " should deliver the message and the one proposed from deliver()");
            assertEquals(2, got.get(1).payload()[0]);
        }
    }

    @Test
    void proposerThatCannotReachTheCoordinator_isForwardedByTheNodeItBelievesLeads() {
        // Acceptors that trust their empty logs at this first start: with the link from 1 to 3 cut from the
        // start, node 1 could never read node 3 to join the ring (ADR 074), and a ring's first start needs
        // every acceptor to reach every other once; what is tested here comes after.
        TestCluster c = new TestCluster(RingPaxosTest.cluster(3, ""), 1, new NodeProtocol.Faults(false, false, true));
        c.drop = s -> s.from() == 1 && s.to() == 3; // node 3 suspects node 1; nobody else does
        c.run(200);
        assertEquals(2, c.nodes.get(3).status().rings().get(1).coordinatorId(), "node 3 should see node 2 as coordinator");
        assertEquals(1, c.nodes.get(2).status().rings().get(1).coordinatorId(), "node 2 should still see node 1");
        c.propose(3, new int[] {1}, new byte[] {5});
        c.run(100);
        for (int n = 1; n <= 3; n++) {
            assertEquals(1, c.deliveriesAt(n).size(), "node " + n + " should deliver the forwarded multicast once");
        }
        assertTrue(c.sent.stream().anyMatch(x -> x.message() instanceof Message.Propose p && p.forwarded() && x.from() == 2),
                "node 2 should have forwarded the proposal");
    }
}
