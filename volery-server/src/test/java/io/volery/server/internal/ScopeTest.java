package io.volery.server.internal;

import io.volery.server.config.VoleryConfig.Partitioning;
import io.volery.server.frontend.ZkRequest;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetDataRequest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Where reads of the root go: to its owner under both partitionings, so its one-shot watches sit where setWatches re-arms them. */
class ScopeTest {

    private static final int[] PARTITIONS = {0, 1, 2};

    @Test
    void theRootIsReadAndWatchedInItsOwnerUnderBothPartitionings() {
        for (Partitioning strategy : Partitioning.values()) {
            PathPartitioner p = new PathPartitioner(PARTITIONS, strategy);
            for (ZkRequest q : java.util.List.of(
                    ZkRequest.of(1, OpCode.getChildren, new GetChildrenRequest("/", true)),
                    ZkRequest.of(2, OpCode.getChildren2, new GetChildren2Request("/", true)),
                    ZkRequest.of(3, OpCode.getData, new GetDataRequest("/", true)),
                    ZkRequest.of(4, OpCode.exists, new ExistsRequest("/", true)))) {
                assertEquals(Scope.OWNER, Scope.of(q, p), strategy + " op " + q.opCode());
                assertEquals(0, p.ownerOf("/"), "the lowest partition owns the root");
            }
            // the partition setWatches re-arms the root's one-shot watches in is the one they were set in
            io.volery.server.tree.Command.SetWatches all = new io.volery.server.tree.Command.SetWatches(7, 0,
                    java.util.List.of("/"), java.util.List.of("/"), java.util.List.of("/"), java.util.List.of(), java.util.List.of());
            assertEquals(java.util.List.of("/"), SetWatchesSplitter.restrict(all, p, 0).childWatches());
            assertEquals(java.util.List.of(), SetWatchesSplitter.restrict(all, p, 2).childWatches(), strategy.toString());
        }
    }

    /** ADR 089: under hash every partition holds a share of a quota's stats, so reads of a stats node gather. */
    @Test
    void aQuotaStatsNodeIsReadFromEveryPartitionUnderHashOnly() {
        String stats = "/zookeeper/quota/app/x/zookeeper_stats";
        for (Partitioning strategy : Partitioning.values()) {
            PathPartitioner p = new PathPartitioner(PARTITIONS, strategy);
            Scope expected = strategy == Partitioning.HASH ? Scope.GATHER : Scope.OWNER;
            assertEquals(expected, Scope.of(ZkRequest.of(1, OpCode.getData, new GetDataRequest(stats, true)), p), strategy.toString());
            assertEquals(expected, Scope.of(ZkRequest.of(2, OpCode.exists, new ExistsRequest(stats, false)), p), strategy.toString());
            for (String other : java.util.List.of("/zookeeper/quota/app/x/zookeeper_limits", "/app/x/zookeeper_stats",
                    "/zookeeper/quota/zookeeper_stats")) {
                assertEquals(Scope.OWNER, Scope.of(ZkRequest.of(3, OpCode.getData, new GetDataRequest(other, false)), p),
                        strategy + " " + other);
            }
        }
    }
}
