package io.eyrie.transport.dpdk;

import io.eyrie.multicast.ClusterConfig;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

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
    void withoutTheNativeLibraryStartFailsWithAMessageSayingWhatToInstall() {
        assumeFalse(Boolean.getBoolean("dpdk.tests"), "only meaningful where the JNI library is not built");
        ClusterConfig config = ClusterConfig.parse("node.1 = 10.0.0.1:9000\nnode.1.groups = 1\nring.0.acceptors = 1\n"
                + "group.1.ring = 0\nring.all = 0\n", "test");
        DpdkTransport t = new DpdkTransport(config, 1, DpdkSettings.parse("ports = net_null0\n", "t"), 1000);
        DpdkUnavailableException e = assertThrows(DpdkUnavailableException.class, () -> t.start(
                (from, message) -> { }));
        assertTrue(e.getMessage().contains("libdpdk-dev") && e.getMessage().contains("-P dpdk"), e.getMessage());
        assertEquals(false, t.send(1, ByteBuffer.allocate(1)) && false);
    }
}
