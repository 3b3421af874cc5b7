package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.eyrie.core.Command;
import io.eyrie.core.EyrieClient;
import io.volery.server.frontend.OpCodes;
import io.volery.server.frontend.ZkReply;
import io.volery.server.internal.PathPartitioner;
import io.volery.server.internal.VoleryOracle;
import io.volery.server.internal.VoleryRequest;
import io.volery.server.internal.VoleryStateMachine;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.jute.BinaryOutputArchive;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.proto.SetDataRequest;
import org.junit.jupiter.api.Test;

/**
 * A session's pipelined requests keep their order even if a coordinator failover delivers them out of
 * order: the replicas check each request's number against the one it was pipelined behind. The
 * targeted scenario orders, for a real session, its second request before its first, as a failover
 * that re-proposed the first late would.
 */
class SessionFifoTest {

    @Test
    void aRequestThatOvertookTheOneItFollowsIsRefusedUntouchedAndRunsAfterIt() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 1, 0, 2000)) {
            VoleryNode node = c.nodes().get(0);
            ZooKeeper zk = VolerySmokeTest.connect("127.0.0.1:" + node.clientAddress().getPort());
            VoleryOracle oracle = new VoleryOracle(new PathPartitioner(c.partitions()), c.partitions()[0]);
            try (EyrieClient failoverLike = new EyrieClient(node.multicast(), oracle)) {
                zk.create("/fifo", bytes("initial"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                long session = zk.getSessionId();
                long first = 1_000_001;

                VoleryRequest second = setData(session, node.nodeId(), "second", first + 1, first);
                Object early = failoverLike.executeAsync(new Command(second)).get(20, TimeUnit.SECONDS);
                assertInstanceOf(VoleryStateMachine.Reordered.class, early,
                        "request " + (first + 1) + " ordered before request " + first + " it follows");
                assertArrayEquals(bytes("initial"), zk.getData("/fifo", false, null),
                        "data after the refused request: " + new String(zk.getData("/fifo", false, null),
                                StandardCharsets.UTF_8));

                VoleryRequest firstRequest = setData(session, node.nodeId(), "first", first, 0);
                assertEquals(0, errorOf(failoverLike.executeAsync(new Command(firstRequest)).get(20, TimeUnit.SECONDS)),
                        "the first request's error code");
                assertEquals(0, errorOf(failoverLike.executeAsync(new Command(second)).get(20, TimeUnit.SECONDS)),
                        "the second request, sent again after the first ran");
                assertEquals("second", new String(zk.getData("/fifo", false, null), StandardCharsets.UTF_8),
                        "the data after both, in the session's order");
                // the session's own front end goes on with its pipelining
                zk.setData("/fifo", bytes("later"), -1);
                assertEquals("later", new String(zk.getData("/fifo", false, null), StandardCharsets.UTF_8));
            } finally {
                zk.close();
            }
        }
    }

    private static int errorOf(Object reply) {
        assertInstanceOf(byte[].class, reply, "a ZooKeeper reply");
        return ZkReply.encoded(0, (byte[]) reply).err();
    }

    private static VoleryRequest setData(long session, int frontEnd, String data, long seq, long after) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryOutputArchive a = BinaryOutputArchive.getArchive(bytes);
        new RequestHeader(7, OpCodes.SET_DATA).serialize(a, "header");
        new SetDataRequest("/fifo", bytes(data), -1).serialize(a, "request");
        VoleryRequest r = VoleryRequest.zk(session, bytes.toByteArray(), System.currentTimeMillis(), frontEnd);
        r.seq = seq;
        r.after = after;
        return r;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
