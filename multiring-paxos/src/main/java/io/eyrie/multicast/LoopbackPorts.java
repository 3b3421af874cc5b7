package io.eyrie.multicast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports on 127.0.0.1 for local clusters, tests and benchmarks.
 *
 * <p>A port is drawn at random between {@value #LOW} and {@value #HIGH}, below Linux's ephemeral
 * range (32768 and up by default). A port the kernel hands out for {@code bind(0)} is one it may
 * also hand to an outgoing connection (a client's, another test's) in the moment between the probe
 * closing and the node binding it, and then the node fails with "Address already in use". Below the
 * ephemeral range only another listener can take it. A port is probed by binding it, and this JVM
 * never hands the same port out twice.
 */
public final class LoopbackPorts {
    static final int LOW = 15_000;
    static final int HIGH = 32_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private LoopbackPorts() {
    }

    /** A port on 127.0.0.1 that was free a moment ago and that this JVM has not handed out before. */
    public static int free() {
        InetAddress loopback = loopback();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = LOW + random.nextInt(HIGH - LOW);
            if (HANDED_OUT.contains(port) || !bindable(loopback, port)) {
                continue;
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1 between " + LOW + " and " + HIGH
                + " after 1000 tries");
    }

    /** {@code n} distinct ports, each as {@link #free()}. */
    public static int[] free(int n) {
        int[] ports = new int[n];
        for (int i = 0; i < n; i++) {
            ports[i] = free();
        }
        return ports;
    }

    /** {@code n} consecutive free ports, the first returned (for a server that numbers its ports). */
    public static int freeRun(int n) {
        InetAddress loopback = loopback();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        next:
        for (int attempt = 0; attempt < 1000; attempt++) {
            int first = LOW + random.nextInt(HIGH - LOW - n);
            for (int port = first; port < first + n; port++) {
                if (HANDED_OUT.contains(port) || !bindable(loopback, port)) {
                    continue next;
                }
            }
            for (int port = first; port < first + n; port++) {
                if (!HANDED_OUT.add(port)) {
                    continue next;
                }
            }
            return first;
        }
        throw new IllegalStateException("no " + n + " consecutive free ports on 127.0.0.1 after 1000 tries");
    }

    private static boolean bindable(InetAddress address, int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(address, port), 1);
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByName("127.0.0.1");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
