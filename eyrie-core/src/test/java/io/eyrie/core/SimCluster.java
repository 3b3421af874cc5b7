package io.eyrie.core;

import io.eyrie.core.internal.ReplicaRuntime;
import io.eyrie.core.internal.ReplicaStats;
import io.eyrie.core.sim.SimulatedMulticast;
import io.eyrie.multicast.MulticastEndpoint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.fail;

/** Replicas and clients of a test, all on one {@link SimulatedMulticast}. */
final class SimCluster implements AutoCloseable {

    final SimulatedMulticast sim;
    private final Function<MulticastEndpoint, StateMachine> factory;
    private final Consumer<StateMachine> configure;
    private final Map<Integer, StateMachine> replicas = new TreeMap<>();
    private final List<EyrieClient> clients = new ArrayList<>();

    SimCluster(int partitions, int replicasPerPartition, int clientCount, long seed,
               Function<MulticastEndpoint, StateMachine> factory, Consumer<StateMachine> configure) {
        this.sim = new SimulatedMulticast(SimulatedMulticast.cluster(partitions, replicasPerPartition, clientCount), seed);
        this.factory = factory;
        this.configure = configure;
        for (int p = 1; p <= partitions; p++) {
            for (int node : sim.replicasOf(p)) {
                startReplica(node);
            }
        }
    }

    SimCluster withClients(PartitioningOracle oracle, int window, long retryMillis) {
        for (int node : sim.clients()) {
            clients.add(new EyrieClient(sim.endpoint(node), oracle, window, retryMillis));
        }
        return this;
    }

    StateMachine startReplica(int node) {
        StateMachine m = factory.apply(sim.endpoint(node));
        configure.accept(m);
        m.runStateMachine();
        replicas.put(node, m);
        return m;
    }

    /** Stops the replica's execution and its endpoint; its log stays with the simulated acceptors. */
    void crash(int node) {
        StateMachine m = replicas.remove(node);
        if (m != null) {
            m.close();
        }
        sim.crash(node);
    }

    @SuppressWarnings("unchecked")
    <T extends StateMachine> T replica(int node) {
        return (T) replicas.get(node);
    }

    Map<Integer, StateMachine> replicas() {
        return replicas;
    }

    ReplicaRuntime runtime(int node) {
        return replicas.get(node).runtime();
    }

    ReplicaStats stats(int node) {
        return runtime(node).stats();
    }

    long total(java.util.function.ToLongFunction<ReplicaStats> counter) {
        return replicas.keySet().stream().mapToLong(n -> counter.applyAsLong(stats(n))).sum();
    }

    EyrieClient client(int i) {
        return clients.get(i);
    }

    List<EyrieClient> clients() {
        return clients;
    }

    /**
     * Waits until every live replica has executed every command addressed to it (or skipped it, being
     * covered by a state image: then its last position can reach the last delivery before its queue is empty).
     */
    void awaitQuiescent() {
        awaitTrue("every replica executes every delivered command", () -> replicas.entrySet().stream().allMatch(e ->
                sim.caughtUp(e.getKey()) && e.getValue().runtime().lastPosition() == lastDelivered(e.getKey())
                        && e.getValue().runtime().deliveriesWaiting() == 0));
    }

    private long lastDelivered(int node) {
        List<Long> d = sim.delivered(node);
        return d.isEmpty() ? io.eyrie.multicast.Position.NONE : d.get(d.size() - 1);
    }

    void assertNoReplicaFailed() {
        replicas.forEach((node, m) -> {
            if (m.runtime().failure() != null) {
                fail("replica " + node + " stopped with " + m.runtime().failure());
            }
        });
    }

    static void awaitTrue(String what, BooleanSupplier condition) {
        awaitTrue(what, condition, Duration.ofSeconds(30));
    }

    static void awaitTrue(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + timeout + " waiting until " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(1); // polling a condition that has no event to wait on; bounded by the timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting until " + what);
            }
        }
    }

    @Override
    public void close() {
        clients.forEach(EyrieClient::close);
        replicas.values().forEach(StateMachine::close);
        sim.close();
    }
}
