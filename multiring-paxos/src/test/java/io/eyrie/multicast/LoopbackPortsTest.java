package io.eyrie.multicast;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopbackPortsTest {

    /** The kernel's ephemeral range: the ports an outgoing connection may be given. */
    private static int[] ephemeralRange() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (!Files.exists(range)) {
            return new int[] {32768, 60999};
        }
        String line;
        try (java.io.BufferedReader in = Files.newBufferedReader(range)) {
            line = in.readLine();
        }
        String[] parts = line.trim().split("\\s+");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    }

    @Test
    void portsAreDistinctBindableAndOutsideTheEphemeralRange() throws Exception {
        int[] ephemeral = ephemeralRange();
        Set<Integer> seen = new HashSet<>();
        for (int port : LoopbackPorts.free(300)) {
            assertTrue(seen.add(port), "port " + port + " handed out twice");
            assertTrue(port < ephemeral[0] || port > ephemeral[1],
                    "port " + port + " is in the ephemeral range " + ephemeral[0] + "-" + ephemeral[1]
                            + ", where an outgoing connection can take it before the node binds it");
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 1);
            }
        }
    }

    @Test
    void aPortSomeoneListensOnIsNeverHandedOut() throws Exception {
        int taken = LoopbackPorts.free();
        try (ServerSocket squatter = new ServerSocket()) {
            squatter.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), taken), 1);
            for (int port : LoopbackPorts.free(500)) {
                assertTrue(port != taken);
            }
        }
    }

    @Test
    void aRunIsConsecutiveAndFree() throws Exception {
        int first = LoopbackPorts.freeRun(6);
        for (int port = first; port < first + 6; port++) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 1);
                assertEquals(port, s.getLocalPort());
            }
        }
    }
}
