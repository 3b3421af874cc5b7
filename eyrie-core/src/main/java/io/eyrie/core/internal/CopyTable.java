package io.eyrie.core.internal;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * A bounded, least-recently-shipped table of object copies: at a reader, the cached values of one
 * owner partition's objects; at that owner, the mirror of what the reader holds (hashes only).
 * Both sides apply the same touches in the same order (each command's shipped ids, in message
 * order), so they evict the same entries and the owner knows when "unchanged" is safe to send.
 * Kept as an insertion-ordered map (touch = remove + put) so that Kryo restores the order exactly.
 */
public final class CopyTable {

    public static final class Copy {
        long hash;
        byte[] value;

        Copy() {
        }

        Copy(long hash, byte[] value) {
            this.hash = hash;
            this.value = value;
        }
    }

    private int capacity;
    private final LinkedHashMap<Object, Copy> copies = new LinkedHashMap<>();

    CopyTable() {
    }

    public CopyTable(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("cache capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
    }

    public Copy get(Object id) {
        return copies.get(id);
    }

    /** Records that {@code id} now has {@code hash} (and, at a reader, {@code value}) and is most recent. */
    public void touch(Object id, long hash, byte[] value) {
        copies.remove(id);
        copies.put(id, new Copy(hash, value));
        if (copies.size() > capacity) {
            Iterator<Object> eldest = copies.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
    }

    /** A copy in the same order; the copies inside are shared, as they are never changed (touch replaces them). */
    CopyTable copy() {
        CopyTable out = new CopyTable(capacity);
        out.copies.putAll(copies);
        return out;
    }

    public int size() {
        return copies.size();
    }
}
