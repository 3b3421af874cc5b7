package io.volery.server.tree;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A {@link TreeImage} is exact: written at any later time, on any thread, while the tree goes on
 * applying commands (creates of every mode, sequential ones that grow a parent's child table,
 * deletes, setData, setACL, multis that succeed and that roll back, watches set, fired and removed,
 * sessions opened, authenticated, moved, closed and expired with their ephemerals), it gives exactly
 * the canonical bytes {@link ZnodeTree#snapshot} gave at the moment of the capture.
 */
class TreeCaptureProperties {

    private static ExecutorService writer;

    @BeforeContainer
    static void startWriter() {
        writer = Executors.newSingleThreadExecutor(r -> new Thread(r, "tree-image-writer"));
    }

    @AfterContainer
    static void stopWriter() {
        writer.shutdownNow();
    }

    /** Applies random commands to one tree with its own clock. */
    private static final class Driver {
        final ZnodeTree tree = new ZnodeTree(TreeConfig.defaults());
        final Random random;
        final List<Long> sessions = new ArrayList<>();
        long zxid = 1;
        long time = 1_000;

        Driver(long seed) {
            random = new Random(seed);
        }

        void step() {
            Command c = command();
            if (random.nextInt(4) == 0) {
                c = new Command.Via(1 + random.nextInt(2), c);
            }
            time += random.nextInt(3) == 0 ? random.nextInt(20_000) : 0;
            Result r = tree.apply(c, ++zxid, time);
            Command inner = c instanceof Command.Via v ? v.command() : c;
            if (inner instanceof Command.CreateSession cs && r.isOk()) {
                sessions.add(cs.sessionId());
            }
        }

        /** The invariants test's mix, plus what it lacks: many children, auth ACLs, watch removal and re-arming. */
        private Command command() {
            if (sessions.size() < 2) {
                return TreeInvariantsProperties.randomCommand(random, sessions);
            }
            long s = sessions.get(random.nextInt(sessions.size()));
            return switch (random.nextInt(12)) {
                case 0, 1 -> new Command.Create(s, "/q" + random.nextInt(2) + "/n", new byte[random.nextInt(3)],
                        Acl.OPEN, random.nextBoolean() ? CreateMode.PERSISTENT_SEQUENTIAL
                        : CreateMode.EPHEMERAL_SEQUENTIAL);
                case 2 -> new Command.Create(s, "/q" + random.nextInt(2), null, Acl.OPEN,
                        random.nextBoolean() ? CreateMode.PERSISTENT : CreateMode.CONTAINER);
                case 3 -> new Command.Delete(s, String.format("/q%d/n%010d", random.nextInt(2), random.nextInt(40)), -1);
                case 4 -> new Command.AddAuth(s, "digest", ("user" + random.nextInt(2) + ":pw")
                        .getBytes(StandardCharsets.UTF_8));
                case 5 -> new Command.SetAcl(s, "/a", List.of(new Acl(Perms.ALL, new Id("auth", ""))), -1);
                case 6 -> new Command.RemoveWatches(s, random.nextBoolean() ? "/a" : "/a/b",
                        WatcherType.values()[random.nextInt(WatcherType.values().length)]);
                case 7 -> new Command.SetWatches(s, random.nextInt((int) zxid + 1), List.of("/a", "/b"), List.of("/a/a"),
                        List.of("/b"), random.nextBoolean() ? List.of("/a") : List.of(), List.of("/b"));
                default -> TreeInvariantsProperties.randomCommand(random, sessions);
            };
        }

        byte[] canonical() {
            return TreeSnapshot.toBytes(tree);
        }
    }

    private static byte[] written(TreeImage image) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            image.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private record Captured(TreeImage image, byte[] expected, int step) {
    }

    @Property(tries = 150)
    void anImageWrittenAfterLaterCommandsHoldsTheStateAtItsCapture(@ForAll long seed,
                                                                   @ForAll @IntRange(min = 1, max = 300) int length) {
        Driver d = new Driver(seed);
        d.tree.enableCaptures();
        List<Captured> unwritten = new ArrayList<>();
        for (int step = 0; step < length; step++) {
            d.step();
            if (d.random.nextInt(10) == 0) {
                unwritten.add(new Captured(d.tree.capture(), d.canonical(), step));
            }
            if (!unwritten.isEmpty() && d.random.nextInt(15) == 0) {
                // write one of the waiting images (skipping those before it, as the checkpoint writer may)
                int pick = d.random.nextInt(unwritten.size());
                Captured c = unwritten.get(pick);
                assertArrayEquals(c.expected(), written(c.image()), "seed " + seed + ": image captured after step "
                        + c.step() + ", written after step " + step + ", differs from the state at its capture");
                unwritten.subList(0, pick + 1).clear();
            }
        }
        Captured last = new Captured(d.tree.capture(), d.canonical(), length);
        assertArrayEquals(last.expected(), written(last.image()), "seed " + seed + ": image of the final state");
        if (!unwritten.isEmpty()) {
            Captured older = unwritten.get(0);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> written(older.image()),
                    "an image older than one already written cannot be written");
            assertTrue(e.getMessage().contains("capture order"), "the refusal says why: " + e.getMessage());
        }
    }

    @Property(tries = 40)
    void anImageWrittenByAnotherThreadWhileCommandsRunHoldsTheStateAtItsCapture(@ForAll long seed) throws Exception {
        Driver d = new Driver(seed);
        d.tree.enableCaptures();
        for (int round = 0; round < 25; round++) {
            for (int i = d.random.nextInt(30); i > 0; i--) {
                d.step();
            }
            TreeImage image = d.tree.capture();
            byte[] expected = d.canonical();
            Future<byte[]> bytes = writer.submit(() -> written(image));
            // the executor goes on while the writer thread serializes the image
            for (int i = 1 + d.random.nextInt(40); i > 0; i--) {
                d.step();
            }
            assertArrayEquals(expected, bytes.get(), "seed " + seed + " round " + round
                    + ": image written concurrently with later commands differs from the state at its capture");
        }
    }

    @Property(tries = 30)
    void aRestoredTreeCapturesFromItsRestoredState(@ForAll long seed) throws IOException {
        Driver source = new Driver(seed);
        for (int i = 0; i < 150; i++) {
            source.step();
        }
        Driver d = new Driver(seed + 1);
        d.tree.enableCaptures();
        d.step();
        d.tree.restore(new ByteArrayInputStream(source.canonical()));
        d.sessions.addAll(source.sessions);
        d.zxid = source.zxid;
        d.time = source.time;
        TreeImage atRestore = d.tree.capture();
        byte[] expected = d.canonical();
        assertArrayEquals(source.canonical(), expected, "restore reproduces the source's canonical form");
        for (int i = 0; i < 100; i++) {
            d.step();
        }
        assertArrayEquals(expected, written(atRestore), "seed " + seed + ": image captured right after a restore");
        TreeImage later = d.tree.capture();
        assertArrayEquals(d.canonical(), written(later), "seed " + seed + ": image captured after more commands");
    }

    @Property(tries = 20)
    void manyChildrenUnderOneParentAreCapturedInTheirOrderAndTable(@ForAll @IntRange(min = 10, max = 400) int children,
                                                                  @ForAll long seed) {
        TreeFixture f = new TreeFixture();
        f.tree.enableCaptures();
        long s = f.session();
        f.created(s, "/p", CreateMode.PERSISTENT);
        Random random = new Random(seed);
        List<byte[]> expected = new ArrayList<>();
        List<TreeImage> images = new ArrayList<>();
        for (int i = 0; i < children; i++) {
            if (random.nextInt(4) == 0 && i > 0) {
                f.run(new Command.Delete(s, String.format("/p/c%010d", random.nextInt(i)), -1));
            } else {
                f.run(new Command.Create(s, "/p/c", null, Acl.OPEN, random.nextBoolean()
                        ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.EPHEMERAL_SEQUENTIAL));
            }
            if (random.nextInt(25) == 0) {
                images.add(f.tree.capture());
                expected.add(TreeSnapshot.toBytes(f.tree));
            }
        }
        f.run(new Command.CloseSession(s));
        images.add(f.tree.capture());
        expected.add(TreeSnapshot.toBytes(f.tree));
        for (int i = 0; i < images.size(); i++) {
            assertArrayEquals(expected.get(i), written(images.get(i)), "image " + i + " of " + images.size());
        }
        assertEquals(f.tree.digest(), sha256(expected.get(expected.size() - 1)), "digest is over the same bytes");
    }

    private static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Property(tries = 1)
    void captureIsRefusedUntilEnabled() {
        ZnodeTree tree = new ZnodeTree(TreeConfig.defaults());
        IllegalStateException e = assertThrows(IllegalStateException.class, tree::capture);
        assertTrue(e.getMessage().contains("enableCaptures"), "the refusal names the fix: " + e.getMessage());
    }
}
