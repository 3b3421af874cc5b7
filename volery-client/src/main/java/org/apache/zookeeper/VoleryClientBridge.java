package org.apache.zookeeper;

import java.util.List;

/**
 * The package-private hooks of the ZooKeeper client API that the Volery native client needs to
 * behave like {@code ZooKeeper}: an operation's own validation before a multi is sent, an operation
 * moved under a chroot, and the
 * per-operation results a failed multi's {@link KeeperException} carries ({@link KeeperException#getResults()}).
 * Lives in ZooKeeper's package for that access only; it holds no logic of its own.
 */
public final class VoleryClientBridge {

    private VoleryClientBridge() {
    }

    /** Validates {@code op} as the ZooKeeper client does before sending a multi. */
    public static void validate(Op op) throws KeeperException {
        op.validate();
    }

    /** Attaches a failed multi's results to the exception reporting its first error. */
    public static KeeperException withResults(KeeperException e, List<OpResult> results) {
        e.setMultiResults(results);
        return e;
    }

    /** {@code op} on {@code serverPath} (its path with the session's chroot prepended). */
    public static Op withChroot(Op op, String serverPath) {
        return op.getPath() == null || op.getPath().equals(serverPath) ? op : op.withChroot(serverPath);
    }
}
