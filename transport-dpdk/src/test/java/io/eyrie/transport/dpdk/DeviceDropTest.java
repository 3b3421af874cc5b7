package io.eyrie.transport.dpdk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The devices of all three nodes discard one in twenty of what they receive; the rings must still deliver
 * every acknowledged multicast to every learner of its groups, once, at the same position everywhere.
 */
class DeviceDropTest {

    static final Pattern INJECTED = Pattern.compile("injectedDrops=(\\d+)");

    @Test
    void ringsDeliverEverythingWhenTheDevicesDropFivePercentOfPackets(@TempDir Path dir) throws Exception {
        assumeTrue(Boolean.getBoolean("dpdk.tests"), "DPDK tests need -P dpdk");
        String lossy = "rx.dropPerMillion = 50000\nstats.logMillis = 500\n";
        try (DpdkNodeCluster c = new DpdkNodeCluster(dir, n -> DpdkNodeCluster.memifMesh(dir, n, lossy), n -> List.of(),
                List.of("--rate", "150", "--window", "16", "--bytes", "3000", "--propose-for-ms", "4000"))) {
            c.startAll();
            Map<String, int[]> acked = Map.of();
            boolean complete = false;
            long deadline = System.nanoTime() + 40_000_000_000L;
            while (!complete && System.nanoTime() < deadline) {
                Thread.sleep(250);
                acked = c.acked();
                Map<Integer, Map<String, String>> d = c.deliveries();
                complete = acked.size() > 300;
                for (int n = 1; n <= DpdkNodeCluster.NODES; n++) {
                    complete &= c.missing(acked, d.get(n), DpdkNodeCluster.groupsOf(n)).isEmpty();
                }
            }
            assertTrue(acked.size() > 300, "expected over 300 acknowledged multicasts in 4 s at 3 x 150/s, got "
                    + acked.size() + "\n" + c.output());
            Map<Integer, Map<String, String>> d = c.deliveries();
            for (int n = 1; n <= DpdkNodeCluster.NODES; n++) {
                List<String> missing = c.missing(acked, d.get(n), DpdkNodeCluster.groupsOf(n));
                assertEquals(List.of(), missing.subList(0, Math.min(10, missing.size())),
                        "node " + n + " misses " + missing.size() + " acknowledged multicasts\n" + c.output());
                assertEquals(List.of(), c.duplicateDeliveries(n), "node " + n + " delivered a payload twice");
            }
            // Node 3 learns both groups: every payload it shares with node 1 or 2 sits at the same position.
            for (int n = 1; n <= 2; n++) {
                for (Map.Entry<String, String> e : d.get(n).entrySet()) {
                    assertEquals(e.getValue(), d.get(3).get(e.getKey()),
                            "position of " + e.getKey() + " at node 3 versus node " + n);
                }
            }
            long injected = 0;
            for (ChildJvm p : c.processes.values()) {
                for (String line : p.lines) {
                    Matcher m = INJECTED.matcher(line);
                    while (m.find()) {
                        injected = Math.max(injected, Long.parseLong(m.group(1)));
                    }
                }
            }
            assertTrue(injected > 100, "the devices should have dropped packets (largest injectedDrops seen: "
                    + injected + ")");
        }
    }
}
