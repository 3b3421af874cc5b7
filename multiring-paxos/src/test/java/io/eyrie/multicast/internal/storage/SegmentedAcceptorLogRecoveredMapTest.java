package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog.AcceptedValue;
import io.eyrie.multicast.Ballot;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The recovered accepted values are served by a lazy map over sorted arrays; it must navigate
 * exactly like a {@link TreeMap} holding the same entries, views of views included.
 */
class SegmentedAcceptorLogRecoveredMapTest {

    private static final long BALLOT = Ballot.of(1, 1);

    @Property(tries = 40)
    void theRecoveredMapNavigatesLikeATreeMap(@ForAll("instances") Set<Long> instances,
                                              @ForAll("queries") List<Long> queries) throws IOException {
        Path dir = Files.createTempDirectory("acceptor-log-map");
        try {
            try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(dir, 1 << 20)) {
                instances.forEach(i -> log.appendAccept(i, BALLOT, SegmentedAcceptorLogTest.bytes(3, i.intValue())));
            }
            try (SegmentedAcceptorLog log = SegmentedAcceptorLog.open(dir, 1 << 20)) {
                TreeMap<Long, AcceptedValue> expected = new TreeMap<>();
                instances.forEach(i -> expected.put(i, log.read(i).orElseThrow()));
                NavigableMap<Long, AcceptedValue> actual = log.recovered().accepted();
                compare("map", expected, actual, queries, 2);
            }
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    @Provide
    Arbitrary<Set<Long>> instances() {
        return Arbitraries.longs().between(0, 40).set().ofMaxSize(25);
    }

    @Provide
    Arbitrary<List<Long>> queries() {
        return Arbitraries.longs().between(-2, 42).list().ofMinSize(4).ofMaxSize(8);
    }

    private static void compare(String name, NavigableMap<Long, AcceptedValue> expected,
                                NavigableMap<Long, AcceptedValue> actual, List<Long> queries, int depth) {
        assertEquals(describe(expected), describe(actual), name + ": entries in order");
        assertEquals(expected.size(), actual.size(), name + ": size");
        assertEquals(key(expected.firstEntry()), key(actual.firstEntry()), name + ": firstEntry");
        assertEquals(key(expected.lastEntry()), key(actual.lastEntry()), name + ": lastEntry");
        assertEquals(new ArrayList<>(expected.navigableKeySet()), new ArrayList<>(actual.navigableKeySet()),
                name + ": navigableKeySet");
        assertEquals(new ArrayList<>(expected.descendingKeySet()), new ArrayList<>(actual.descendingKeySet()),
                name + ": descendingKeySet");
        for (long q : queries) {
            assertEquals(expected.lowerKey(q), actual.lowerKey(q), name + ".lowerKey(" + q + ")");
            assertEquals(expected.floorKey(q), actual.floorKey(q), name + ".floorKey(" + q + ")");
            assertEquals(expected.ceilingKey(q), actual.ceilingKey(q), name + ".ceilingKey(" + q + ")");
            assertEquals(expected.higherKey(q), actual.higherKey(q), name + ".higherKey(" + q + ")");
            assertEquals(expected.containsKey(q), actual.containsKey(q), name + ".containsKey(" + q + ")");
            assertEquals(describe(expected.get(q)), describe(actual.get(q)), name + ".get(" + q + ")");
        }
        if (depth == 0 || queries.size() < 2) {
            return;
        }
        List<Long> rest = queries.subList(1, queries.size());
        long a = queries.get(0);
        long b = queries.get(1);
        compareView(name + ".descendingMap()", () -> expected.descendingMap(), () -> actual.descendingMap(), rest, depth);
        for (boolean inclusive : new boolean[] {true, false}) {
            compareView(name + ".headMap(" + a + ", " + inclusive + ")", () -> expected.headMap(a, inclusive),
                    () -> actual.headMap(a, inclusive), rest, depth);
            compareView(name + ".tailMap(" + a + ", " + inclusive + ")", () -> expected.tailMap(a, inclusive),
                    () -> actual.tailMap(a, inclusive), rest, depth);
        }
        // subMap's bounds must be in the map's own order.
        long low = expected.comparator() == null ? Math.min(a, b) : Math.max(a, b);
        long high = expected.comparator() == null ? Math.max(a, b) : Math.min(a, b);
        compareView(name + ".subMap(" + low + ", true, " + high + ", false)", () -> expected.subMap(low, true, high, false),
                () -> actual.subMap(low, true, high, false), rest, depth);
    }

    private static void compareView(String name, Supplier<NavigableMap<Long, AcceptedValue>> expected,
                                    Supplier<NavigableMap<Long, AcceptedValue>> actual, List<Long> queries, int depth) {
        NavigableMap<Long, AcceptedValue> expectedView;
        try {
            expectedView = expected.get();
        } catch (IllegalArgumentException outOfRange) {
            return; // TreeMap rejects bounds outside a view's range; the recovered map clamps them (documented)
        }
        compare(name, expectedView, actual.get(), queries, depth - 1);
    }

    private static Long key(Map.Entry<Long, AcceptedValue> entry) {
        return entry == null ? null : entry.getKey();
    }

    private static List<String> describe(Map<Long, AcceptedValue> map) {
        List<String> entries = new ArrayList<>();
        map.forEach((k, v) -> entries.add(k + "=" + describe(v)));
        return entries;
    }

    private static String describe(AcceptedValue value) {
        return SegmentedAcceptorLogTest.describe(value);
    }
}
