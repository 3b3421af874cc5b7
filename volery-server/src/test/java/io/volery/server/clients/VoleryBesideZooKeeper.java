package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** A test class's 2x3 Volery (partitioned by subtree) and, beside it, a real ZooKeeper 3.9.5 as the oracle. */
abstract class VoleryBesideZooKeeper {
    static VoleryCluster cluster;
    static EmbeddedZooKeeper zookeeper;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        cluster = new VoleryCluster(2, 3, 0, 500);
        zookeeper = Clients.listeningZooKeeper(dir);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        Clients.stop(cluster, zookeeper);
    }
}
