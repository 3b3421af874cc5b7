package io.eyrie.core.internal;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A reader's cache and its owner's mirror evict the same entries when touched in the same order. */
class CopyTableTest {

    @Test
    void leastRecentlyTouchedIsEvictedFirst() {
        CopyTable t = new CopyTable(2);
        t.touch("a", 1, null);
        t.touch("b", 2, null);
        t.touch("a", 1, null);
        t.touch("c", 3, null);
        assertNull(t.get("b"), "b was touched least recently");
        assertNotNull(t.get("a"));
        assertNotNull(t.get("c"));
    }

    @Test
    void theOrderSurvivesACheckpoint() {
        CopyTable t = new CopyTable(2);
        t.touch("a", 1, new byte[] {1});
        t.touch("b", 2, new byte[] {2});
        t.touch("a", 1, new byte[] {1});
        CopyTable restored = (CopyTable) KryoCodec.copy(t);
        restored.touch("c", 3, null);
        assertNull(restored.get("b"), "after restore b is still the eldest");
        assertEquals(1, restored.get("a").hash);
    }

    @Test
    void aCopyTakenForACheckpointKeepsItsEntriesAndOrder() {
        CopyTable t = new CopyTable(2);
        t.touch("a", 1, null);
        t.touch("b", 2, null);
        CopyTable copy = t.copy();
        t.touch("c", 3, null); // evicts a from the live table
        assertNull(t.get("a"), "the live table evicted a");
        assertNotNull(copy.get("a"), "the copy still holds a");
        assertNull(copy.get("c"), "the copy does not hold what was touched after it");
        copy.touch("c", 3, null);
        assertNull(copy.get("a"), "the copy evicts in the order it was taken in: a first");
        assertNotNull(copy.get("b"));
    }
}
