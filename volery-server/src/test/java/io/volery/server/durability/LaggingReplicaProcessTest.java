package io.volery.server.durability;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The Jepsen kill nemesis's liveness bug (issues #3/#5/#7): a replica killed with kill -9 and
 * restarted after the other partition has executed more cross-partition commands than it keeps
 * exchanges for cannot replay them. It must catch up by taking a peer's state, then serve reads of
 * the latest writes, with the same state as its peers. The other partition keeps up to 16 times
 * {@code eyrie.sentPositionsMax} exchanges while the victim's partition has not reported finishing
 * them durably (ADR 049; without snapshots it never does): the victim misses more than that.
 */
class LaggingReplicaProcessTest {

    /** Exchanges each replica keeps (16 times as many while its partition still needs them). */
    private static final int WINDOW = 8;
    /** Top-level creates while the victim is down: more than the other partition keeps at most. */
    private static final int MISSED = 20 * WINDOW;

    @Test
    void aReplicaKilledDuringLoadAndRestartedBeyondTheExchangeWindowCatchesUpByStateTransfer(@TempDir Path dir)
            throws Exception {
        // no snapshot before the kill: the victim replays from the start of the acceptor logs
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 100_000,
                "eyrie.sentPositionsMax = " + WINDOW + "\n")) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> loadFailure = new AtomicReference<>();
            Thread load = new Thread(() -> {
                try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(1) + "," + cluster.connectString(4))) {
                    while (!stop.get()) {
                        writes.writeOne(zk);
                    }
                } catch (Throwable t) {
                    loadFailure.set(t);
                }
            }, "load");
            load.start();
            int victim = 3;
            try {
                awaitMoreAcknowledged(writes, 20);
                cluster.kill(victim);
                // top-level creates are ordered at every partition; those of nodes partition 2 owns send
                // partition 2's part to the victim's partition, which owns the root (ADR 053)
                try (ZooKeeper zk = cluster.session(2)) {
                    for (int i = 0; i < MISSED; i++) {
                        zk.create(lagged(i), bytes(i), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    }
                }
                cluster.start(victim);
                awaitMoreAcknowledged(writes, 20);
            } finally {
                stop.set(true);
                load.join(60_000);
            }
            assertNull(loadFailure.get(), "the load thread failed: " + loadFailure.get());
            ProcessCluster.await("node " + victim + " reports a state transfer in mntr", 60_000,
                    () -> stateTransfers(cluster, victim) >= 1);

            try (ZooKeeper reader = cluster.session(victim)) {
                assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, read through node " + victim);
                int last = MISSED - 1;
                assertArrayEquals(bytes(last), reader.getData(lagged(last), false, null),
                        "the last top-level znode written while node " + victim + " was down, read through it");
                reader.create("/after-catch-up", bytes(1), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            cluster.assertReplicasAgree(1);
            cluster.assertReplicasAgree(2);
        }
    }

    private static long stateTransfers(ProcessCluster cluster, int id) {
        try {
            return Long.parseLong(cluster.mntr(id).getOrDefault("volery_state_transfers", "0"));
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    /** The i-th top-level path partition 2 owns ("/lag-N"). */
    private static String lagged(int i) {
        io.volery.server.internal.PathPartitioner partitioner = new io.volery.server.internal.PathPartitioner(new int[] {1, 2});
        int found = -1;
        for (int n = 0; ; n++) {
            if (partitioner.ownerOf("/lag-" + n) == 2 && ++found == i) {
                return "/lag-" + n;
            }
        }
    }

    private static byte[] bytes(int i) {
        return ("v" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static void awaitMoreAcknowledged(AcknowledgedWrites writes, int more) throws InterruptedException {
        long target = writes.acknowledged() + more;
        ProcessCluster.await(more + " more writes acknowledged (at " + writes.acknowledged() + ", failed "
                + writes.failed() + ")", 60_000, () -> writes.acknowledged() >= target);
    }
}
