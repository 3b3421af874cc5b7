package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;
import io.eyrie.core.internal.Wire;
import io.eyrie.multicast.MulticastEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients leave the replicas' reply tables (ADR 058): a closing client retires itself, a node's next
 * client retires the one before it, and a late copy of a retired client's command is refused, not run.
 */
class ClientRetireTest {

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private SimCluster start() {
        cluster = new SimCluster(2, 3, 2, 1, RegisterMachine::new, m -> m.setExchangeTimeoutMillis(50));
        return cluster;
    }

    private long replyClients() {
        return cluster.total(s -> s.replyTableClients.get());
    }

    /** Delivers one more command everywhere, so that every replica's gauge is read after the retires. */
    private void settle(EyrieClient other) throws Exception {
        other.executeAsync(new Command("sum", "x1", "y2")).get(30, TimeUnit.SECONDS);
        cluster.awaitQuiescent();
    }

    @Test
    void aClosedClientLeavesNoEntryInAnyReplysTable() throws Exception {
        start();
        RegisterMachine.Oracle oracle = new RegisterMachine.Oracle();
        EyrieClient other = new EyrieClient(cluster.sim.endpoint(cluster.sim.clients()[1]), oracle, 4, 60_000);
        settle(other);
        long before = replyClients();
        EyrieClient client = new EyrieClient(cluster.sim.endpoint(cluster.sim.clients()[0]), oracle, 4, 60_000);
        for (int i = 0; i < 3; i++) {
            client.executeAsync(new Command("add", "x1", 1)).get(30, TimeUnit.SECONDS);
            client.executeAsync(new Command("add", "y2", 1)).get(30, TimeUnit.SECONDS);
            client.executeAsync(new Command("sum", "x1", "y2")).get(30, TimeUnit.SECONDS);
        }
        settle(other);
        // partition 1's three replicas hold it under {1} and {1,2}, partition 2's under {2} and {1,2}
        assertEquals(before + 12, replyClients(), "the client's entries, per destination set, at six replicas");
        client.close();
        settle(other);
        assertEquals(before, replyClients(), "closing took the client's entries out of every table");
        assertEquals(12, cluster.total(s -> s.clientsRetired.get()), "three retires, each run by its set's replicas");
        other.close();
    }

    @Test
    void aLateCopyOfARetiredClientsCommandIsRefusedNotRun() throws Exception {
        start();
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[0]);
        List<Wire.Reply> replies = listen(raw);
        long clientId = ((long) raw.nodeId() << 32) | 11;
        byte[] add = Wire.encode(new Wire.Request(clientId, 1, 1, KryoCodec.encode(new Command("add", "x1", 5))));
        step(raw, replies, new int[] {1}, add);
        step(raw, replies, new int[] {1}, Wire.encode(new Wire.Request(clientId, 2, 1, Wire.Request.EVERY_REPLICA,
                new byte[0], Wire.Request.RETIRE)));
        raw.multicast(new int[] {1}, add); // a retry that the ring ordered after the client left
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("three replies from each of three replicas", () -> count(replies) == 9);
        for (int node : cluster.sim.replicasOf(1)) {
            assertEquals(5, ((RegisterMachine) cluster.replica(node)).valueOf("x1"), "replica " + node + " ran the add twice");
        }
        assertEquals(3, cluster.total(s -> s.retiredRefused.get()));
        synchronized (replies) {
            assertEquals(3, replies.stream().filter(r -> r.seq() == 1 && !r.ok()).count(), "the copy is refused");
            assertTrue(replies.stream().filter(r -> !r.ok())
                    .allMatch(r -> new String(r.body()).contains("has retired")), "and the refusal says why");
        }
    }

    @Test
    void aNodesNextClientRetiresTheOneBeforeItEverywhereAndAnOlderOneRetiresNothing() throws Exception {
        start();
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[0]);
        List<Wire.Reply> replies = listen(raw);
        long node = (long) raw.nodeId() << 32;
        long first = node | 21;
        long second = node | 22;
        long stale = node | 23;
        // one step at a time: requests in different rings have no order of their own
        step(raw, replies, new int[] {1, 2}, retireNode(first, 1, 1_000));
        step(raw, replies, new int[] {1}, command(first, 2, new Command("add", "x1", 1)));
        step(raw, replies, new int[] {1, 2}, command(first, 3, new Command("sum", "x1", "y2")));
        step(raw, replies, new int[] {1, 2}, retireNode(second, 1, 2_000)); // the node restarted
        step(raw, replies, new int[] {1, 2}, command(first, 4, new Command("sum", "x1", "y2")));
        step(raw, replies, new int[] {1}, command(first, 5, new Command("add", "x1", 100)));
        step(raw, replies, new int[] {1, 2}, retireNode(stale, 1, 1_500)); // a late retire of a client that died earlier
        step(raw, replies, new int[] {1}, command(second, 2, new Command("add", "x1", 10)));
        step(raw, replies, new int[] {1}, command(stale, 2, new Command("add", "x1", 1000)));
        cluster.awaitQuiescent();
        for (int n : cluster.sim.replicasOf(1)) {
            assertEquals(1011, ((RegisterMachine) cluster.replica(n)).valueOf("x1"),
                    "replica " + n + ": the retired client's add must not run, the live ones' must");
        }
        // seq 4 goes to both partitions: each of the six replicas refuses it; seq 5 to three
        assertEquals(9, cluster.total(s -> s.retiredRefused.get()));
        assertEquals(6, cluster.total(s -> s.clientsRetired.get()), "the second retire, at six replicas; the stale one none");
        cluster.assertNoReplicaFailed();
        SimCluster.awaitTrue("the refusals reach the node", () -> {
            synchronized (replies) {
                return replies.stream().filter(r -> r.clientId() == first && !r.ok()).count() == 9;
            }
        });
    }

    @Test
    void aNodesRetireThatDoesNotReachEveryPartitionIsRefused() throws Exception {
        start();
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[0]);
        List<Wire.Reply> replies = listen(raw);
        long node = (long) raw.nodeId() << 32;
        step(raw, replies, new int[] {1, 2}, retireNode(node | 31, 1, 1_000));
        step(raw, replies, new int[] {1}, command(node | 31, 2, new Command("add", "x1", 1)));
        step(raw, replies, new int[] {1}, retireNode(node | 32, 1, 2_000)); // only partition 1: it would part them
        step(raw, replies, new int[] {1}, command(node | 31, 3, new Command("add", "x1", 1)));
        cluster.awaitQuiescent();
        for (int n : cluster.sim.replicasOf(1)) {
            assertEquals(2, ((RegisterMachine) cluster.replica(n)).valueOf("x1"), "the first client is still live");
        }
        SimCluster.awaitTrue("three refusals of the partial retire", () -> {
            synchronized (replies) {
                return replies.stream().filter(r -> r.clientId() == (node | 32) && !r.ok()
                        && new String(r.body()).contains("every partition")).count() == 3;
            }
        });
    }

    @Test
    void aClientsRetireOfItsNodeTakesTheEarlierClientsCommandsAway() throws Exception {
        start();
        RegisterMachine.Oracle oracle = new RegisterMachine.Oracle();
        MulticastEndpoint endpoint = cluster.sim.endpoint(cluster.sim.clients()[0]);
        EyrieClient earlier = new EyrieClient(endpoint, oracle, 4, 60_000);
        assertEquals("nothing to retire", earlier.retireEarlierIncarnations().get(30, TimeUnit.SECONDS));
        earlier.executeAsync(new Command("add", "x1", 1)).get(30, TimeUnit.SECONDS);
        earlier.executeAsync(new Command("sum", "x1", "y2")).get(30, TimeUnit.SECONDS);
        Thread.sleep(5); // the later client's clock must read later
        EyrieClient later = new EyrieClient(endpoint, oracle, 4, 60_000);
        Object outcome = later.retireEarlierIncarnations().get(30, TimeUnit.SECONDS);
        assertTrue(String.valueOf(outcome).startsWith("retired "), "outcome: " + outcome);
        // the retire completes at the first replica's answer (maybe partition 2's); the next add goes through
        // partition 1's own ring, which may merge it before the retire there unless every replica has it
        cluster.awaitQuiescent();
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> earlier.executeAsync(new Command("add", "x1", 1)).get(30, TimeUnit.SECONDS));
        assertTrue(refused.getCause().getMessage().contains("has retired"), refused.getCause().getMessage());
        assertEquals(2, later.executeAsync(new Command("add", "x1", 1)).get(30, TimeUnit.SECONDS));
        earlier.close(0);
        later.close(0);
    }

    /**
     * A client that dies without closing (ADR 062): once its set delivered the idle bound of other commands,
     * every replica of the set drops its entry alike; a late copy of its command that ran is refused, not run
     * again; a new command of it runs.
     */
    @Test
    void anIdleClientsEntryGoesEverywhereItsLateCopyIsRefusedAndItsNewCommandRuns() throws Exception {
        cluster = new SimCluster(2, 3, 2, 1, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setReplyIdleDeliveries(4096);
        });
        MulticastEndpoint raw = cluster.sim.endpoint(cluster.sim.clients()[0]);
        List<Wire.Reply> replies = listen(raw);
        long idle = ((long) raw.nodeId() << 32) | 41;
        byte[] add = command(idle, 1, new Command("add", "x1", 5));
        step(raw, replies, new int[] {1}, add);
        EyrieClient busy = new EyrieClient(cluster.sim.endpoint(cluster.sim.clients()[1]), new RegisterMachine.Oracle(),
                64, 60_000);
        List<CompletableFuture<Object>> pending = new ArrayList<>();
        for (int i = 0; i < 2 * 4096 + 16; i++) {
            pending.add(busy.executeAsync(new Command("add", "x1", 0)));
            if (pending.size() == 64) {
                for (CompletableFuture<Object> f : pending) {
                    f.get(60, TimeUnit.SECONDS);
                }
                pending.clear();
            }
        }
        for (CompletableFuture<Object> f : pending) {
            f.get(60, TimeUnit.SECONDS);
        }
        cluster.awaitQuiescent();
        assertEquals(3, cluster.total(s -> s.clientsExpired.get()), "partition 1's three replicas dropped the idle client");
        raw.multicast(new int[] {1}, add); // its retry, ordered long after
        cluster.awaitQuiescent();
        SimCluster.awaitTrue("three refusals", () -> {
            synchronized (replies) {
                return replies.stream().filter(r -> r.clientId() == idle && !r.ok()
                        && new String(r.body()).contains("idle past")).count() == 3;
            }
        });
        assertEquals(3, cluster.total(s -> s.expiredRefused.get()));
        step(raw, replies, new int[] {1}, command(idle, 2, new Command("add", "x1", 1)));
        for (int n : cluster.sim.replicasOf(1)) {
            assertEquals(6, ((RegisterMachine) cluster.replica(n)).valueOf("x1"),
                    "replica " + n + ": the add ran once, the new command ran");
        }
        cluster.assertNoReplicaFailed();
        busy.close(0);
    }

    /** Multicasts {@code request} and waits for every replica of its destinations to answer it. */
    private static void step(MulticastEndpoint raw, List<Wire.Reply> replies, int[] groups, byte[] request) {
        Wire.Request r = Wire.decodeRequest(request);
        int before = answers(replies, r);
        raw.multicast(groups, request);
        SimCluster.awaitTrue("every replica answers " + r.name(), () -> answers(replies, r) == before + 3 * groups.length);
    }

    private static int answers(List<Wire.Reply> replies, Wire.Request r) {
        synchronized (replies) {
            return (int) replies.stream().filter(x -> x.clientId() == r.clientId() && x.seq() == r.seq()).count();
        }
    }

    private static byte[] command(long clientId, long seq, Command c) {
        return Wire.encode(new Wire.Request(clientId, seq, seq, KryoCodec.encode(c)));
    }

    private static byte[] retireNode(long clientId, long seq, long startedMillis) {
        return Wire.encode(new Wire.Request(clientId, seq, seq, Wire.Request.EVERY_REPLICA,
                ByteBuffer.allocate(8).putLong(startedMillis).array(), Wire.Request.RETIRE_NODE));
    }

    private static List<Wire.Reply> listen(MulticastEndpoint raw) {
        List<Wire.Reply> replies = new ArrayList<>();
        raw.onDirect((from, message) -> {
            if (Wire.isReply(message)) {
                synchronized (replies) {
                    replies.add((Wire.Reply) Wire.decodeDirect(message));
                }
            }
        });
        return replies;
    }

    private static int count(List<Wire.Reply> replies) {
        synchronized (replies) {
            return replies.size();
        }
    }
}
