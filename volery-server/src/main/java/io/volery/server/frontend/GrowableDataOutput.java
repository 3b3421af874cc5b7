package io.volery.server.frontend;

import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * {@link DataOutput} into a growing byte array without locks (a {@code DataOutputStream} over a
 * {@code ByteArrayOutputStream} takes a monitor per write), reset and reused by the encoder of a
 * thread.
 */
final class GrowableDataOutput implements DataOutput {
    private byte[] buf;
    private int size;

    GrowableDataOutput(int initialCapacity) {
        buf = new byte[initialCapacity];
    }

    void reset() {
        size = 0;
    }

    int capacity() {
        return buf.length;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    private int reserve(int n) {
        if (buf.length - size < n) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
        }
        int at = size;
        size += n;
        return at;
    }

    @Override
    public void write(int b) {
        int at = reserve(1); // first: reserve may replace buf, and buf[reserve(1)] would read the old one
        buf[at] = (byte) b;
    }

    @Override
    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        int at = reserve(len); // first, as in write(int)
        System.arraycopy(b, off, buf, at, len);
    }

    @Override
    public void writeBoolean(boolean v) {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) {
        write(v);
    }

    @Override
    public void writeShort(int v) {
        int at = reserve(2);
        buf[at] = (byte) (v >>> 8);
        buf[at + 1] = (byte) v;
    }

    @Override
    public void writeChar(int v) {
        writeShort(v);
    }

    @Override
    public void writeInt(int v) {
        int at = reserve(4);
        buf[at] = (byte) (v >>> 24);
        buf[at + 1] = (byte) (v >>> 16);
        buf[at + 2] = (byte) (v >>> 8);
        buf[at + 3] = (byte) v;
    }

    @Override
    public void writeLong(long v) {
        writeInt((int) (v >>> 32));
        writeInt((int) v);
    }

    @Override
    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    @Override
    public void writeBytes(String s) {
        for (int i = 0; i < s.length(); i++) {
            write(s.charAt(i));
        }
    }

    @Override
    public void writeChars(String s) {
        for (int i = 0; i < s.length(); i++) {
            writeChar(s.charAt(i));
        }
    }

    @Override
    public void writeUTF(String s) {
        // Rare in jute (it writes strings as length + UTF-8 bytes itself); the JDK's encoder is exact.
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(s.length() + 2);
        try {
            new DataOutputStream(b).writeUTF(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        write(b.toByteArray());
    }
}
