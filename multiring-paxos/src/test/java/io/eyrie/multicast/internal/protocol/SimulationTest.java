package io.eyrie.multicast.internal.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deterministic simulation of whole clusters under faults, one seed each. A failing seed prints
 * the command that replays it.
 */
class SimulationTest {

    static String replay(long seed) {
        return "mvn -pl multiring-paxos test -Dtest=SimulationTest -Dsim.firstSeed=" + seed + " -Dsim.seeds=1";
    }

    /** Runs one seed; null if every invariant held, else what broke. */
    static String runSeed(long seed, NodeProtocol.Faults faults) {
        Simulation sim = new Simulation(seed, faults, false);
        try {
            sim.run();
            return null;
        } catch (AssertionError | RuntimeException e) {
            return sim.describe() + "\n  " + e;
        }
    }

    @Test
    void atomicMulticast_holdsUnderLossDuplicationReorderingCrashesAndPartitions() {
        int seeds = Integer.getInteger("sim.seeds", 2000);
        long first = Long.getLong("sim.firstSeed", 1L);
        List<String> failures = new ArrayList<>();
        long started = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            String failure = runSeed(seed, NodeProtocol.Faults.NONE);
            if (failure != null) {
                failures.add(failure + "\n  replay: " + replay(seed));
                System.err.println("FAILED " + failure + "\n  replay: " + replay(seed));
                if (failures.size() >= 5) {
                    break;
                }
            }
        }
        System.out.printf("simulation: %d seeds from %d in %d ms%n", seeds, first, (System.nanoTime() - started) / 1_000_000);
        assertTrue(failures.isEmpty(), failures.size() + " seed(s) broke an invariant:\n" + String.join("\n", failures));
    }

    @Test
    void checkerCatchesPlantedBug_acceptorsThatForgetPromises() {
        List<String> safetyFailures = new ArrayList<>();
        for (long seed = 1; seed <= 400 && safetyFailures.isEmpty(); seed++) {
            String failure = runSeed(seed, new NodeProtocol.Faults(true));
            if (failure != null && !failure.contains("liveness")) {
                safetyFailures.add(failure);
            }
        }
        assertFalse(safetyFailures.isEmpty(), "with acceptors ignoring their promises, some seed among 1..400 should "
                + "break a safety invariant, but none did: the checker could not fail");
        System.out.println("planted bug caught: " + safetyFailures.get(0));
    }
}
