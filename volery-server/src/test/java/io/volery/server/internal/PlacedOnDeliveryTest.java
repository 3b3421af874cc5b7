package io.volery.server.internal;

import io.volery.server.config.VoleryConfig.Partitioning;
import io.volery.server.frontend.ZkRequest;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which requests to several partitions each destination runs the commands after only once every destination
 * delivered them (ADRs 083, 085): under subtree, top-level creates and deletes finish in continuations and are
 * not; under hash they end in an all-to-all exchange of events and are; writes of the root are not under either.
 */
class PlacedOnDeliveryTest {

    private static final int[] PARTITIONS = {1, 2, 3};

    @Test
    void createsAndDeletesListedEverywhereArePlacedUnderHashOnly() {
        for (Partitioning strategy : Partitioning.values()) {
            VoleryOracle oracle = new VoleryOracle(new PathPartitioner(PARTITIONS, strategy), 1);
            boolean hash = strategy == Partitioning.HASH;
            VoleryRequest create = request(OpCode.create, new CreateRequest("/top", new byte[0],
                    org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE, 0));
            VoleryRequest delete = request(OpCode.delete, new DeleteRequest("/top", -1));
            VoleryRequest rootWrite = request(OpCode.setData, new SetDataRequest("/", new byte[0], -1));
            assertEquals(PARTITIONS.length, oracle.destinations(create).length, strategy + ": the create goes everywhere");
            assertEquals(PARTITIONS.length, oracle.destinations(delete).length, strategy + ": the delete goes everywhere");
            assertEquals(hash, oracle.placedOnDelivery(create), strategy + ": create");
            assertEquals(hash, oracle.placedOnDelivery(delete), strategy + ": delete");
            assertEquals(false, oracle.placedOnDelivery(rootWrite), strategy + ": write of the root");
        }
    }

    private static VoleryRequest request(int opCode, Record body) {
        return VoleryRequest.zk(7, ZkRequest.of(1, opCode, body), 0, 1);
    }
}
