package io.volery.server.backtoback;

import io.volery.server.backtoback.DriverOp.AclChoice;
import io.volery.server.tree.CreateMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded random operations of several sessions under one base path: creates of every mode and with
 * several ACLs, deletes and sets with right, wrong and any versions, reads that set watches,
 * persistent and recursive watches and their removal, ACL changes and digest logins, multis that
 * sometimes fail, and sessions closing and reopening. It learns the paths creates return, so
 * sequential nodes are targeted later too.
 */
public final class RandomWorkload {

    /** One step: which session sends which op. */
    public record Step(int session, DriverOp op) {
    }

    private static final CreateMode[] MODES = {CreateMode.PERSISTENT, CreateMode.EPHEMERAL,
        CreateMode.PERSISTENT_SEQUENTIAL, CreateMode.EPHEMERAL_SEQUENTIAL, CreateMode.CONTAINER,
        CreateMode.PERSISTENT_WITH_TTL, CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL};

    private final Random random;
    private final String base;
    private final int sessions;
    private final List<String> known = new ArrayList<>();
    private final List<String> bases = new ArrayList<>();
    private final List<String> topLevel;

    public RandomWorkload(long seed, String base, int sessions) {
        this(seed, List.of(base), List.of(), sessions);
    }

    /**
     * A workload spread over several subtrees (for a partitioned server: bases that land on different
     * partitions), which also creates and deletes the top-level nodes {@code topLevel} now and then.
     */
    public RandomWorkload(long seed, List<String> bases, List<String> topLevel, int sessions) {
        this.random = new Random(seed);
        this.base = bases.get(0);
        this.sessions = sessions;
        this.bases.addAll(bases);
        this.topLevel = List.copyOf(topLevel);
        known.addAll(bases);
        known.addAll(topLevel);
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

    public Step next() {
        int session = random.nextInt(sessions);
        DriverOp op = switch (random.nextInt(24)) {
            case 0, 1, 2, 3 -> create();
            case 4, 5 -> new DriverOp.Delete(path(), version());
            case 6, 7 -> new DriverOp.SetData(path(), data(), version());
            case 8, 9 -> new DriverOp.Exists(path(), random.nextBoolean());
            case 10 -> new DriverOp.GetData(path(), random.nextBoolean());
            case 11 -> new DriverOp.GetChildren(path(), random.nextBoolean());
            case 12, 13, 14 -> multi();
            case 15 -> new DriverOp.SetAcl(path(), aclChoice(), version());
            case 16 -> new DriverOp.GetAcl(path());
            case 17 -> new DriverOp.AddAuth(random.nextInt(6) == 0 ? EmbeddedZooKeeper.SUPER_CREDENTIALS
                    : "user" + random.nextInt(2) + ":pw");
            case 18 -> new DriverOp.AddWatch(path(), random.nextBoolean());
            case 19 -> new DriverOp.RemoveWatches(path(), 1 + random.nextInt(5));
            case 20 -> new DriverOp.GetEphemerals(random.nextBoolean() ? "/" : path());
            case 21 -> new DriverOp.GetAllChildrenNumber(path());
            case 22 -> random.nextInt(4) == 0 ? new DriverOp.Reopen() : new DriverOp.Exists(path(), true);
            default -> new DriverOp.Check(path(), version());
        };
        return new Step(session, op);
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
        String path;
        if (!topLevel.isEmpty() && random.nextInt(6) == 0) {
            path = topLevel.get(random.nextInt(topLevel.size()));
        } else {
            String parent = random.nextInt(3) == 0 ? base() : path();
            path = parent + "/" + (char) ('a' + random.nextInt(3));
        }
        return new DriverOp.Create(path, data(), mode, mode.isTtl() ? 600_000 + random.nextInt(60_000) : -1,
                random.nextInt(3) == 0 ? aclChoice() : AclChoice.OPEN);
    }

    private String base() {
        return bases.size() == 1 ? base : bases.get(random.nextInt(bases.size()));
    }

    private AclChoice aclChoice() {
        AclChoice[] all = AclChoice.values();
        return all[random.nextInt(all.length)];
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
        if (random.nextInt(8) == 0) {
            return null;
        }
        byte[] d = new byte[random.nextInt(6)];
        random.nextBytes(d);
        return d;
    }
}
