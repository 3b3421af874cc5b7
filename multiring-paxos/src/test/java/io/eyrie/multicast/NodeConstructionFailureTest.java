package io.eyrie.multicast;

import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;
import io.eyrie.multicast.internal.storage.MemoryLogBudget;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node that cannot be made gives back what it opened before the failure. */
class NodeConstructionFailureTest {

    @Test
    void aLogThatFailsToOpenClosesTheLogsOpenedBeforeIt() {
        ClusterConfig config = ClusterConfig.parse(ClusterConfigTest.THREE_NODES, "test.cfg");
        MemoryLogBudget budget = new MemoryLogBudget(1 << 20);
        List<MemoryAcceptorLog> opened = new ArrayList<>();
        // node 1 accepts rings 0, 1 and 2: the first opens, the second fails (a damaged disk, say)
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> MulticastNode.builder(config, 1)
                .acceptorLogs(ring -> {
                    if (!opened.isEmpty()) {
                        throw new IllegalStateException("cannot open the log of ring " + ring);
                    }
                    MemoryAcceptorLog l = new MemoryAcceptorLog(1024, budget, 16);
                    opened.add(l);
                    return l;
                })
                .build());
        assertTrue(e.getMessage().contains("cannot open the log"), e.getMessage());
        assertEquals(1, opened.size());
        assertEquals(0, budget.openLogs(), "the log opened first gave its share of the budget back");
    }
}
