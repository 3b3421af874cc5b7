package io.volery.server.clients;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Run in a child JVM by {@link SessionFailureTest}: connects, creates the ephemerals named on its
 * command line, says {@code READY <sessionId>} and waits to be killed (never closing its session).
 * Arguments: connect string, session timeout in ms, then the ephemeral paths.
 */
public final class VanishingClient {
    private VanishingClient() {
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(args[0], Integer.parseInt(args[1]), e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            System.out.println("NOT CONNECTED");
            System.exit(2);
        }
        for (int i = 2; i < args.length; i++) {
            zk.create(args[i], new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
        }
        System.out.println("READY " + zk.getSessionId() + " " + zk.getSessionTimeout());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
