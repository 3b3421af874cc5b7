package io.volery.server.durability;

import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Quotas across kill -9 (ADR 072): a 2 x 3 durable cluster with {@code enforceQuota = true} and a hard count
 * limit on a subtree in each partition. A replica of each partition is killed while the subtrees grow and one
 * create is refused, and restarted; then every process is killed and restarted (recovering from snapshots and
 * logs). The recovered replicas must still know the quotas (the set of quota'd paths is rebuilt from the tree,
 * not stored): they count and refuse exactly as the others, which the replicas' equal digests show, and every
 * node reads the same stats.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class QuotaRecoveryProcessTest {
    private static final int LIMIT = 12;

    @Test
    void quotasSurviveKilledReplicasAndAWholeClusterRestart(@TempDir Path dir) throws Exception {
        PathPartitioner partitioner = new PathPartitioner(new int[] {1, 2});
        String a = ownedBy(partitioner, 1);
        String b = ownedBy(partitioner, 2);
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 10, "enforceQuota = true\n")) {
            cluster.startAll();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(1))) {
                for (String root : new String[] {a, b}) {
                    zk.create(root, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    setHardCountLimit(zk, root, LIMIT);
                    grow(zk, root, 0, 5);
                }
                cluster.kill(2);
                cluster.kill(5);
                for (String root : new String[] {a, b}) {
                    grow(zk, root, 5, 11); // 1 + 11 children: the limit
                    assertThrows(KeeperException.QuotaExceededException.class, () -> grow(zk, root, 11, 12),
                            "a thirteenth node under " + root);
                    zk.delete(root + "/c0", -1);
                }
            }
            cluster.start(2);
            cluster.start(5);
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(2))) {
                for (String root : new String[] {a, b}) {
                    grow(zk, root, 11, 12); // room again after the delete
                    assertThrows(KeeperException.QuotaExceededException.class, () -> grow(zk, root, 12, 13));
                }
            }
            cluster.assertReplicasAgree(1);
            cluster.assertReplicasAgree(2);

            cluster.killAll();
            cluster.startAll();
            for (int id : ProcessCluster.NODES) {
                try (ZooKeeper zk = cluster.session(id)) {
                    for (String root : new String[] {a, b}) {
                        assertEquals("count=12,bytes=22", stats(zk, root), "stats of " + root + " read through node " + id);
                    }
                }
            }
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString(5))) {
                for (String root : new String[] {a, b}) {
                    assertThrows(KeeperException.QuotaExceededException.class, () -> grow(zk, root, 13, 14),
                            "the quota on " + root + " holds after every process restarted");
                    zk.setData(root + "/c1", "x".getBytes(StandardCharsets.UTF_8), -1);
                    assertEquals("count=12,bytes=21", stats(zk, root));
                }
            }
            cluster.assertReplicasAgree(1);
            cluster.assertReplicasAgree(2);
            assertTrue(cluster.snapshots(1).size() > 0 && cluster.snapshots(4).size() > 0,
                    "the replicas took snapshots (snapCount=10), so recovery read them");
        }
    }

    private static String ownedBy(PathPartitioner p, int partition) {
        for (char c = 'a'; c <= 'z'; c++) {
            if (p.ownerOf("/quota-" + c) == partition) {
                return "/quota-" + c;
            }
        }
        throw new IllegalStateException("no name for partition " + partition);
    }

    /** What zkCli's {@code setquota -N} creates. */
    private static void setHardCountLimit(ZooKeeper zk, String root, int limit) throws Exception {
        String q = "/zookeeper/quota" + root;
        zk.create(q, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        zk.create(q + "/zookeeper_limits", ("count=-1,bytes=-1=;byteHardLimit=-1;countHardLimit=" + limit)
                .getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        zk.create(q + "/zookeeper_stats", "count=0,bytes=0".getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }

    /** Children c{from}..c{to - 1}, each holding two bytes. */
    private static void grow(ZooKeeper zk, String root, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            zk.create(root + "/c" + i, "ab".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);
        }
    }

    private static String stats(ZooKeeper zk, String root) throws Exception {
        return new String(zk.getData("/zookeeper/quota" + root + "/zookeeper_stats", false, null), StandardCharsets.UTF_8);
    }
}
