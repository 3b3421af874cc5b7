package io.volery.server.tree;

/**
 * The node kinds a create can ask for, with ZooKeeper's flag values. {@link #CONTAINER} must only be
 * used for the createContainer request: ZooKeeper makes a container only from that request.
 */
public enum CreateMode {
    PERSISTENT(0, false, false, false),
    EPHEMERAL(1, true, false, false),
    PERSISTENT_SEQUENTIAL(2, false, true, false),
    EPHEMERAL_SEQUENTIAL(3, true, true, false),
    CONTAINER(4, false, false, false),
    PERSISTENT_WITH_TTL(5, false, false, true),
    PERSISTENT_SEQUENTIAL_WITH_TTL(6, false, true, true);

    private final int flag;
    private final boolean ephemeral;
    private final boolean sequential;
    private final boolean ttl;

    CreateMode(int flag, boolean ephemeral, boolean sequential, boolean ttl) {
        this.flag = flag;
        this.ephemeral = ephemeral;
        this.sequential = sequential;
        this.ttl = ttl;
    }

    public int flag() {
        return flag;
    }

    public boolean isEphemeral() {
        return ephemeral;
    }

    public boolean isSequential() {
        return sequential;
    }

    public boolean isTtl() {
        return ttl;
    }

    public static CreateMode ofFlag(int flag) {
        for (CreateMode m : values()) {
            if (m.flag == flag) {
                return m;
            }
        }
        throw new IllegalArgumentException("no create mode with flag " + flag);
    }
}
