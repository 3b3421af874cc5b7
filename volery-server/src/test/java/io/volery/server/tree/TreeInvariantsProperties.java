package io.volery.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Random command sequences keep the tree's structural invariants (numChildren = child count,
 * dataLength = data length, parent and child links agree, ephemerals childless and owned by a live
 * session), two replicas fed the same commands agree, and snapshot/restore preserves the digest.
 */
class TreeInvariantsProperties {

    private static final String[] NAMES = {"a", "b"};

    @Property(tries = 200)
    void randomCommandsKeepTheTreeConsistent(@ForAll long seed, @ForAll @IntRange(min = 1, max = 120) int length)
            throws IOException {
        Random random = new Random(seed);
        ZnodeTree tree = new ZnodeTree(TreeConfig.defaults());
        ZnodeTree replica = new ZnodeTree(TreeConfig.defaults());
        List<Long> sessions = new ArrayList<>();
        long zxid = 1;
        long time = 1_000;
        for (int step = 0; step < length; step++) {
            Command c = randomCommand(random, sessions);
            if (random.nextInt(4) == 0) {
                c = new Command.Via(1 + random.nextInt(2), c);
            }
            time += random.nextInt(3) == 0 ? random.nextInt(20_000) : 0;
            Result a = tree.apply(c, ++zxid, time);
            Result b = replica.apply(c, zxid, time);
            String where = "seed " + seed + " step " + step + " " + c;
            assertEquals(a.code(), b.code(), where + ": replicas answer alike");
            assertEquals(a.events(), b.events(), where + ": replicas fire alike");
            Command inner = c instanceof Command.Via v ? v.command() : c;
            if (inner instanceof Command.CreateSession cs && a.isOk()) {
                sessions.add(cs.sessionId());
            }
            checkInvariants(tree, where);
        }
        assertEquals(tree.digest(), replica.digest(), "seed " + seed + ": replicas end in the same state");
        ZnodeTree restored = SnapshotTest.copyOf(tree);
        assertEquals(tree.digest(), restored.digest(), "seed " + seed + ": snapshot/restore keeps the digest");
        checkInvariants(restored, "seed " + seed + " after restore");
    }

    private static String randomPath(Random r) {
        StringBuilder b = new StringBuilder();
        int depth = 1 + r.nextInt(3);
        for (int i = 0; i < depth; i++) {
            b.append('/').append(NAMES[r.nextInt(NAMES.length)]);
        }
        return b.toString();
    }

    static Command randomCommand(Random r, List<Long> sessions) {
        if (sessions.size() < 2 || r.nextInt(sessions.size() < 6 ? 6 : 30) == 0) {
            return new Command.CreateSession(0x100 + r.nextInt(1000), 4_000 + r.nextInt(20_000), List.of());
        }
        long s = sessions.get(r.nextInt(sessions.size()));
        int version = r.nextInt(4) - 1;
        return switch (r.nextInt(16)) {
            case 0, 1, 2, 3 -> randomCreate(r, s);
            case 4, 5 -> new Command.Delete(s, randomPath(r), version);
            case 6 -> new Command.SetData(s, randomPath(r), r.nextInt(5) == 0 ? null : new byte[r.nextInt(5)], version);
            case 7 -> new Command.SetAcl(s, randomPath(r), r.nextBoolean() ? Acl.OPEN : Acl.READ_ONLY, version);
            case 8 -> {
                List<Command.MultiOp> ops = new ArrayList<>();
                int n = 1 + r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    ops.add(switch (r.nextInt(4)) {
                        case 0 -> randomCreate(r, s);
                        case 1 -> new Command.Delete(s, randomPath(r), r.nextInt(3) - 1);
                        case 2 -> new Command.SetData(s, randomPath(r), new byte[r.nextInt(3)], r.nextInt(3) - 1);
                        default -> new Command.Check(s, randomPath(r), r.nextInt(3) - 1);
                    });
                }
                yield new Command.Multi(s, ops);
            }
            case 9 -> new Command.GetData(s, randomPath(r), true);
            case 10 -> new Command.GetChildren(s, randomPath(r), true, true);
            case 11 -> new Command.Exists(s, randomPath(r), true);
            case 12 -> new Command.AddWatch(s, randomPath(r),
                    r.nextBoolean() ? AddWatchMode.PERSISTENT : AddWatchMode.PERSISTENT_RECURSIVE);
            case 13 -> new Command.CloseSession(s);
            case 14 -> r.nextBoolean() ? new Command.TouchSessions(List.of(s)) : new Command.AttachSession(s, 1 + r.nextInt(2));
            default -> new Command.Tick();
        };
    }

    private static Command.Create randomCreate(Random r, long s) {
        CreateMode mode = CreateMode.values()[r.nextInt(CreateMode.values().length)];
        long ttl = mode.isTtl() ? 1 + r.nextInt(30_000) : -1;
        byte[] data = r.nextInt(5) == 0 ? null : new byte[r.nextInt(4)];
        return new Command.Create(s, randomPath(r), data, Acl.OPEN, mode, ttl);
    }

    static void checkInvariants(ZnodeTree tree, String where) {
        assertEquals(null, tree.inconsistency(), where + ": the tree's own bookkeeping agrees");
        for (String path : tree.paths()) {
            Stat st = tree.stat(path);
            List<String> children = tree.children(path);
            assertEquals(children.size(), st.numChildren(), where + ": numChildren of " + path);
            byte[] data = tree.data(path);
            assertEquals(data == null ? 0 : data.length, st.dataLength(), where + ": dataLength of " + path);
            for (String child : children) {
                assertNotNull(tree.stat(PathRules.child(path, child)), where + ": child " + child + " of " + path);
            }
            if (!path.equals("/")) {
                assertTrue(tree.children(PathRules.parent(path)).contains(PathRules.name(path)),
                        where + ": parent lists " + path);
            }
            if (st.ephemeralOwner() != 0) {
                assertTrue(children.isEmpty(), where + ": ephemeral " + path + " has no children");
                SessionTable.Session owner = tree.sessions().get(st.ephemeralOwner());
                assertNotNull(owner, where + ": owner of ephemeral " + path + " is live");
                assertTrue(owner.ephemerals().contains(path), where + ": owner lists " + path);
            }
        }
        for (SessionTable.Session s : tree.sessions().all()) {
            for (String p : s.ephemerals()) {
                assertNotNull(tree.stat(p), where + ": ephemeral " + p + " of session " + s.id() + " exists");
            }
        }
    }
}
