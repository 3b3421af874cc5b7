package io.volery.server.tree;

/** Watch event types with ZooKeeper's wire values. */
public enum EventType {
    NODE_CREATED(1),
    NODE_DELETED(2),
    NODE_DATA_CHANGED(3),
    NODE_CHILDREN_CHANGED(4);

    private final int code;

    EventType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
