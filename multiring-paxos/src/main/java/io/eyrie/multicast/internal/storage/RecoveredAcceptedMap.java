package io.eyrie.multicast.internal.storage;

import io.eyrie.multicast.AcceptorLog.AcceptedValue;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * The accepted values found at open time, as the read-only sorted map that
 * {@link io.eyrie.multicast.AcceptorLog.RecoveredState} promises, without holding the values: keys,
 * ballots and record locations sit in sorted arrays and each value is read back from its segment
 * (CRC checked) when an entry is looked at. The data at those locations never changes, because
 * segments are append-only; an instance trimmed after open can no longer be read.
 *
 * <p>Views ({@code subMap}, {@code descendingMap}, ...) share the arrays; ranges outside a view's
 * bounds are clamped rather than rejected. {@code navigableKeySet()} copies the keys.
 */
final class RecoveredAcceptedMap extends AbstractMap<Long, AcceptedValue> implements NavigableMap<Long, AcceptedValue> {

    /** Reads one accept record's value back from the log. */
    interface ValueReader {
        byte[] read(long segment, long offset, long instance, long ballot);
    }

    private final InstanceIndex.Snapshot snapshot;
    private final ValueReader reader;
    /** The view covers snapshot indexes {@code [from, to)}. */
    private final int from;
    private final int to;
    private final boolean descending;

    RecoveredAcceptedMap(InstanceIndex.Snapshot snapshot, ValueReader reader) {
        this(snapshot, reader, 0, snapshot.size(), false);
    }

    private RecoveredAcceptedMap(InstanceIndex.Snapshot snapshot, ValueReader reader, int from, int to,
                                 boolean descending) {
        this.snapshot = snapshot;
        this.reader = reader;
        this.from = from;
        this.to = Math.max(from, to);
        this.descending = descending;
    }

    @Override
    public int size() {
        return to - from;
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public AcceptedValue get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : valueAt(i);
    }

    @Override
    public Set<Entry<Long, AcceptedValue>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<Long, AcceptedValue>> iterator() {
                return new Iterator<>() {
                    private int next = descending ? to - 1 : from;

                    @Override
                    public boolean hasNext() {
                        return descending ? next >= from : next < to;
                    }

                    @Override
                    public Entry<Long, AcceptedValue> next() {
                        if (!hasNext()) {
                            throw new NoSuchElementException();
                        }
                        Entry<Long, AcceptedValue> entry = entryAt(next);
                        next += descending ? -1 : 1;
                        return entry;
                    }
                };
            }

            @Override
            public int size() {
                return RecoveredAcceptedMap.this.size();
            }
        };
    }

    @Override
    public Comparator<? super Long> comparator() {
        return descending ? Comparator.reverseOrder() : null;
    }

    @Override
    public Entry<Long, AcceptedValue> firstEntry() {
        return size() == 0 ? null : entryAt(descending ? to - 1 : from);
    }

    @Override
    public Entry<Long, AcceptedValue> lastEntry() {
        return size() == 0 ? null : entryAt(descending ? from : to - 1);
    }

    @Override
    public Long firstKey() {
        return keyOrThrow(firstEntry());
    }

    @Override
    public Long lastKey() {
        return keyOrThrow(lastEntry());
    }

    @Override
    public Entry<Long, AcceptedValue> lowerEntry(Long key) {
        return entryOrNull(descending ? higherIndex(key) : lowerIndex(key));
    }

    @Override
    public Entry<Long, AcceptedValue> floorEntry(Long key) {
        return entryOrNull(descending ? ceilingIndex(key) : floorIndex(key));
    }

    @Override
    public Entry<Long, AcceptedValue> ceilingEntry(Long key) {
        return entryOrNull(descending ? floorIndex(key) : ceilingIndex(key));
    }

    @Override
    public Entry<Long, AcceptedValue> higherEntry(Long key) {
        return entryOrNull(descending ? lowerIndex(key) : higherIndex(key));
    }

    @Override
    public Long lowerKey(Long key) {
        return keyOrNull(lowerEntry(key));
    }

    @Override
    public Long floorKey(Long key) {
        return keyOrNull(floorEntry(key));
    }

    @Override
    public Long ceilingKey(Long key) {
        return keyOrNull(ceilingEntry(key));
    }

    @Override
    public Long higherKey(Long key) {
        return keyOrNull(higherEntry(key));
    }

    @Override
    public Entry<Long, AcceptedValue> pollFirstEntry() {
        throw new UnsupportedOperationException("the recovered state is read-only");
    }

    @Override
    public Entry<Long, AcceptedValue> pollLastEntry() {
        throw new UnsupportedOperationException("the recovered state is read-only");
    }

    @Override
    public NavigableMap<Long, AcceptedValue> descendingMap() {
        return new RecoveredAcceptedMap(snapshot, reader, from, to, !descending);
    }

    @Override
    public NavigableSet<Long> navigableKeySet() {
        TreeSet<Long> keys = new TreeSet<>(comparator());
        for (int i = from; i < to; i++) {
            keys.add(snapshot.instances()[i]);
        }
        return Collections.unmodifiableNavigableSet(keys);
    }

    @Override
    public NavigableSet<Long> descendingKeySet() {
        return descendingMap().navigableKeySet();
    }

    @Override
    public NavigableMap<Long, AcceptedValue> subMap(Long fromKey, boolean fromInclusive, Long toKey,
                                                    boolean toInclusive) {
        if (compare(fromKey, toKey) > 0) {
            throw new IllegalArgumentException("fromKey " + fromKey + " is after toKey " + toKey);
        }
        return headMap(toKey, toInclusive).tailMap(fromKey, fromInclusive);
    }

    @Override
    public NavigableMap<Long, AcceptedValue> headMap(Long toKey, boolean inclusive) {
        if (descending) {
            return view(inclusive ? ceilingIndex(toKey) : higherIndex(toKey), to);
        }
        return view(from, (inclusive ? floorIndex(toKey) : lowerIndex(toKey)) + 1);
    }

    @Override
    public NavigableMap<Long, AcceptedValue> tailMap(Long fromKey, boolean inclusive) {
        if (descending) {
            return view(from, (inclusive ? floorIndex(fromKey) : lowerIndex(fromKey)) + 1);
        }
        return view(inclusive ? ceilingIndex(fromKey) : higherIndex(fromKey), to);
    }

    @Override
    public SortedMap<Long, AcceptedValue> subMap(Long fromKey, Long toKey) {
        return subMap(fromKey, true, toKey, false);
    }

    @Override
    public SortedMap<Long, AcceptedValue> headMap(Long toKey) {
        return headMap(toKey, false);
    }

    @Override
    public SortedMap<Long, AcceptedValue> tailMap(Long fromKey) {
        return tailMap(fromKey, true);
    }

    private NavigableMap<Long, AcceptedValue> view(int viewFrom, int viewTo) {
        // An index of -1 ("none") or past the end clamps to an empty view at the right edge.
        int lo = viewFrom < 0 ? to : viewFrom;
        int hi = viewTo;
        return new RecoveredAcceptedMap(snapshot, reader, lo, Math.max(lo, hi), descending);
    }

    private int compare(long a, long b) {
        return descending ? Long.compare(b, a) : Long.compare(a, b);
    }

    private int indexOf(Object key) {
        if (!(key instanceof Long instance)) {
            return -1;
        }
        int i = ceilingIndex(instance);
        return i >= 0 && snapshot.instances()[i] == instance ? i : -1;
    }

    /** First index in the view with key &ge; {@code key} (ascending order), or -1. */
    private int ceilingIndex(long key) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (snapshot.instances()[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < to ? lo : -1;
    }

    private int higherIndex(long key) {
        return key == Long.MAX_VALUE ? -1 : ceilingIndex(key + 1);
    }

    /** Last index in the view with key &le; {@code key}, or -1 (so that +1 gives an empty range). */
    private int floorIndex(long key) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (snapshot.instances()[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1 >= from ? lo - 1 : from - 1;
    }

    private int lowerIndex(long key) {
        return key == Long.MIN_VALUE ? from - 1 : floorIndex(key - 1);
    }

    private Entry<Long, AcceptedValue> entryOrNull(int i) {
        return i < from || i >= to ? null : entryAt(i);
    }

    private Entry<Long, AcceptedValue> entryAt(int i) {
        return new SimpleImmutableEntry<>(snapshot.instances()[i], valueAt(i));
    }

    private AcceptedValue valueAt(int i) {
        long instance = snapshot.instances()[i];
        long ballot = snapshot.ballots()[i];
        byte[] value = reader.read(snapshot.segments()[i], snapshot.offsets()[i], instance, ballot);
        return new AcceptedValue(instance, ballot, value, snapshot.decided()[i]);
    }

    private static Long keyOrNull(Map.Entry<Long, AcceptedValue> entry) {
        return entry == null ? null : entry.getKey();
    }

    private static Long keyOrThrow(Map.Entry<Long, AcceptedValue> entry) {
        if (entry == null) {
            throw new NoSuchElementException("no accepted values");
        }
        return entry.getKey();
    }
}
