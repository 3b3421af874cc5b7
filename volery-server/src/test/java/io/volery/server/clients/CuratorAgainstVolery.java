package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.config.VoleryConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What the Curator recipe test classes share: a 2-partition x 3-replica Volery for the class, partitioned by
 * {@code hash} when the test class's name ends in {@code HashTest} and by subtree otherwise; Curator clients
 * and whatever else a test opens, closed after each test in reverse order; a thread pool for contenders.
 */
abstract class CuratorAgainstVolery {
    static VoleryCluster cluster;
    final List<AutoCloseable> opened = new ArrayList<>();
    final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeAll
    static void startCluster(TestInfo info) throws Exception {
        VoleryConfig.Partitioning partitioning = info.getTestClass().orElseThrow().getSimpleName().endsWith("HashTest")
                ? VoleryConfig.Partitioning.HASH : VoleryConfig.Partitioning.SUBTREE;
        cluster = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @AfterEach
    void closeClients() throws Exception {
        Collections.reverse(opened);
        for (AutoCloseable c : opened) {
            c.close();
        }
        pool.shutdownNow();
    }

    /** Queue items as UTF-8 strings. */
    static final QueueSerializer<String> UTF8 = new QueueSerializer<>() {
        @Override
        public byte[] serialize(String item) {
            return item.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    /** A Curator client of the whole cluster, connected, closed after the test. */
    CuratorFramework client() throws InterruptedException {
        CuratorFramework c = Clients.curator(cluster.connectString());
        opened.add(c);
        return c;
    }

    static Stat exists(CuratorFramework c, String path) {
        try {
            return c.checkExists().forPath(path);
        } catch (Exception e) {
            throw new AssertionError("checkExists(" + path + ") failed", e);
        }
    }
}
