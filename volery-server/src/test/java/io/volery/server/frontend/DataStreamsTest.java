package io.volery.server.frontend;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The lock-free jute streams write and read exactly what the JDK's data streams do, across growth. */
class DataStreamsTest {

    private static void writeMix(DataOutput out, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 400; i++) {
            switch (r.nextInt(8)) {
                case 0 -> out.write(r.nextInt(256));
                case 1 -> out.writeInt(r.nextInt());
                case 2 -> out.writeLong(r.nextLong());
                case 3 -> out.writeBoolean(r.nextBoolean());
                case 4 -> out.writeShort(r.nextInt());
                case 5 -> out.writeDouble(r.nextDouble());
                case 6 -> out.writeUTF("path/" + r.nextInt(1000));
                default -> {
                    byte[] b = new byte[r.nextInt(700)];
                    r.nextBytes(b);
                    out.write(b, 0, b.length);
                }
            }
        }
    }

    @Test
    void growableOutputWritesWhatADataOutputStreamWrites() throws IOException {
        for (long seed = 1; seed <= 20; seed++) {
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            writeMix(new DataOutputStream(expected), seed);
            GrowableDataOutput out = new GrowableDataOutput(1); // grows on almost every write
            writeMix(out, seed);
            assertArrayEquals(expected.toByteArray(), out.toByteArray(), "bytes written for seed " + seed);
            out.reset();
            writeMix(out, seed);
            assertArrayEquals(expected.toByteArray(), out.toByteArray(), "bytes written after a reset, seed " + seed);
        }
    }

    @Test
    void byteArrayInputReadsWhatADataInputStreamReads() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(-7);
        out.writeLong(Long.MIN_VALUE + 3);
        out.writeBoolean(true);
        out.writeShort(-2);
        out.writeUTF("/a/b");
        out.write(new byte[] {1, 2, 3});
        byte[] data = bytes.toByteArray();
        DataInputStream jdk = new DataInputStream(new ByteArrayInputStream(data));
        ByteArrayDataInput mine = new ByteArrayDataInput(data);
        assertEquals(jdk.readInt(), mine.readInt());
        assertEquals(jdk.readLong(), mine.readLong());
        assertEquals(jdk.readBoolean(), mine.readBoolean());
        assertEquals(jdk.readShort(), mine.readShort());
        assertEquals(jdk.readUTF(), mine.readUTF());
        byte[] a = new byte[3];
        byte[] b = new byte[3];
        jdk.readFully(a);
        mine.readFully(b);
        assertArrayEquals(a, b);
        assertEquals(0, mine.remaining());
        assertThrows(EOFException.class, mine::readInt, "reading past the end");
    }
}
