package io.eyrie.transport.dpdk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The multicast layer's real-process fault scenario on the DPDK transport: three JVMs in three
 * network namespaces, af_packet on veth pairs joined by a bridge, durable storage, steady load;
 * the coordinator is killed with SIGKILL and restarted, then an acceptor. Nothing acknowledged may
 * be lost, duplicated or delivered at different positions.
 */
class NetnsFaultTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void killingTheCoordinatorThenAnAcceptorLosesNothingAcknowledged(@TempDir Path dir) throws Exception {
        assumeTrue(Boolean.getBoolean("dpdk.tests"), "DPDK tests need -P dpdk");
        assumeTrue(NetnsLan.available(), "needs root and ip netns");
        try (NetnsLan lan = new NetnsLan(DpdkNodeCluster.NODES);
             DpdkNodeCluster c = new DpdkNodeCluster(dir, n -> NetnsLan.afPacket(""), lan::prefix,
                     List.of("--rate", "150", "--window", "8", "--bytes", "200"), "durable")) {
            c.startAll();
            awaitDeliveries(c, 3, 150, "initial load");

            // Node 1 is the first acceptor of every ring, hence the coordinator of all three.
            c.kill(1);
            awaitDeliveries(c, 2, c.deliveredBy(2) + 150, "node 2 after the coordinator was killed");
            awaitDeliveries(c, 3, c.deliveredBy(3) + 150, "node 3 after the coordinator was killed");
            c.start(1);
            awaitDeliveries(c, 1, 100, "restarted node 1 catching up");

            c.kill(2);
            awaitDeliveries(c, 3, c.deliveredBy(3) + 150, "node 3 after acceptor 2 was killed");
            c.start(2);
            awaitDeliveries(c, 2, 100, "restarted node 2 catching up");

            c.stopLoad();
            Map<String, int[]> acked = c.acked();
            assertTrue(acked.size() > 300, "expected a real load, got " + acked.size() + " acknowledged multicasts");
            await(() -> missingSomewhere(c, acked).isEmpty(), 60,
                    () -> "acknowledged multicasts missing: " + missingSomewhere(c, acked) + "\n" + c.output());
            for (int n = 1; n <= DpdkNodeCluster.NODES; n++) {
                assertEquals(List.of(), c.duplicateDeliveries(n), "node " + n + " delivered a payload twice in one run");
            }
            assertEquals(List.of(), c.positionConflicts(), "payloads delivered at different positions");
        }
    }

    private static String missingSomewhere(DpdkNodeCluster c, Map<String, int[]> acked) {
        try {
            Map<Integer, Map<String, String>> d = c.deliveries();
            StringBuilder b = new StringBuilder();
            for (int n = 1; n <= DpdkNodeCluster.NODES; n++) {
                List<String> m = c.missing(acked, d.get(n), DpdkNodeCluster.groupsOf(n));
                if (!m.isEmpty()) {
                    b.append("node ").append(n).append(": ").append(m.size()).append(" e.g. ")
                            .append(m.subList(0, Math.min(5, m.size()))).append("; ");
                }
            }
            return b.toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void awaitDeliveries(DpdkNodeCluster c, int node, int atLeast, String what) throws Exception {
        await(() -> {
            try {
                return c.deliveredBy(node) >= atLeast;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, 60, () -> what + ": node " + node + " delivered fewer than " + atLeast + "\n" + c.output());
    }

    private static void await(BooleanSupplier condition, int seconds, Supplier<String> message) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(100);
        }
        fail(message.get());
    }
}
