package io.volery.bench;

import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A load-generating client whose session expires stops issuing: an expired ZooKeeper session fails every
 * request at once, and a client that went on issuing counted millions of failures a second on the load
 * generator's CPU (seen in a capped benchmark run, session 34). Real ZooKeeper 3.9.5; the session is
 * expired the way ZooKeeper's own tests do it, by closing it through a second handle with its id and password.
 */
class BenchClientSessionLossTest {

    @TempDir
    Path dir;

    @Test
    void aClientWhoseSessionExpiredStopsIssuing() throws Exception {
        try (InProcessZooKeeper server = new InProcessZooKeeper(dir.resolve("zk"))) {
            BenchConfig config = new BenchConfig(server.connectString(), 1, 4, Duration.ofSeconds(30), Duration.ZERO,
                    Workload.SETDATA, 0, 10, 4, 1, 1, Duration.ofSeconds(10), false);
            ZooKeeper zk = connect(server.connectString(), 10_000, 0, null);
            ZnodeLayout layout = new ZnodeLayout(4, 1);
            BenchSession session = ZooKeeperTarget.session(zk);
            new ZnodePopulator(session).populate(layout, new byte[10], 30_000);
            OperationRecorder recorder = new OperationRecorder();
            BenchTarget target = new BenchTarget() {
                @Override
                public BenchSession open() {
                    return session;
                }

                @Override
                public void close() {
                }
            };
            BenchClient client = BenchClient.connect(0, target, config, layout, "t", new byte[10], recorder);
            client.start();
            Thread.sleep(300);
            assertTrue(recorder.takeInterval().errors().isEmpty(), "failures before the session was expired");
            // a second handle on the same session closes it: the first one's requests now fail with SESSIONEXPIRED
            connect(server.connectString(), 10_000, zk.getSessionId(), zk.getSessionPasswd()).close();
            assertTrue(client.awaitDrained(20_000), "the client should stop issuing once its session expired");
            long failures = recorder.takeInterval().errors().values().stream().mapToLong(Long::longValue).sum();
            assertTrue(failures >= 1 && failures <= 4 * 4, "failures after the expiry: " + failures
                    + " (a window of 4, each failing once; issuing on counts without end)");
            client.close();
        }
    }

    private static ZooKeeper connect(String connect, int timeout, long id, byte[] password) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = password == null
                ? new ZooKeeper(connect, timeout, e -> {
                    if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                })
                : new ZooKeeper(connect, timeout, e -> {
                    if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                }, id, password);
        assertTrue(connected.await(20, TimeUnit.SECONDS), "connected to " + connect);
        return zk;
    }
}
