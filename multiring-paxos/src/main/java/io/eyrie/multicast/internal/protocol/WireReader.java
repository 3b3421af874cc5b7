package io.eyrie.multicast.internal.protocol;

import java.nio.ByteBuffer;

/**
 * Bounds-checked reads over an inbound buffer: every length is checked against the bytes left
 * before anything is allocated, so a bogus length cannot make us allocate gigabytes.
 */
final class WireReader {
    private final ByteBuffer buf;

    WireReader(ByteBuffer buf) {
        this.buf = buf;
    }

    private void need(long n, String what) {
        if (n < 0 || n > buf.remaining()) {
            throw new MalformedMessageException("truncated or bad length reading " + what + ": need " + n
                    + " bytes, " + buf.remaining() + " left");
        }
    }

    byte u8(String what) {
        need(1, what);
        return buf.get();
    }

    boolean bool(String what) {
        byte b = u8(what);
        if (b != 0 && b != 1) {
            throw new MalformedMessageException("bad boolean " + b + " for " + what);
        }
        return b == 1;
    }

    int i32(String what) {
        need(4, what);
        return buf.getInt();
    }

    long i64(String what) {
        need(8, what);
        return buf.getLong();
    }

    /** A count of items each at least {@code minItemBytes} long. */
    int count(String what, int minItemBytes) {
        int n = i32(what);
        if (n < 0 || (long) n * Math.max(1, minItemBytes) > buf.remaining()) {
            throw new MalformedMessageException("bad count " + n + " for " + what + " (" + buf.remaining() + " bytes left)");
        }
        return n;
    }

    byte[] bytes(String what) {
        int n = count(what, 1);
        byte[] b = new byte[n];
        buf.get(b);
        return b;
    }

    /** Moves past {@code n} bytes, checked like any read. */
    void skip(int n, String what) {
        need(n, what);
        buf.position(buf.position() + n);
    }

    int[] ints(String what) {
        int n = count(what, 4);
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = buf.getInt();
        }
        return a;
    }

    long[] longs(String what) {
        int n = count(what, 8);
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = buf.getLong();
        }
        return a;
    }

    long nonNegative(long v, String what) {
        if (v < 0) {
            throw new MalformedMessageException("negative " + what + ": " + v);
        }
        return v;
    }

    void end(String what) {
        if (buf.hasRemaining()) {
            throw new MalformedMessageException(buf.remaining() + " trailing bytes after " + what);
        }
    }
}
