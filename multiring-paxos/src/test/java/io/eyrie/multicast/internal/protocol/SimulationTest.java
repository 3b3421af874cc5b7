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
        return runSeed(seed, faults, new Simulation.Coverage());
    }

    static String runSeed(long seed, NodeProtocol.Faults faults, Simulation.Coverage total) {
        return runSeed(seed, faults, total, false);
    }

    static String runSeed(long seed, NodeProtocol.Faults faults, Simulation.Coverage total, boolean amnesia) {
        Simulation sim = new Simulation(seed, faults, false, amnesia);
        try {
            sim.run();
            return null;
        } catch (AssertionError | RuntimeException e) {
            return sim.describe() + "\n  " + e;
        } finally {
            total.add(sim.coverage);
        }
    }

    @Test
    void atomicMulticast_holdsUnderLossDuplicationReorderingCrashesAndPartitions() {
        int seeds = Integer.getInteger("sim.seeds", 2000);
        long first = Long.getLong("sim.firstSeed", 1L);
        List<String> failures = new ArrayList<>();
        Simulation.Coverage coverage = new Simulation.Coverage();
        long started = System.nanoTime();
        for (long seed = first; seed < first + seeds; seed++) {
            // Every third seed, one node loses its logs whenever it restarts (ADR 074).
            String failure = runSeed(seed, NodeProtocol.Faults.NONE, coverage, seed % 3 == 0);
            if (failure != null) {
                failures.add(failure + "\n  replay: " + replay(seed));
                System.err.println("FAILED " + failure + "\n  replay: " + replay(seed));
                if (failures.size() >= 5) {
                    break;
                }
            }
        }
        System.out.printf("simulation: %d seeds from %d in %d ms; %s%n", seeds, first,
                (System.nanoTime() - started) / 1_000_000, coverage);
        assertTrue(failures.isEmpty(), failures.size() + " seed(s) broke an invariant:\n" + String.join("\n", failures));
        if (seeds >= 100) {
            assertTrue(coverage.crashes > 0 && coverage.partitions > 0 && coverage.messagesLost > 0
                    && coverage.messagesDuplicated > 0 && coverage.skips > 0 && coverage.ballotChanges > 0 && coverage.trimmedLogs > 0
                    && coverage.amnesiaRestarts > 0 && coverage.lingeringRuns > 0
                    && coverage.deliveries > coverage.proposals, "the runs should exercise every fault and feature: " + coverage);
        }
    }

    @Test
    void checkerCatchesPlantedBug_acceptorsThatForgetPromises() {
        List<String> safetyFailures = new ArrayList<>();
        for (long seed = 1; seed <= 400 && safetyFailures.isEmpty(); seed++) {
            String failure = runSeed(seed, new NodeProtocol.Faults(true, false));
            if (failure != null && !failure.contains("liveness")) {
                safetyFailures.add(failure);
            }
        }
        assertFalse(safetyFailures.isEmpty(), "with acceptors ignoring their promises, some seed among 1..400 should "
                + "break a safety invariant, but none did: the checker could not fail");
        System.out.println("planted bug caught: " + safetyFailures.get(0));
    }

    /**
     * ADR 074's counterfactual: acceptors that take an empty log at a restart for a new one and vote at
     * once. Some seed must then decide two values for one instance (or deliver differently), else the
     * amnesia seeds of the test above prove nothing about rejoining.
     */
    @Test
    void checkerCatchesPlantedBug_acceptorsThatVoteRightAfterLosingTheirLogs() {
        String caught = null;
        int seeds = Integer.getInteger("sim.amnesiaSeeds", 3000);
        for (long seed = 1; seed <= seeds && caught == null; seed++) {
            String failure = runSeed(seed, new NodeProtocol.Faults(false, false, true), new Simulation.Coverage(), true);
            if (failure != null && !failure.contains("liveness")) {
                caught = failure;
            }
        }
        assertTrue(caught != null, "with acceptors voting right after losing their logs, some seed among 1.." + seeds
                + " should break a safety invariant, but none did: the amnesia seeds could not fail");
        System.out.println("planted bug caught: " + caught);
    }

    @Test
    void checkerCatchesPlantedBug_learnersThatDeliverEveryCopyOfARetransmission() {
        String caught = null;
        for (long seed = 1; seed <= 400 && caught == null; seed++) {
            String failure = runSeed(seed, new NodeProtocol.Faults(false, true));
            if (failure != null && failure.contains("integrity")) {
                caught = failure;
            }
        }
        assertTrue(caught != null, "without dedup at the merge, some seed among 1..400 should deliver a retransmitted "
                + "multicast twice, but none did: the checker could not fail");
        System.out.println("planted bug caught: " + caught);
    }
}
