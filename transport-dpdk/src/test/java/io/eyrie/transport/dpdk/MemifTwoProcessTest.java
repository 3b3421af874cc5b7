package io.eyrie.transport.dpdk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Two JVMs, each with its own EAL, exchange messages over a memif link (a shared-memory virtual NIC). */
class MemifTwoProcessTest {

    static final int MESSAGES = 24;

    @Test
    void messagesOfEverySizeCrossAMemifLinkIntactBetweenTwoJvms(@TempDir Path dir) throws Exception {
        assumeTrue(Boolean.getBoolean("dpdk.tests"), "DPDK tests need -P dpdk");
        Path cluster = dir.resolve("cluster.cfg");
        Files.writeString(cluster, """
                node.1 = 10.77.0.1:9001
                node.2 = 10.77.0.2:9002
                node.1.groups = 1
                node.2.groups = 1
                ring.0.acceptors = 1,2
                group.1.ring = 0
                ring.all = 0
                """);
        Path sock = dir.resolve("memif.sock");
        Path server = dir.resolve("dpdk-1.properties");
        Files.writeString(server, "eal.args = --vdev=net_memif0,role=server,id=0,socket=" + sock
                + ",socket-abstract=no\nports = net_memif0\n");
        Path client = dir.resolve("dpdk-2.properties");
        Files.writeString(client, "eal.args = --vdev=net_memif0,role=client,id=0,socket=" + sock
                + ",socket-abstract=no\nports = net_memif0\n");
        try (ChildJvm echo = new ChildJvm(List.of(), EchoPeer.class, cluster.toString(), server.toString(), "1", "2", "echo")) {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!echo.lines.contains("started") && System.nanoTime() < deadline && echo.process.isAlive()) {
                Thread.sleep(20);
            }
            assertTrue(echo.lines.contains("started"), "echo side should start; output:\n" + echo.output());
            try (ChildJvm sender = new ChildJvm(List.of(), EchoPeer.class, cluster.toString(), client.toString(), "2", "1",
                    "send", String.valueOf(MESSAGES))) {
                assertTrue(sender.awaitExit(60), "sender should finish within 60 s; output:\n" + sender.output());
                List<String> echoes = sender.lines.stream().filter(l -> l.startsWith("echo ")).toList();
                assertEquals(MESSAGES, echoes.size(), "every message should come back; output:\n" + sender.output());
                for (int i = 0; i < MESSAGES; i++) {
                    String expected = "echo " + i + " " + EchoPeer.message(i).length + " SAME";
                    assertEquals(expected, echoes.get(i), "echo of message " + i);
                }
            }
        }
    }
}
