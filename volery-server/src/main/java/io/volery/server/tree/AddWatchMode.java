package io.volery.server.tree;

/** The modes of {@code addWatch}, with ZooKeeper's wire values. */
public enum AddWatchMode {
    PERSISTENT(0),
    PERSISTENT_RECURSIVE(1);

    private final int code;

    AddWatchMode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
