package io.volery.server.clients;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Connecting real clients to a Volery cluster, and waiting for what they should see. */
final class Clients {
    static final Duration PATIENCE = Duration.ofSeconds(30);

    private Clients() {
    }

    /** A ZooKeeper 3.9.5 client, connected; every event it hears (the connection's too) goes to {@code events}. */
    static ZooKeeper zooKeeper(String connect, int sessionTimeoutMillis, BlockingQueue<WatchedEvent> events)
            throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, sessionTimeoutMillis, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
            if (events != null) {
                events.add(e);
            }
        });
        if (!connected.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            zk.close();
            fail("the ZooKeeper client did not connect to " + connect + " within " + PATIENCE);
        }
        return zk;
    }

    /** A real ZooKeeper 3.9.5 in this JVM with its data in {@code dir}, listening once this returns. */
    static io.volery.server.backtoback.EmbeddedZooKeeper listeningZooKeeper(java.nio.file.Path dir) throws Exception {
        io.volery.server.backtoback.EmbeddedZooKeeper zookeeper = new io.volery.server.backtoback.EmbeddedZooKeeper(dir);
        // it starts in the background: a client that connects shows it is listening
        zooKeeper(zookeeper.connectString(), 10_000, null).close();
        return zookeeper;
    }

    /** Stops a Volery cluster and a ZooKeeper server started side by side (either may be null). */
    static void stop(io.volery.server.VoleryCluster cluster, io.volery.server.backtoback.EmbeddedZooKeeper zookeeper)
            throws InterruptedException {
        if (cluster != null) {
            cluster.close();
        }
        if (zookeeper != null) {
            zookeeper.stop();
        }
    }

    static CuratorFramework curator(String connect) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(10_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 5))
                .build();
        c.start();
        assertTrue(c.blockUntilConnected((int) PATIENCE.toSeconds(), TimeUnit.SECONDS),
                "Curator did not connect to " + connect + " within " + PATIENCE);
        return c;
    }

    /** Polls {@code condition} until it holds; fails with {@code what} when patience runs out. */
    static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
        eventually(() -> what, condition);
    }

    /** As {@link #eventually(String, BooleanSupplier)}, with a message made when patience runs out. */
    static void eventually(java.util.function.Supplier<String> what, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("expected within " + PATIENCE + ": " + what.get());
            }
            Thread.sleep(20);
        }
    }

    /**
     * Waits until every expected event ("NodeDeleted /a/b") has been heard, in any order: events of
     * different partitions have no order between them. Other events are skipped.
     */
    static void awaitEvents(BlockingQueue<WatchedEvent> events, java.util.Collection<String> expected)
            throws InterruptedException {
        java.util.Set<String> missing = new java.util.LinkedHashSet<>(expected);
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        StringBuilder seen = new StringBuilder();
        while (!missing.isEmpty()) {
            long left = deadline - System.nanoTime();
            WatchedEvent e = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                fail("expected events " + missing + " within " + PATIENCE + "; saw only [" + seen + "]");
            }
            String key = e.getType() + " " + e.getPath();
            missing.remove(key);
            seen.append(key).append("; ");
        }
    }

    /** The next event on {@code path} of {@code type}, skipping connection-state events and others. */
    static WatchedEvent awaitEvent(BlockingQueue<WatchedEvent> events, Watcher.Event.EventType type, String path)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        StringBuilder seen = new StringBuilder();
        while (true) {
            long left = deadline - System.nanoTime();
            WatchedEvent e = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                fail("expected a " + type + " event on " + path + " within " + PATIENCE + "; saw only [" + seen + "]");
            }
            if (e.getType() == type && path.equals(e.getPath())) {
                return e;
            }
            seen.append(e.getType()).append(' ').append(e.getState()).append(' ').append(e.getPath()).append("; ");
        }
    }
}
