package io.volery.bench;

import java.util.SplittableRandom;

/**
 * Draws each client's next request from the workload's mix. One chooser per client thread, seeded,
 * so a run's sequence of choices is reproducible.
 */
final class OperationChooser {

    /** What the next window slot is used for. */
    enum Choice { SET_DATA, GET_DATA, CREATE_DELETE_PAIR }

    private final Workload workload;
    private final double pairProbability;
    private final SplittableRandom random;

    OperationChooser(Workload workload, int globalPercent, long seed) {
        this.workload = workload;
        this.pairProbability = pairProbability(globalPercent);
        this.random = new SplittableRandom(seed);
    }

    /**
     * A pair is two requests and a local command one, so starting a pair with probability
     * q = p / (2 - p) makes the share of create/delete requests exactly p: 2q / (2q + 1 - q) = p.
     */
    static double pairProbability(int globalPercent) {
        double p = globalPercent / 100.0;
        return p / (2.0 - p);
    }

    Choice next() {
        return switch (workload) {
            case SETDATA -> Choice.SET_DATA;
            case GETDATA -> Choice.GET_DATA;
            case MIXED_READ90 -> random.nextInt(10) == 0 ? Choice.SET_DATA : Choice.GET_DATA;
            case CREATEDELETE -> pairProbability > 0 && random.nextDouble() < pairProbability
                    ? Choice.CREATE_DELETE_PAIR : Choice.SET_DATA;
        };
    }

    int nextIndex(int bound) {
        return random.nextInt(bound);
    }
}
