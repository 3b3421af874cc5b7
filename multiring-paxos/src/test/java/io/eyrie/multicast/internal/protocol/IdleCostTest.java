package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an idle node costs: whom it heartbeats, and when its runtime must run timers. */
class IdleCostTest {

    /** Two partitions of 3 (rings 1, 2), the ALL ring on nodes 1 and 4 and 5, and client node 7. */
    private static final String CLUSTER = """
            node.1 = 127.0.0.1:7001
            node.2 = 127.0.0.1:7002
            node.3 = 127.0.0.1:7003
            node.4 = 127.0.0.1:7004
            node.5 = 127.0.0.1:7005
            node.6 = 127.0.0.1:7006
            node.7 = 127.0.0.1:7007
            node.1.groups = 1
            node.2.groups = 1
            node.3.groups = 1
            node.4.groups = 2
            node.5.groups = 2
            node.6.groups = 2
            ring.1.acceptors = 1,2,3
            ring.2.acceptors = 4,5,6
            ring.0.acceptors = 1,4,5
            ring.all = 0
            group.1.ring = 1
            group.2.ring = 2
            timeout.heartbeatMillis = 50
            timeout.suspectMillis = 500
            timeout.retransmitMillis = 100
            """;

    private static final class Sent implements Output {
        final List<Integer> to = new ArrayList<>();
        final List<byte[]> messages = new ArrayList<>();

        @Override
        public void send(int toNodeId, byte[] message) {
            to.add(toNodeId);
            messages.add(message);
        }

        @Override
        public void deliver(Delivery delivery) {
        }

        @Override
        public void ordered(long proposalSeq) {
        }

        @Override
        public void direct(int fromNodeId, byte[] appMessage) {
        }
    }

    private static NodeProtocol node(ClusterConfig config, int id, long now) {
        Map<Integer, AcceptorLog> logs = new TreeMap<>();
        for (int r : config.ringsAcceptedBy(id)) {
            logs.put(r, new MemoryAcceptorLog(1000));
        }
        return new NodeProtocol(config, id, 1, logs, null, now);
    }

    @Test
    void heartbeatsGoOnlyToMembersOfSharedRings() {
        ClusterConfig config = ClusterConfig.parse(CLUSTER, "idle-cost");
        assertArrayEquals(new int[] {1, 3, 4, 5}, NodeProtocol.heartbeatPeers(config, 2),
                "a partition-1 replica: its ring's acceptors and the ALL ring's acceptors");
        assertArrayEquals(new int[] {2, 3, 4, 5, 6}, NodeProtocol.heartbeatPeers(config, 1),
                "an ALL-ring acceptor: its rings' acceptors and every ALL-ring learner");
        assertArrayEquals(new int[] {}, NodeProtocol.heartbeatPeers(config, 7),
                "a client node that accepts and learns nothing needs nobody's heartbeats");

        NodeProtocol n = node(config, 2, 0);
        Sent out = new Sent();
        n.onTick(0, out);
        List<Integer> heartbeats = new ArrayList<>();
        for (int i = 0; i < out.to.size(); i++) {
            if (out.messages.get(i)[0] == MessageCodec.HEARTBEAT) {
                heartbeats.add(out.to.get(i));
            }
        }
        assertEquals(List.of(1, 3, 4, 5), heartbeats, "heartbeats sent by node 2 on its first tick");
    }

    @Test
    void anIdleNodeNeedsItsTimersOnlyAtTheNextHeartbeat_aPendingProposalAtItsRetransmission() {
        ClusterConfig config = ClusterConfig.parse(CLUSTER, "idle-cost");
        NodeProtocol client = node(config, 7, 0);
        Sent out = new Sent();
        client.onTick(1000, out);
        assertEquals(1050, client.nextTickMillis(), "idle: the next heartbeat interval (nothing else is due)");

        client.propose(new int[] {2}, new byte[] {42}, 1010, out);
        assertEquals(1050, client.nextTickMillis(), "the heartbeat deadline still comes first");
        client.onTick(1050, out);
        assertEquals(1100, client.nextTickMillis(), "next heartbeat at 1100, before the retransmission at 1110");
        client.onTick(1100, out);
        assertEquals(1110, client.nextTickMillis(), "the proposal made at 1010 is due again at 1110");
    }

    /**
     * ADR 047: with the default parameters a node heartbeats every 100 ms (at 50 ms an idle 4 x 3 cluster
     * sent ~1,800 frames a second; at 100 ms it used a third less CPU), five times per default suspect timeout.
     */
    @Test
    void byDefaultAnIdleNodeHeartbeatsTenTimesASecond() {
        String defaults = CLUSTER.replaceAll("timeout\\.[a-zA-Z]+ = \\d+\n", "");
        ClusterConfig config = ClusterConfig.parse(defaults, "idle-cost-defaults");
        assertEquals(100, config.parameters().heartbeatIntervalMillis());
        assertEquals(500, config.parameters().suspectTimeoutMillis());
        NodeProtocol n = node(config, 2, 0);
        Sent out = new Sent();
        long now = 0;
        while (now < 1000) {
            n.onTick(now, out);
            now = Math.max(now + 1, n.nextTickMillis());
        }
        long toNode1 = 0;
        for (int i = 0; i < out.to.size(); i++) {
            if (out.messages.get(i)[0] == MessageCodec.HEARTBEAT && out.to.get(i) == 1) {
                toNode1++;
            }
        }
        assertEquals(10, toNode1, "heartbeats from node 2 to acceptor 1 in the first second");
    }

    @Test
    void aProposerThatTrustsNoAcceptorTriesThemInTurn() {
        ClusterConfig config = ClusterConfig.parse(CLUSTER, "idle-cost");
        NodeProtocol client = node(config, 7, 0);
        Sent out = new Sent();
        // Long after start and with no heartbeats to hear, the client suspects every acceptor.
        long now = 10_000;
        List<Integer> targets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.to.clear();
            client.propose(new int[] {2}, new byte[] {(byte) i}, now, out);
            targets.add(out.to.get(out.to.size() - 1));
        }
        List<Integer> sorted = new ArrayList<>(targets);
        sorted.sort(null);
        assertEquals(List.of(4, 5, 6), sorted, "proposals to ring 2 should visit each of its acceptors, got " + targets);

        // Hearing from acceptor 5 (an Ordered reply, say) makes it the target.
        byte[] ordered = MessageCodec.encode(new Message.Ordered(2, 99, new long[] {}));
        client.onMessage(5, ByteBuffer.wrap(ordered), now + 1, out);
        out.to.clear();
        client.propose(new int[] {2}, new byte[] {9}, now + 2, out);
        assertEquals(List.of(5), out.to, "the proposal should go to the acceptor heard from");
        assertTrue(Arrays.stream(config.ring(2).acceptors()).anyMatch(a -> a == 5));
    }
}
