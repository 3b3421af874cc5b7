package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Codec#register}: registered classes travel as ids, on every thread, and named bytes still decode. */
class CodecTest {

    /** A service's command item; registered only by the test that uses it (registrations last the JVM). */
    public static final class Payment {
        public long account;
        public String memo;

        public Payment() {
        }

        Payment(long account, String memo) {
            this.account = account;
            this.memo = memo;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Payment p && p.account == account && p.memo.equals(memo);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(account) * 31 + memo.hashCode();
        }
    }

    public static final class Refund {
        public int cents;
    }

    public static final class Other {
    }

    private static boolean names(byte[] bytes, Class<?> type) {
        String name = type.getName(); // Kryo marks a string's end in its last character: compare the rest
        return new String(bytes, StandardCharsets.ISO_8859_1).contains(name.substring(0, name.length() - 1));
    }

    @Test
    void aRegisteredClassTravelsAsAnIdOnEveryThread_andBytesWrittenByNameStillDecode() throws Exception {
        Command c = new Command("pay", new Payment(7, "rent"));
        byte[] byName = KryoCodec.encode(c); // this thread's Kryo exists before the registration
        assertTrue(names(byName, Payment.class), "unregistered: the class name travels");
        byte[][] otherThreadBefore = new byte[1][];
        Thread early = new Thread(() -> otherThreadBefore[0] = KryoCodec.encode(c));
        early.start();
        early.join();

        Codec.register(Payment.class, 9_001);

        byte[] byId = KryoCodec.encode(c);
        assertFalse(names(byId, Payment.class), "registered: an id instead of the name");
        assertTrue(byId.length < byName.length - Payment.class.getName().length() + 8,
                byId.length + " bytes registered against " + byName.length + " by name");
        assertEquals(c, KryoCodec.decode(byId));
        assertEquals(c, KryoCodec.decode(byName), "bytes written before the registration still decode");
        assertEquals(c, KryoCodec.decode(otherThreadBefore[0]));
        // a thread created before, and one after: both take the registration up
        AtomicReference<byte[]> late = new AtomicReference<>();
        AtomicReference<Object> decodedThere = new AtomicReference<>();
        Thread t = new Thread(() -> {
            late.set(KryoCodec.encode(c));
            decodedThere.set(KryoCodec.decode(byId));
        });
        t.start();
        t.join();
        assertArrayEquals(byId, late.get(), "another thread encodes the same bytes");
        assertEquals(c, decodedThere.get());
    }

    /**
     * Results, exchanged values and states are mostly JDK arrays and collections: Eyrie registers those, and
     * what an earlier build wrote by name (acceptor logs, snapshots) still decodes.
     */
    @Test
    void commonJdkClassesTravelAsIds_andTheirNamedBytesStillDecode() {
        java.util.HashMap<String, long[]> map = new java.util.HashMap<>();
        map.put("a", new long[] {1, 2});
        Object[] value = {new byte[] {1, 2, 3}, new String[] {"x"}, map, new java.util.TreeSet<>(java.util.List.of(3, 1))};
        byte[] byId = KryoCodec.encode(value);
        String text = new String(byId, StandardCharsets.ISO_8859_1);
        assertFalse(text.contains("java.util") || text.contains("[L") || text.contains("[B"), "a JDK class name travels");
        // as an earlier build (Command and ArrayList registered, nothing else) wrote it
        com.esotericsoftware.kryo.Kryo old = new com.esotericsoftware.kryo.Kryo();
        old.setRegistrationRequired(false);
        old.setReferences(true);
        old.setInstantiatorStrategy(new com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy(
                new org.objenesis.strategy.StdInstantiatorStrategy()));
        old.register(Command.class, 64);
        old.register(java.util.ArrayList.class, 65);
        com.esotericsoftware.kryo.io.Output out = new com.esotericsoftware.kryo.io.Output(256, -1);
        old.writeClassAndObject(out, value);
        byte[] byName = out.toBytes();
        assertTrue(new String(byName, StandardCharsets.ISO_8859_1).contains("java.util.HashMa"), "the old bytes name their classes");
        for (byte[] bytes : new byte[][] {byId, byName}) {
            Object[] back = (Object[]) KryoCodec.decode(bytes);
            assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) back[0]);
            assertArrayEquals(new String[] {"x"}, (String[]) back[1]);
            assertArrayEquals(new long[] {1, 2}, ((java.util.Map<?, ?>) back[2]).get("a") instanceof long[] l ? l : null);
            assertEquals(new java.util.TreeSet<>(java.util.List.of(1, 3)), back[3]);
        }
        assertThrows(IllegalArgumentException.class, () -> Codec.register(byte[].class, 9_201), "Eyrie's already");
        assertThrows(IllegalArgumentException.class, () -> Codec.register(java.util.HashMap.class, 9_202));
    }

    @Test
    void registrationsThatWouldConflictAreRefused() {
        Codec.register(Refund.class, 9_101);
        assertDoesNotThrow(() -> Codec.register(Refund.class, 9_101), "the same pair again does nothing");
        IllegalArgumentException sameClass = assertThrows(IllegalArgumentException.class, () -> Codec.register(Refund.class, 9_102));
        assertTrue(sameClass.getMessage().contains("is registered as 9101"), sameClass.getMessage());
        IllegalArgumentException sameId = assertThrows(IllegalArgumentException.class, () -> Codec.register(Other.class, 9_101));
        assertTrue(sameId.getMessage().contains(Refund.class.getName()), sameId.getMessage());
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> Codec.register(Other.class, Codec.FIRST_ID - 1));
        assertTrue(low.getMessage().contains("below " + Codec.FIRST_ID), low.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Codec.register(String.class, 9_103));
        assertThrows(IllegalArgumentException.class, () -> Codec.register(Command.class, 9_104));
        assertThrows(NullPointerException.class, () -> Codec.register(null, 9_105));
    }
}
