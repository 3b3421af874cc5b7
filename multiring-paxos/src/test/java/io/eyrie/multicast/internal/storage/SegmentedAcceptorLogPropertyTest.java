package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog.RecoveredState;
import io.eyrie.multicast.Ballot;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.eyrie.multicast.internal.storage.SegmentedAcceptorLogTest.bytes;
import static io.eyrie.multicast.internal.storage.SegmentedAcceptorLogTest.describe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Crash consistency against a model: after any sequence of appends, syncs, rolls and trims, a crash
 * (the write buffer is lost, and any suffix of the bytes written but not fsynced may be lost too)
 * leaves a log whose recovered state is the model of a prefix of the operations that contains every
 * synced one, and the log goes on from there.
 */
class SegmentedAcceptorLogPropertyTest {

    private static final int MAX_INSTANCE = 30;

    sealed interface Op permits Promise, Accept, Decide, Sync, Trim {
    }

    record Promise(long ballot) implements Op {
    }

    record Accept(long instance, long ballot, int valueBytes, int seed) implements Op {
        byte[] value() {
            return bytes(valueBytes, seed);
        }
    }

    record Decide(long instance, long ballot) implements Op {
    }

    record Sync() implements Op {
    }

    record Trim(long instance) implements Op {
    }

    @Property(tries = 100)
    void aCrashLosesNothingSyncedAndRecoversAPrefixOfTheOperations(
            @ForAll("operations") List<Op> ops,
            @ForAll @IntRange(min = 1, max = 4000) int segmentBytes,
            @ForAll @IntRange(min = 64, max = 400) int bufferBytes,
            @ForAll @IntRange(min = 0, max = 1000) int unforcedLostPermille) throws IOException {
        Path dir = Files.createTempDirectory("acceptor-log-property");
        try {
            SegmentedAcceptorLog log = SegmentedAcceptorLog.open(dir, segmentBytes, bufferBytes);
            int synced = 0;
            long floor = 0;
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                apply(log, op);
                // trimBelow syncs when it moves the floor (the floor must be durable before segments go).
                if (op instanceof Sync || op instanceof Trim t && t.instance() > floor) {
                    synced = i + 1;
                }
                if (op instanceof Trim t) {
                    floor = Math.max(floor, t.instance());
                }
            }
            Path current = log.currentSegmentForTesting();
            long unforced = log.unforcedBytesForTesting();
            log.crashForTesting();
            long lost = unforced * unforcedLostPermille / 1000;
            SegmentedAcceptorLogTest.truncate(current, Files.size(current) - lost);

            int recoveredPrefix;
            try (SegmentedAcceptorLog reopened = SegmentedAcceptorLog.open(dir, segmentBytes, bufferBytes)) {
                String actual = describe(reopened.recovered());
                recoveredPrefix = -1;
                for (int k = synced; k <= ops.size() && recoveredPrefix < 0; k++) {
                    if (Model.of(ops.subList(0, k)).description().equals(actual)) {
                        recoveredPrefix = k;
                    }
                }
                assertTrue(recoveredPrefix >= 0, "recovered state must be that of a prefix of the " + ops.size()
                        + " operations holding the " + synced + " synced ones; synced state: "
                        + Model.of(ops.subList(0, synced)).description() + "\nrecovered: " + actual);
                Model model = Model.of(ops.subList(0, recoveredPrefix));
                for (long instance = 0; instance <= MAX_INSTANCE; instance++) {
                    assertEquals(model.read(instance), reopened.read(instance).map(SegmentedAcceptorLogTest::describe)
                            .orElse("absent"), "read(" + instance + ") after recovery");
                }
                // The recovered log goes on: run the operations again on top and close cleanly.
                ops.forEach(op -> apply(reopened, op));
            }
            List<Op> all = new ArrayList<>(ops.subList(0, recoveredPrefix));
            all.addAll(ops);
            try (SegmentedAcceptorLog again = SegmentedAcceptorLog.open(dir, segmentBytes, bufferBytes)) {
                assertEquals(0, again.recovered().tornBytesDiscarded(), "torn bytes after a clean close");
                assertEquals(Model.of(all).description(), describe(again.recovered()),
                        "state after recovering, appending again and closing");
            }
        } finally {
            deleteRecursively(dir);
        }
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Long> instance = Arbitraries.longs().between(0, MAX_INSTANCE);
        Arbitrary<Long> ballot = Arbitraries.integers().between(1, 5).map(round -> Ballot.of(round, 1));
        // Mostly small values; some larger than the write buffer, which are written through.
        Arbitrary<Integer> valueBytes = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(9, Arbitraries.integers().between(0, 120)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(300, 700)));
        Arbitrary<Op> promise = ballot.map(Promise::new);
        Arbitrary<Op> accept = Combinators.combine(instance, ballot, valueBytes, Arbitraries.integers().between(0, 1000))
                .as(Accept::new);
        Arbitrary<Op> decide = Combinators.combine(instance, ballot).as(Decide::new);
        Arbitrary<Op> sync = Arbitraries.just(new Sync());
        Arbitrary<Op> trim = Arbitraries.longs().between(0, MAX_INSTANCE).map(Trim::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, promise),
                net.jqwik.api.Tuple.of(8, accept),
                net.jqwik.api.Tuple.of(4, decide),
                net.jqwik.api.Tuple.of(3, sync),
                net.jqwik.api.Tuple.of(1, trim)).list().ofMaxSize(50);
    }

    private static void apply(SegmentedAcceptorLog log, Op op) {
        if (op instanceof Promise p) {
            log.appendPromise(p.ballot());
        } else if (op instanceof Accept a) {
            log.appendAccept(a.instance(), a.ballot(), a.value());
        } else if (op instanceof Decide d) {
            log.appendDecision(d.instance(), d.ballot());
        } else if (op instanceof Sync) {
            log.sync();
        } else if (op instanceof Trim t) {
            log.trimBelow(t.instance());
        }
    }

    private static String describe(RecoveredState state) {
        return "promise " + Ballot.toString(state.promisedBallot()) + ", instances [" + state.lowestInstance() + ", "
                + state.highestInstance() + "], accepted " + SegmentedAcceptorLogTest.describe(state.accepted());
    }

    /** What the log should hold, written as plainly as possible. */
    private static final class Model {
        private record Accepted(long ballot, byte[] value, boolean decided) {
        }

        private long promise = Ballot.NONE;
        private long floor;
        private final TreeMap<Long, Accepted> accepted = new TreeMap<>();

        static Model of(List<Op> ops) {
            Model model = new Model();
            ops.forEach(model::apply);
            return model;
        }

        void apply(Op op) {
            if (op instanceof Promise p) {
                promise = Math.max(promise, p.ballot());
            } else if (op instanceof Accept a) {
                Accepted old = accepted.get(a.instance());
                if (old == null || old.ballot() <= a.ballot()) {
                    accepted.put(a.instance(), new Accepted(a.ballot(), a.value(), old != null && old.decided()));
                }
            } else if (op instanceof Decide d) {
                Accepted old = accepted.get(d.instance());
                if (old != null && old.ballot() >= d.ballot()) {
                    accepted.put(d.instance(), new Accepted(old.ballot(), old.value(), true));
                }
            } else if (op instanceof Trim t) {
                floor = Math.max(floor, t.instance());
            }
        }

        String read(long instance) {
            Accepted a = instance < floor ? null : accepted.get(instance);
            return a == null ? "absent" : SegmentedAcceptorLogTest.describe(instance, a.ballot(), a.value(), a.decided());
        }

        String description() {
            Map<Long, String> kept = new TreeMap<>();
            accepted.tailMap(floor, true).forEach((instance, a) -> kept.put(instance, read(instance)));
            long highest = kept.isEmpty() ? floor - 1 : ((TreeMap<Long, String>) kept).lastKey();
            return "promise " + Ballot.toString(promise) + ", instances [" + floor + ", " + highest + "], accepted " + kept;
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }
}
