package io.eyrie.core;

/** An integer register: the smallest PRObject. */
public class Register extends PRObject {

    private int value;

    @SuppressWarnings("unused")
    private Register() {
    }

    public Register(String id) {
        super(id);
    }

    public int get() {
        return value;
    }

    /** Overwrites the whole state, so it needs no up-to-date copy. */
    @LocalMethodCall
    public void set(int v) {
        value = v;
    }

    public void add(int delta) {
        value += delta;
    }

    @Override
    public Object getDiff(Partition p) {
        return value;
    }

    @Override
    public void updateFromDiff(Object diff) {
        value = (Integer) diff;
    }
}
