package io.eyrie.core.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Turns user values (commands, results, diffs, snapshots) into bytes and back. Kryo instances are
 * not thread-safe, hence one per thread.
 */
public final class KryoCodec {

    private static final int OUTPUT_BYTES_MAX = 64 * 1024 * 1024;

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
