package io.eyrie.transport.dpdk;

import io.eyrie.multicast.ClusterConfig;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DpdkSettingsTest {

    @Test
    void noHugepagesByDefaultAndTheOperatorsDevicesAfterTheMemoryOptions() {
        DpdkSettings s = DpdkSettings.parse("""
                eal.args = --vdev=net_memif0,role=server --vdev=net_null0
                ports = net_memif0, net_null0
                port.net_memif0.peers = 2,3
                """, "test");
        List<String> args = s.ealArgs();
        assertEquals(List.of("--no-huge", "-m", "256", "--no-shconf"), args.subList(0, 4));
        assertEquals(List.of("--vdev=net_memif0,role=server", "--vdev=net_null0"), args.subList(args.size() - 2, args.size()));
        assertArrayEquals(new int[] {2, 3}, s.ports().get(0).peers());
        assertTrue(s.ports().get(1).reaches(7), "a port without peers reaches every node");
        DpdkSettings huge = DpdkSettings.parse("ports = net_null0\nhugepages = true\n", "test");
        assertTrue(huge.ealArgs().stream().noneMatch(a -> a.equals("--no-huge")), "hugepages = true drops --no-huge");
    }

    @Test
    void mistakesAreReportedWithTheKey() {
        IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
                () -> DpdkSettings.parse("ports = p\nmtuu = 1500\n", "dpdk.properties"));
        assertTrue(typo.getMessage().contains("unknown key 'mtuu'"), typo.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> DpdkSettings.parse("", "x"));
        assertTrue(none.getMessage().contains("no ports"), none.getMessage());
    }

    @Test
    void withoutTheNativeLibraryStartFailsWithAMessageSayingWhatToInstall(@TempDir Path dir) throws Exception {
        // A child JVM whose library path holds no libeyriedpdk.so, whether or not this build made one.
        Path cluster = dir.resolve("cluster.cfg");
        Files.writeString(cluster, "node.1 = 10.0.0.1:9000\nnode.2 = 10.0.0.2:9000\nnode.1.groups = 1\n"
                + "ring.0.acceptors = 1\ngroup.1.ring = 0\nring.all = 0\n");
        Path settings = dir.resolve("dpdk.properties");
        Files.writeString(settings, "ports = net_null0\n");
        try (ChildJvm child = new ChildJvm(List.of(), List.of("-Djava.library.path=" + dir), EchoPeer.class.getName(),
                cluster.toString(), settings.toString(), "1", "2", "echo")) {
            assertTrue(child.awaitExit(60), "the child should exit on its own; output:\n" + child.output());
            assertEquals(1, child.process.exitValue(), "exit status of a JVM whose main threw");
            String out = child.output();
            assertTrue(out.contains(DpdkUnavailableException.class.getName()) && out.contains("libdpdk-dev")
                    && out.contains("-P dpdk"), "expected a DpdkUnavailableException saying what to install, got:\n" + out);
        }
        DpdkTransport never = new DpdkTransport(ClusterConfig.load(cluster), 1, DpdkSettings.load(settings), 1000);
        assertFalse(never.send(2, ByteBuffer.allocate(1)), "a transport that never started drops what it is given");
        assertEquals(1, never.stats().framesDropped(), "and counts the drop");
    }
}
