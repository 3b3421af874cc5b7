package io.eyrie.core.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import io.eyrie.core.Command;
import java.util.ArrayList;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Turns user values (commands, results, diffs, snapshots) into bytes and back. Kryo instances are
 * not thread-safe, hence one per thread.
 */
public final class KryoCodec {

    private static final int OUTPUT_BYTES_MAX = 64 * 1024 * 1024;
    private static final int REFERENCE_TABLE_KEPT = 64;
    /** Fixed ids above Kryo's own registrations (primitives, String, ...): every node must use the same. */
    private static final int COMMAND_CLASS_ID = 64;
    private static final int ARRAY_LIST_CLASS_ID = 65;
    /** JDK classes registered as ids from {@link #COMMON_FIRST_ID} on, in this order: only ever append. */
    private static final java.util.List<Class<?>> COMMON = java.util.List.of(byte[].class, Object[].class,
            String[].class, long[].class, int[].class, byte[][].class, java.util.HashMap.class,
            java.util.LinkedHashMap.class, java.util.TreeMap.class, java.util.HashSet.class,
            java.util.LinkedHashSet.class, java.util.TreeSet.class);
    private static final int COMMON_FIRST_ID = 66;

    /** The lowest id {@link #register} takes; those below are Kryo's and Eyrie's. */
    public static final int FIRST_USER_ID = 100;

    /** A user class and its id ({@link #register}). */
    private record Registration(Class<?> type, int id) {
    }

    /** Every registration so far, in order; replaced (never changed) under the class's lock. */
    private static volatile Registration[] registrations = new Registration[0];

    /** A thread's Kryo and how many of {@link #registrations} it has taken up. */
    private static final class PerThread {
        final Kryo kryo = newKryo();
        int registered;
    }

    private static final ThreadLocal<PerThread> KRYO = ThreadLocal.withInitial(PerThread::new);

    private KryoCodec() {
    }

    private static Kryo newKryo() {
        Kryo kryo = new Kryo();
        // user classes are not known in advance; references keep shared and cyclic structure intact
        kryo.setRegistrationRequired(false);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        kryo.setClassLoader(KryoCodec.class.getClassLoader());
        // Kryo clears its table of written objects after every value; the default resolver keeps that
        // table as large as the largest graph written (up to 4096 slots: one checkpoint on the replica's
        // thread sufficed) and then cleared all of it after every command's reply (7% of a replica's CPU).
        // Shrinking it back to a small table after a large graph keeps the clearing cheap.
        kryo.setReferenceResolver(new MapReferenceResolver(REFERENCE_TABLE_KEPT));
        // Every command and most values carry these; registered, they travel as a small id instead of
        // their class name (read and looked up by name on every decode). Bytes written by name before
        // the registration still decode.
        kryo.register(Command.class, COMMAND_CLASS_ID);
        kryo.register(ArrayList.class, ARRAY_LIST_CLASS_ID);
        // and these are what results, exchanged values and states are mostly made of (Kryo registers none of
        // them itself); their ids, like those above, are wire format (ADR 088)
        for (int i = 0; i < COMMON.size(); i++) {
            kryo.register(COMMON.get(i), COMMON_FIRST_ID + i);
        }
        return kryo;
    }

    /**
     * Registers a class every value of which then travels as a small id instead of its class name (which
     * is written and read, and looked up, with every value otherwise). Every process that encodes or decodes
     * such values (replicas and clients) must register the same classes with the same ids; bytes written by
     * name, before a registration or by a process without it, still decode. Registering a class again with
     * its id does nothing.
     *
     * @param id at least {@link #FIRST_USER_ID}
     * @throws IllegalArgumentException if the id is below that, or the class or the id is registered already
     *                                  with another id or class
     */
    public static synchronized void register(Class<?> type, int id) {
        java.util.Objects.requireNonNull(type, "type");
        if (id < FIRST_USER_ID) {
            throw new IllegalArgumentException("class ids below " + FIRST_USER_ID + " are Eyrie's; got " + id
                    + " for " + type.getName());
        }
        // Kryo's own table says which classes it and newKryo registered (ids below ours; -1 marks a class
        // this thread's Kryo merely met by name)
        com.esotericsoftware.kryo.Registration builtIn = kryo().getClassResolver().getRegistration(type);
        if (builtIn != null && builtIn.getId() >= 0 && builtIn.getId() < FIRST_USER_ID) {
            throw new IllegalArgumentException(type.getName() + " is registered by Eyrie or Kryo already, as "
                    + builtIn.getId());
        }
        Registration[] now = registrations;
        for (Registration r : now) {
            if (r.type() == type && r.id() == id) {
                return;
            }
            if (r.type() == type || r.id() == id) {
                throw new IllegalArgumentException("cannot register " + type.getName() + " as " + id + ": "
                        + r.type().getName() + " is registered as " + r.id());
            }
        }
        Registration[] next = java.util.Arrays.copyOf(now, now.length + 1);
        next[now.length] = new Registration(type, id);
        registrations = next;
    }

    /** This thread's Kryo, with every registration so far. */
    private static Kryo kryo() {
        PerThread t = KRYO.get();
        Registration[] all = registrations;
        if (t.registered < all.length) {
            for (int i = t.registered; i < all.length; i++) {
                Class<?> type = all[i].type();
                // a new Registration: register(type, id) alone keeps the by-name one an earlier value made
                t.kryo.register(type, t.kryo.getDefaultSerializer(type), all[i].id());
            }
            t.registered = all.length;
        }
        return t.kryo;
    }

    /**
     * One output buffer per thread, reused: a fresh one per value (256 bytes, doubled as it fills)
     * cost an allocation and several copies per command and reply. A buffer a large value (a
     * checkpoint) grew is not kept; an encode inside an encode (a user serializer) gets its own.
     */
    private static final int KEPT_OUTPUT_BYTES_MAX = 64 * 1024;
    private static final ThreadLocal<Output[]> OUTPUT = ThreadLocal.withInitial(() -> new Output[1]);

    public static byte[] encode(Object value) {
        Output[] slot = OUTPUT.get();
        Output out = slot[0];
        slot[0] = null; // taken: a nested encode makes its own
        if (out == null) {
            out = new Output(4096, OUTPUT_BYTES_MAX);
        }
        try {
            out.reset();
            kryo().writeClassAndObject(out, value);
            return out.toBytes();
        } finally {
            if (out.getBuffer().length <= KEPT_OUTPUT_BYTES_MAX) {
                slot[0] = out;
            }
        }
    }

    public static Object decode(byte[] bytes) {
        return kryo().readClassAndObject(new Input(bytes));
    }

    /** A deep copy through the codec; what a remote partition would see. */
    public static Object copy(Object value) {
        return decode(encode(value));
    }
}
