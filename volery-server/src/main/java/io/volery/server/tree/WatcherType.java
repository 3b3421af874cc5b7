package io.volery.server.tree;

/** What {@code removeWatches}/{@code checkWatches} address, with ZooKeeper's wire values. */
public enum WatcherType {
    CHILDREN(1),
    DATA(2),
    ANY(3),
    PERSISTENT(4),
    PERSISTENT_RECURSIVE(5);

    private final int code;

    WatcherType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static WatcherType of(int code) {
        for (WatcherType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("no watcher type " + code);
    }
}
