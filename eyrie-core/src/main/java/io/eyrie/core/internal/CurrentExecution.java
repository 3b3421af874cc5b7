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

        /**
         * A round of {@link #exchange} (or, with {@code sender} not null, of {@link #receiveFrom}) whose
         * values this command does not wait for: this partition's value leaves now, and the handle is
         * passed to {@link #later}.
         */
        Object exchangeLater(Integer sender, Object value);

        /**
         * A round like {@link #exchangeLater} in which only the destinations {@code senders} send: each
         * destination waits for the senders other than itself, and the values are the senders' (its own
         * included when it is one). The others' {@code value} is ignored.
         */
        Object exchangeLaterFrom(int[] senders, Object value);

        /**
         * {@link #exchangeLaterFrom} whose values go only to the destinations {@code receivers}: a sender
         * sends to the receivers other than itself, a receiver waits for the senders other than itself,
         * and a destination that is neither sends and waits for nothing (its values: its own if it sends).
         */
        Object exchangeLaterFromTo(int[] senders, int[] receivers, Object value);

        /**
         * Only the replicas of the destinations {@code partitions} answer the command's client; the
         * others execute it and send no reply, also to a copy sent again (ADR 054).
         */
        void replyOnlyFrom(int[] partitions);

        /**
         * Ends the command without its result: {@code then} runs on the executor once the round's values
         * are in (by partition id), before a later command that calls {@link #settle}, and its return is
         * the command's result (or another {@code later}).
         */
        Object later(Object round, java.util.function.Function<java.util.Map<Integer, Object>, Object> then);

        /** Runs every deferred continuation of earlier commands, waiting for their rounds, oldest first. */
        void settle();

        /** Whether some earlier command's continuation has not run yet. */
        boolean unsettled();
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
