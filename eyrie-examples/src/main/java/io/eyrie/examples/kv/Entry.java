package io.eyrie.examples.kv;

import io.eyrie.core.LocalMethodCall;
import io.eyrie.core.PRObject;
import io.eyrie.core.Partition;

/** One key of the store; a null value means the key is absent. */
public class Entry extends PRObject {

    private String value;

    private Entry() {
    }

    public Entry(String key) {
        super(key);
    }

    public String get() {
        return value;
    }

    /** A blind overwrite: it needs no up-to-date copy, so it is not intercepted. */
    @LocalMethodCall
    public void set(String newValue) {
        value = newValue;
    }

    @Override
    public Object getDiff(Partition p) {
        return value;
    }

    @Override
    public void updateFromDiff(Object diff) {
        value = (String) diff;
    }
}
