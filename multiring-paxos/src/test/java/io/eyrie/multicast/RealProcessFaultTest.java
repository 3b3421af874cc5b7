package io.eyrie.multicast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Three nodes in separate JVMs on loopback, two group rings plus ALL, durable storage, under a
 * steady load from every node; faults are real: {@code kill -9} and restarts on the same data
 * directory. Nothing acknowledged may be lost or duplicated, and all delivery orders must agree
 * with the global positions.
 */
class RealProcessFaultTest {

    /**
     * A learner restarted from scratch replays everything from the acceptors in catch-up pages, and a
     * new coordinator reads the acceptors' votes in Phase 1 pages. With values near batch.maxBytes a
     * catch-up page of several used to outgrow the transport's frame limit (batch.maxBytes + 64 KiB)
     * and was dropped at every request: the learner never moved again (this test fails so). Phase 1
     * pages have the same bound now; here they hold few large votes, so the takeover passes either way.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void withValuesNearTheBatchLimitARestartedLearnerCatchesUpAndANewCoordinatorTakesOver(@TempDir Path dir) throws Exception {
        // one 200 KB multicast per batch (batch.maxBytes 256 KiB): any two of them exceed a frame
        try (ProcessCluster c = new ProcessCluster(dir, "durable",
                List.of("--rate", "15", "--window", "4", "--bytes", "200000"), "batch.maxBytes = 262144\n")) {
            for (int n = 1; n <= 3; n++) {
                c.start(n);
            }
            awaitDeliveries(c, 3, 60, "initial load");
            c.kill9(3);
            awaitDeliveries(c, 1, c.deliveredBy(1) + 40, "node 1 while node 3 is down");
            c.start(3);
            awaitCaughtUp(c, 3);
            // The coordinator's death: node 2 takes the rings over with Phase 1, whose pages carry the
            // acceptors' large votes and must fit a frame as well.
            c.kill9(1);
            awaitDeliveries(c, 2, c.deliveredBy(2) + 40, "node 2 after the coordinator was killed");
            awaitDeliveries(c, 3, c.deliveredBy(3) + 40, "node 3 after the coordinator was killed");
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void killCoordinatorThenAcceptorThenLearnerThenAll_nothingAcknowledgedLostOrDuplicated(@TempDir Path dir) throws Exception {
        try (ProcessCluster c = new ProcessCluster(dir, "durable", List.of("--rate", "150", "--window", "8", "--bytes", "200"))) {
            for (int n = 1; n <= 3; n++) {
                c.start(n);
            }
            awaitDeliveries(c, 3, 150, "initial load");

            // Node 1 is the first acceptor of every ring, hence the coordinator of all three.
            c.kill9(1);
            awaitDeliveries(c, 2, c.deliveredBy(2) + 150, "node 2 after the coordinator was killed");
            awaitDeliveries(c, 3, c.deliveredBy(3) + 150, "node 3 after the coordinator was killed");
            c.start(1);
            awaitCaughtUp(c, 1);

            c.kill9(2);
            awaitDeliveries(c, 3, c.deliveredBy(3) + 150, "node 3 after acceptor 2 was killed");
            c.start(2);
            awaitCaughtUp(c, 2);

            c.kill9(3);
            awaitDeliveries(c, 1, c.deliveredBy(1) + 100, "node 1 after learner 3 was killed");
            c.start(3);
            awaitCaughtUp(c, 3);

            // Every process at once: only what the acceptors made durable survives.
            for (int n = 1; n <= 3; n++) {
                c.kill9(n);
            }
            for (int n = 1; n <= 3; n++) {
                c.start(n);
            }
            awaitDeliveries(c, 3, 100, "node 3 after the whole cluster was killed and restarted");

            c.stopLoad();
            Map<String, int[]> acked = c.acked();
            assertTrue(acked.size() > 500, "expected a real load, got " + acked.size() + " acknowledged multicasts");
            // Every acknowledged multicast reaches every live addressee (each restarted from scratch).
            await(() -> missing(c, acked(c)).isEmpty(), 60,
                    () -> "acknowledged multicasts missing: " + summary(missing(c, acked(c))) + "\n" + outputs(c));
            checkLogs(c);
        }
    }

    /**
     * ADR 074: an in-memory acceptor killed with kill -9 comes back with nothing. It must not vote as if
     * it had promised nothing before; it reads the other acceptors and promises above them first, then
     * votes again. Node 2 is killed and restarted and must say it rejoined every ring; then node 1, the
     * coordinator, is killed: the rings go on only with node 2's votes (two of three acceptors). Nothing
     * acknowledged may be lost or duplicated. (That voting at once can decide two values for an instance
     * is shown by SimulationTest's planted fault, which no run of real processes could show reliably.)
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void inMemoryAcceptorKilledAndRestarted_rejoinsAndVotesAgain(@TempDir Path dir) throws Exception {
        try (ProcessCluster c = new ProcessCluster(dir, "memory", List.of("--rate", "150", "--window", "8", "--bytes", "200"))) {
            for (int n = 1; n <= 3; n++) {
                c.start(n);
            }
            awaitDeliveries(c, 3, 150, "initial load");

            c.kill9(2);
            awaitDeliveries(c, 3, c.deliveredBy(3) + 150, "node 3 after acceptor 2 was killed");
            int before = count(c.wholeOutput(2), "acceptor rejoined");
            c.start(2);
            await(() -> {
                try {
                    return count(c.wholeOutput(2), "acceptor rejoined") >= before + 3;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, 60, () -> "node 2 did not rejoin its three rings\n" + outputs(c));
            awaitCaughtUp(c, 2);

            // Node 1 coordinates every ring; without it, a quorum needs node 2's votes.
            c.kill9(1);
            awaitDeliveries(c, 3, c.deliveredBy(3) + 150, "node 3 after the coordinator was killed (node 2 must vote)");
            awaitDeliveries(c, 2, c.deliveredBy(2) + 150, "node 2 after the coordinator was killed");

            c.stopLoad();
            // The live nodes: 2 (restarted from nothing) and 3.
            await(() -> missingAt(c, acked(c), 2, 3).isEmpty(), 60,
                    () -> "acknowledged multicasts missing: " + summary(missingAt(c, acked(c), 2, 3)) + "\n" + outputs(c));
            checkLogs(c);
        }
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static Map<String, int[]> acked(ProcessCluster c) {
        try {
            return c.acked();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Map<Integer, List<String>> missing(ProcessCluster c, Map<String, int[]> acked) {
        return missingAt(c, acked, 1, 2, 3);
    }

    /** What each of {@code nodes} (running) has not delivered of the acknowledged multicasts addressed to it. */
    private static Map<Integer, List<String>> missingAt(ProcessCluster c, Map<String, int[]> acked, int... nodes) {
        Map<Integer, List<String>> missing = new HashMap<>();
        try {
            for (int node : nodes) {
                List<String> ids = new ArrayList<>();
                c.deliveriesRaw(c.pid(node), node, ids);
                Set<String> delivered = new HashSet<>(ids);
                int[] mine = c.groupsOfNode.get(node);
                for (Map.Entry<String, int[]> e : acked.entrySet()) {
                    if (intersects(mine, e.getValue()) && !delivered.contains(e.getKey())) {
                        missing.computeIfAbsent(node, k -> new ArrayList<>()).add(e.getKey());
                    }
                }
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        return missing;
    }

    /** Integrity and order: per log no duplicates, positions increasing; across logs one position per message. */
    private static void checkLogs(ProcessCluster c) throws IOException {
        Map<String, Long> positionOf = new HashMap<>();
        Map<String, String> firstSeenIn = new HashMap<>();
        Map<String, int[]> acked = c.acked();
        for (Map.Entry<String, ProcessCluster.Log> e : c.deliveryLogs().entrySet()) {
            ProcessCluster.Log log = e.getValue();
            Set<String> seen = new HashSet<>();
            long last = Long.MIN_VALUE;
            for (int i = 0; i < log.ids().size(); i++) {
                String id = log.ids().get(i);
                long pos = log.positions()[i];
                assertTrue(seen.add(id), e.getKey() + ": " + id + " delivered twice");
                assertTrue(pos > last, e.getKey() + ": position " + Position.toString(pos) + " of " + id
                        + " not above the previous " + Position.toString(last));
                last = pos;
                Long other = positionOf.putIfAbsent(id, pos);
                if (other != null) {
                    assertEquals(other.longValue(), pos, id + " at different positions in " + firstSeenIn.get(id) + " and " + e.getKey());
                } else {
                    firstSeenIn.put(id, e.getKey());
                }
                int[] groups = acked.get(id);
                if (groups != null) {
                    assertTrue(intersects(c.groupsOfNode.get(log.node()), groups),
                            e.getKey() + ": " + id + " delivered to a node outside its groups");
                }
                assertTrue(id.matches("n[123]-p\\d+-\\d+"), e.getKey() + ": delivered something never multicast: " + id);
            }
        }
    }

    private static boolean intersects(int[] a, int[] b) {
        for (int x : a) {
            for (int y : b) {
                if (x == y) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void awaitDeliveries(ProcessCluster c, int node, int atLeast, String what) throws Exception {
        await(() -> {
            try {
                return c.deliveredBy(node) >= atLeast;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, 60, () -> what + ": node " + node + " delivered fewer than " + atLeast + "\n" + outputs(c));
    }

    /** A restarted learner replays from the acceptors until it has what a peer had when it came back. */
    private static void awaitCaughtUp(ProcessCluster c, int node) throws Exception {
        int peer = node == 3 ? 1 : 3;
        int target = c.deliveredBy(peer) * c.groupsOfNode.get(node).length / c.groupsOfNode.get(peer).length / 2;
        awaitDeliveries(c, node, Math.max(target, 100), "restarted node " + node + " catching up");
    }

    private static void await(BooleanSupplier condition, int seconds, java.util.function.Supplier<String> message)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(100);
        }
        fail(message.get());
    }

    private static String summary(Map<Integer, List<String>> missing) {
        StringBuilder b = new StringBuilder();
        missing.forEach((node, ids) -> b.append("node ").append(node).append(": ").append(ids.size())
                .append(" e.g. ").append(ids.subList(0, Math.min(5, ids.size()))).append("; "));
        return b.toString();
    }

    private static String outputs(ProcessCluster c) {
        StringBuilder b = new StringBuilder();
        for (int n = 1; n <= 3; n++) {
            b.append("--- node ").append(n).append(" output tail ---\n").append(c.output(n)).append('\n');
        }
        return b.toString();
    }
}
