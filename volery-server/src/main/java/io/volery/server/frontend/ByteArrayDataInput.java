package io.volery.server.frontend;

import java.io.DataInput;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * {@link DataInput} over a byte array without locks: jute's archive over a {@code DataInputStream}
 * over a {@code ByteArrayInputStream} takes a monitor for every byte it reads (four per int), which
 * was a tenth of a replica's time decoding setData requests. Reads past the end throw
 * {@link EOFException}, as a stream would.
 */
final class ByteArrayDataInput implements DataInput {
    private final byte[] bytes;
    private int position;
    private final int end;

    ByteArrayDataInput(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    ByteArrayDataInput(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.position = offset;
        this.end = offset + length;
    }

    /** Bytes not yet read. */
    int remaining() {
        return end - position;
    }

    private int take(int n) throws EOFException {
        if (n < 0 || end - position < n) {
            throw new EOFException("needed " + n + " bytes, " + (end - position) + " left");
        }
        int at = position;
        position += n;
        return at;
    }

    @Override
    public void readFully(byte[] b) throws IOException {
        readFully(b, 0, b.length);
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
        System.arraycopy(bytes, take(len), b, off, len);
    }

    @Override
    public int skipBytes(int n) {
        int skipped = Math.max(0, Math.min(n, end - position));
        position += skipped;
        return skipped;
    }

    @Override
    public boolean readBoolean() throws IOException {
        return bytes[take(1)] != 0;
    }

    @Override
    public byte readByte() throws IOException {
        return bytes[take(1)];
    }

    @Override
    public int readUnsignedByte() throws IOException {
        return bytes[take(1)] & 0xff;
    }

    @Override
    public short readShort() throws IOException {
        int at = take(2);
        return (short) (((bytes[at] & 0xff) << 8) | (bytes[at + 1] & 0xff));
    }

    @Override
    public int readUnsignedShort() throws IOException {
        return readShort() & 0xffff;
    }

    @Override
    public char readChar() throws IOException {
        return (char) readShort();
    }

    @Override
    public int readInt() throws IOException {
        int at = take(4);
        return ((bytes[at] & 0xff) << 24) | ((bytes[at + 1] & 0xff) << 16) | ((bytes[at + 2] & 0xff) << 8)
                | (bytes[at + 3] & 0xff);
    }

    @Override
    public long readLong() throws IOException {
        return ((long) readInt() << 32) | (readInt() & 0xffffffffL);
    }

    @Override
    public float readFloat() throws IOException {
        return Float.intBitsToFloat(readInt());
    }

    @Override
    public double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    @Override
    public String readLine() {
        throw new UnsupportedOperationException("jute records have no lines");
    }

    @Override
    public String readUTF() throws IOException {
        return DataInputStream.readUTF(this);
    }
}
