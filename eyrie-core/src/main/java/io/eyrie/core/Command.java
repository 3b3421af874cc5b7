package io.eyrie.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * A command: a list of items (an operation name and its arguments, say) read in order with a
 * cursor. Items travel with Kryo, so they must be serializable by it (boxed primitives, strings,
 * collections, plain classes with a no-argument constructor).
 */
public final class Command {

    private final List<Object> items = new ArrayList<>();
    private transient int cursor;

    public Command() {
    }

    public Command(Object... items) {
        addItem(items);
    }

    /** Appends items; returns this command for chaining. */
    public Command addItem(Object... more) {
        items.addAll(Arrays.asList(more));
        return this;
    }

    /** The next item. */
    public Object getNext() {
        if (cursor >= items.size()) {
            throw new NoSuchElementException("command " + this + " has no item " + cursor);
        }
        return items.get(cursor++);
    }

    public boolean hasNext() {
        return cursor < items.size();
    }

    /** Moves the cursor back to the first item. */
    public void rewind() {
        cursor = 0;
    }

    /** The number of items. */
    public int size() {
        return items.size();
    }

    /** Item {@code i}, regardless of the cursor. */
    public Object getItem(int i) {
        return items.get(i);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Command c && c.items.equals(items);
    }

    @Override
    public int hashCode() {
        return items.hashCode();
    }

    @Override
    public String toString() {
        return "Command" + items;
    }
}
