package io.eyrie.core.internal;

import io.eyrie.core.PRObject;

/**
 * The command a replica is executing on this thread, if any: the interception advice asks it to
 * bring remote objects up to date. Outside a command (tests inspecting state, snapshots) calls on
 * PRObjects run unintercepted.
 */
public final class CurrentExecution {

    /** What the advice needs from the running command. */
    public interface Access {
        void beforeCall(PRObject target);
    }

    private static final ThreadLocal<Access> CURRENT = new ThreadLocal<>();

    private CurrentExecution() {
    }

    static void set(Access access) {
        CURRENT.set(access);
    }

    static void clear() {
        CURRENT.remove();
    }

    public static Access get() {
        return CURRENT.get();
    }
}
