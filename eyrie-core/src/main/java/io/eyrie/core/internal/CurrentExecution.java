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

        /** The global position of the command being executed. */
        long position();

        /** Sends {@code value} to the command's other destination partitions; their values by partition id. */
        java.util.Map<Integer, Object> exchange(Object value);

        /** One-way round: partition {@code sender} sends {@code value}; the others wait for it (ADR 034). */
        Object receiveFrom(int sender, Object value);
    }

    private static final ThreadLocal<Access> CURRENT = new ThreadLocal<>();

    private CurrentExecution() {
    }

    static void set(Access access) {
        CURRENT.set(access);
    }

    static void clear() {
        CURRENT.set(null); // set, not remove: remove() rehashes the thread's map on every command
    }

    public static Access get() {
        return CURRENT.get();
    }
}
