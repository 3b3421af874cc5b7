package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Cluster files for tests, on 127.0.0.1 ports the OS just reported free. */
final class TestCluster {

    private TestCluster() {
    }

    /** {@code n} distinct ports that were free a moment ago (all held at once, so no duplicates). */
    static int[] freePorts(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing to do: the port is released either way
                }
            }
        }
    }

    /** Nodes 1..n at 127.0.0.1:ports[i-1], one ring of them all; {@code extra} lines are appended. */
    static ClusterConfig config(int[] ports, String... extra) {
        StringBuilder text = new StringBuilder();
        StringBuilder acceptors = new StringBuilder();
        for (int i = 0; i < ports.length; i++) {
            text.append("node.").append(i + 1).append(" = 127.0.0.1:").append(ports[i]).append('\n');
            acceptors.append(i == 0 ? "" : ",").append(i + 1);
        }
        text.append("ring.0.acceptors = ").append(acceptors).append('\n');
        text.append("ring.all = 0\n");
        for (String line : extra) {
            text.append(line).append('\n');
        }
        return ClusterConfig.parse(text.toString(), "test cluster");
    }
}
