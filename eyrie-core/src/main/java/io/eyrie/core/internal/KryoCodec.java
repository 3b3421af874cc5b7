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

    private static final ThreadLocal<Kryo> KRYO = ThreadLocal.withInitial(KryoCodec::newKryo);

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
        return kryo;
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
            KRYO.get().writeClassAndObject(out, value);
            return out.toBytes();
        } finally {
            if (out.getBuffer().length <= KEPT_OUTPUT_BYTES_MAX) {
                slot[0] = out;
            }
        }
    }

    public static Object decode(byte[] bytes) {
        return KRYO.get().readClassAndObject(new Input(bytes));
    }

    /** A deep copy through the codec; what a remote partition would see. */
    public static Object copy(Object value) {
        return decode(encode(value));
    }
}
