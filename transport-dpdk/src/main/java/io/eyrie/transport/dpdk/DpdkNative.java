package io.eyrie.transport.dpdk;

import java.nio.ByteBuffer;

/**
 * The JNI entry points of {@code libeyriedpdk.so} (src/main/native/eyrie_dpdk.c). Loading is lazy
 * and explicit, so that the pure-Java parts of this module work on machines without DPDK and a
 * missing library gives one clear message instead of an {@link UnsatisfiedLinkError} deep in a call.
 */
final class DpdkNative {

    static final String LIBRARY = "eyriedpdk";

    private static volatile boolean loaded;

    private DpdkNative() {
    }

    /** Loads the library once; throws {@link DpdkUnavailableException} saying what to install. */
    static synchronized void load() {
        if (loaded) {
            return;
        }
        try {
            System.loadLibrary(LIBRARY);
        } catch (UnsatisfiedLinkError e) {
            throw new DpdkUnavailableException("the DPDK transport needs lib" + LIBRARY + ".so and DPDK 22.11 "
                    + "(Debian: apt-get install libdpdk-dev, then build with mvn -P dpdk); java.library.path="
                    + System.getProperty("java.library.path") + ": " + e.getMessage(), e);
        }
        loaded = true;
    }

    static native void ealInit(String[] args);

    static native void ealCleanup();

    static native int portByName(String deviceName);

    /** Configures and starts a port; a failing start is retried every 100 ms, {@code startRetries} times. */
    static native long portStart(int port, int descriptors, int mbufs, int mtu, int startRetries);

    static native boolean portLinkUp(long handle);

    static native void setRxDropPerMillion(long handle, int perMillion);

    /** Fills {@code dst} (direct) with records [u16 length][frame]; returns the record count. */
    static native int rxBurst(long handle, ByteBuffer dst);

    /**
     * Sends {@code count} records [u16 length][frame] from {@code src} (direct), in order; returns
     * how many the device took, stopping at the first it refused.
     */
    static native int txBurst(long handle, ByteBuffer src, int count);

    /** Adds to the port's TX overflow counter: packets given up after the TX ring stayed full. */
    static native void countTxOverflow(long handle, int packets);

    /** ipackets, opackets, imissed, ierrors, oerrors, rx_nombuf, injected drops, tx overflow. */
    static native void portStats(long handle, long[] out);

    static native String portMac(long handle);

    static native void portStop(long handle);
}
