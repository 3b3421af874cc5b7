package io.eyrie.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.eyrie.multicast.ClusterConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JVM-wide partition list when a second cluster file is installed after the first. */
class PartitionInstallTest {

    private static final String TWO_GROUPS = """
            node.1 = 127.0.0.1:7001
            node.2 = 127.0.0.1:7002
            node.1.groups = 1
            node.2.groups = 2
            ring.1.acceptors = 1
            ring.2.acceptors = 2
            ring.0.acceptors = 1,2
            group.1.ring = 1
            group.2.ring = 2
            ring.all = 0
            """;
    private static final String ONE_GROUP = """
            node.1 = 127.0.0.1:7101
            node.1.groups = 1
            ring.1.acceptors = 1
            group.1.ring = 1
            ring.all = 1
            """;

    @Test
    void anEarlierClustersPartitionsStillResolveAfterALaterInstall() {
        Partition.install(ClusterConfig.parse(TWO_GROUPS, "two.cfg"));
        Partition two = Partition.get(2);
        Partition.install(ClusterConfig.parse(ONE_GROUP, "one.cfg"));

        assertEquals(List.of(Partition.get(1)), Partition.getPartitionList(), "the list is the last cluster's");
        assertEquals(two, Partition.get(2), "partition 2 of the first cluster file is still named");
        assertEquals(2, Partition.get(2).getId());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> Partition.get(3));
        assertTrue(unknown.getMessage().contains("no partition 3"), unknown.getMessage());
    }
}
