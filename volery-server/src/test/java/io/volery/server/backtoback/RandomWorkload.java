package io.volery.server.backtoback;

import io.volery.server.tree.CreateMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random operations under one base path: creates of every mode, deletes and sets with right,
 * wrong and any versions, reads, and multis that sometimes fail on a check. It learns the paths that
 * creates return, so sequential nodes are targeted later too.
 */
public final class RandomWorkload {

    private static final CreateMode[] MODES = {CreateMode.PERSISTENT, CreateMode.EPHEMERAL,
        CreateMode.PERSISTENT_SEQUENTIAL, CreateMode.EPHEMERAL_SEQUENTIAL, CreateMode.CONTAINER,
        CreateMode.PERSISTENT_WITH_TTL, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL};

    private final Random random;
    private final String base;
    private final List<String> known = new ArrayList<>();

    public RandomWorkload(long seed, String base) {
        this.random = new Random(seed);
        this.base = base;
        known.add(base);
    }

    /** Tells the workload the path a create returned, so later ops may use it. */
    public void learn(Outcome outcome) {
        if (outcome.path() != null && !known.contains(outcome.path())) {
            known.add(outcome.path());
        }
        if (outcome.results() != null) {
            outcome.results().forEach(this::learn);
        }
    }

    public DriverOp next() {
        return switch (random.nextInt(12)) {
            case 0, 1, 2 -> create();
            case 3, 4 -> new DriverOp.Delete(path(), version());
            case 5 -> new DriverOp.SetData(path(), data(), version());
            case 6 -> new DriverOp.Exists(path());
            case 7 -> new DriverOp.GetData(path());
            case 8 -> new DriverOp.GetChildren(path());
            default -> multi();
        };
    }

    private DriverOp.Multi multi() {
        List<DriverOp.MultiStep> steps = new ArrayList<>();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
            steps.add(switch (random.nextInt(4)) {
                case 0 -> create();
                case 1 -> new DriverOp.Delete(path(), version());
                case 2 -> new DriverOp.SetData(path(), data(), version());
                default -> new DriverOp.Check(path(), version());
            });
        }
        return new DriverOp.Multi(steps);
    }

    private DriverOp.Create create() {
        CreateMode mode = MODES[random.nextInt(MODES.length)];
        String parent = random.nextInt(3) == 0 ? base : path();
        String path = parent + "/" + (char) ('a' + random.nextInt(3));
        return new DriverOp.Create(path, data(), mode, mode.isTtl() ? 60_000 + random.nextInt(60_000) : -1);
    }

    /** Mostly a known path, sometimes a fresh name under one. */
    private String path() {
        String p = known.get(random.nextInt(known.size()));
        return random.nextInt(4) == 0 ? p + "/" + (char) ('a' + random.nextInt(3)) : p;
    }

    private int version() {
        return random.nextInt(4) - 1;
    }

    private byte[] data() {
        byte[] d = new byte[random.nextInt(6)];
        random.nextBytes(d);
        return d;
    }
}
