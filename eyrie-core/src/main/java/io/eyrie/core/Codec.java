package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;

/**
 * How command items, results, exchanged objects and states travel: with Kryo, each value preceded by its
 * class. A class not registered here is named (its full name written and read, and looked up, with every
 * value); a registered one travels as a small id. Register the classes of a service's commands and results,
 * once per process, before its first command: the same classes with the same ids in every replica and every
 * client process (a static initializer both load, say). Bytes written by name still decode after a
 * registration, so a process that registers can read values from one that does not yet, but not the other way
 * round: register everywhere before relying on it.
 */
public final class Codec {

    /** The lowest id a service's class may take; those below are Kryo's and Eyrie's. */
    public static final int FIRST_ID = KryoCodec.FIRST_USER_ID;

    private Codec() {
    }

    /**
     * Registers {@code type} as {@code id}; registering it again with the same id does nothing.
     *
     * @throws IllegalArgumentException if {@code id} is below {@link #FIRST_ID}, {@code type} is one Eyrie or
     *                                  Kryo registers, or either is registered already with another id or class
     */
    public static void register(Class<?> type, int id) {
        KryoCodec.register(type, id);
    }
}
