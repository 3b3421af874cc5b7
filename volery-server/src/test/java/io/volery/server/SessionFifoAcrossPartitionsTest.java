package io.volery.server;

import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's FIFO promise through a front end when a session's asynchronous requests switch
 * between partitions: a request pipelined behind one that still waits for another partition's
 * answers must not be sent, and so ordered, before it.
 */
class SessionFifoAcrossPartitionsTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void asynchronousRequestsAlternatingPartitionsRunInSubmissionOrder() throws Exception {
        try (VoleryCluster c = new VoleryCluster(2, 3, 0, 2000)) {
            ZooKeeper zk = VolerySmokeTest.connect(c.connectString());
            try {
                PathPartitioner partitioner = new PathPartitioner(c.partitions());
                String a = topLevelIn(partitioner, c.partitions()[0]);
                String b = topLevelIn(partitioner, c.partitions()[1]);
                zk.create(a, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                zk.create(b, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                int n = 40;
                List<Integer> order = new CopyOnWriteArrayList<>();
                List<Integer> codes = new CopyOnWriteArrayList<>();
                CountDownLatch done = new CountDownLatch(n);
                int versionA = 0;
                int versionB = 0;
                // Groups of three to one partition, then three to the other: each setData's expected
                // version holds only if it runs after every request issued before it.
                for (int i = 0; i < n; i++) {
                    boolean toA = (i / 3) % 2 == 0;
                    int version = toA ? versionA++ : versionB++;
                    int index = i;
                    zk.setData(toA ? a : b, new byte[] {(byte) i}, version, (rc, path, ctx, stat) -> {
                        order.add(index);
                        codes.add(rc);
                        done.countDown();
                    }, null);
                }
                assertTrue(done.await(30, TimeUnit.SECONDS), "all replies within 30 s");
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    expected.add(i);
                }
                assertEquals(expected, order, "replies in submission order");
                assertEquals(n, codes.stream().filter(rc -> rc == 0).count(),
                        "every setData saw the version its predecessors left; result codes: " + codes);
            } finally {
                zk.close();
            }
        }
    }

    private static String topLevelIn(PathPartitioner partitioner, int partition) {
        for (int i = 0; ; i++) {
            String path = "/fifo-" + i;
            if (partitioner.ownerOf(path) == partition) {
                return path;
            }
        }
    }
}
