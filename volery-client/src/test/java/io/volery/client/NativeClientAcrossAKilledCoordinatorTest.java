package io.volery.client;

import io.eyrie.multicast.ClusterConfig;
import io.volery.server.config.VoleryConfig;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A native session that pipelines writes while the ring's coordinator, a replica process, is killed with
 * {@code kill -9}: the next coordinator re-proposes what the dead one left undecided, possibly after later
 * proposals of the session, and the session's order must survive it (ADR 084). Every write is answered, each
 * node's writes take versions in the order the session sent them, none is applied twice or lost (a node's
 * version is its number of writes), and a plain ZooKeeper client at a surviving front end reads the session's
 * last value of each node.
 */
class NativeClientAcrossAKilledCoordinatorTest {

    private static final int NODES = 4;
    private static final int OUTSTANDING = 64;

    @TempDir
    Path dir;

    @Test
    void aPipelinedSessionKeepsItsOrderAcrossTheCoordinatorsKill() throws Exception {
        try (ProcessReplicas replicas = new ProcessReplicas(dir, 1, 1)) {
            ClusterConfig config = VoleryConfig.loadForClient(replicas.config()).cluster();
            try (RingAccess rings = RingAccess.open(config, replicas.firstClientNode(), RingAccess.Options.defaults());
                 VoleryClient c = VoleryClient.connect(rings, 30_000, e -> { })) {
                List<String> paths = new ArrayList<>();
                for (int n = 0; n < NODES; n++) {
                    paths.add(c.create("/killed-coordinator-" + n, new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
                }
                List<List<CompletableFuture<Stat>>> writes = new ArrayList<>();
                paths.forEach(p -> writes.add(new ArrayList<>()));
                List<CompletableFuture<Stat>> window = new ArrayList<>();
                long killAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                long end = killAt + TimeUnit.SECONDS.toNanos(12);
                boolean killed = false;
                int sent = 0;
                while (System.nanoTime() < end) {
                    if (!killed && System.nanoTime() >= killAt) {
                        replicas.kill(1);
                        killed = true;
                    }
                    window.removeIf(CompletableFuture::isDone);
                    if (window.size() >= OUTSTANDING) {
                        CompletableFuture.anyOf(window.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
                        continue;
                    }
                    int n = sent % NODES;
                    CompletableFuture<Stat> w = c.setDataAsync(paths.get(n), bytes("w" + sent), -1);
                    writes.get(n).add(w);
                    window.add(w);
                    sent++;
                }
                assertTrue(killed, "the coordinator was killed during the run");
                assertFalse(replicas.isAlive(1), "node 1 is dead");
                for (int n = 0; n < NODES; n++) {
                    int version = 0;
                    List<CompletableFuture<Stat>> mine = writes.get(n);
                    for (int i = 0; i < mine.size(); i++) {
                        int v = mine.get(i).get(60, TimeUnit.SECONDS).getVersion();
                        assertEquals(version + 1, v, "node " + paths.get(n) + ": write " + i + " of the session's "
                                + mine.size() + " got version " + v + " after version " + version);
                        version = v;
                    }
                    assertTrue(mine.size() > 10, "writes of " + paths.get(n) + ": " + mine.size());
                }
                // the last value of each node, through a surviving front end with the real ZooKeeper client
                try (ZooKeeper zk = ProcessReplicas.connect(replicas.connectString(2, 3))) {
                    for (int n = 0; n < NODES; n++) {
                        int last = lastIndexOf(n, sent);
                        Stat stat = new Stat();
                        assertEquals("w" + last, new String(zk.getData(paths.get(n), false, stat), StandardCharsets.UTF_8),
                                paths.get(n) + ": the session's last write");
                        assertEquals(writes.get(n).size(), stat.getVersion(), paths.get(n) + ": one version per write");
                    }
                }
                System.out.println("native session across the coordinator's kill: " + sent + " writes, "
                        + rings.reorderedResends() + " refused for overtaking and sent again");
            }
        }
    }

    /** The last write index below {@code sent} that went to node {@code n}. */
    private static int lastIndexOf(int n, int sent) {
        int last = sent - 1;
        while (last % NODES != n) {
            last--;
        }
        return last;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
