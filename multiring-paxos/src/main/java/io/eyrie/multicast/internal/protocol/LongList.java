package io.eyrie.multicast.internal.protocol;

import java.util.Arrays;

/** A growable list of longs: per-message seqs without a boxed Long each. */
final class LongList {
    private long[] items = new long[16];
    private int size;

    void add(long v) {
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size++] = v;
    }

    void addAll(long[] vs) {
        for (long v : vs) {
            add(v);
        }
    }

    int size() {
        return size;
    }

    long[] toArray() {
        return Arrays.copyOf(items, size);
    }
}
