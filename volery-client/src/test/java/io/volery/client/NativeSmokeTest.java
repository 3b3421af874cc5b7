package io.volery.client;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class NativeSmokeTest {
    @Test
    void createThenRead() throws Exception {
        try (ClusterWithClientNodes c = new ClusterWithClientNodes(2, 3, 2, 2000);
             VoleryClient v = VoleryClient.connect(c.config(), 10_000, e -> { })) {
            long t0 = System.nanoTime();
            assertEquals("/a", v.create("/a", "x".getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            assertArrayEquals("x".getBytes(), v.getData("/a", false, null));
            System.out.println("took " + (System.nanoTime() - t0) / 1e6);
        }
    }
}
