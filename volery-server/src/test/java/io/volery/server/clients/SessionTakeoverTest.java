package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.volery.server.clients.Clients.PATIENCE;
import static io.volery.server.clients.Clients.eventually;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A second handle takes a session over through another front end (the session's id and password, as
 * ZooKeeper's own tests and Curator's {@code PersistentNode} users expire sessions). The first handle's
 * connection is then one the session moved away from. When the session ends (closed by the second
 * handle, or expired once nobody holds it), the first handle must hear it: its front end closes the
 * connection, as every ZooKeeper server closes its connections of a session whose close it applies, and
 * the client's reconnect is refused as expired. Before, the old front end kept answering its pings and
 * the client believed its session alive forever (found by Curator's {@code PersistentNode}:
 * {@link CuratorMoreRecipesTest}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionTakeoverTest {
    private static VoleryCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new VoleryCluster(2, 3, 0, 500);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The first node's client address and one of the other partition's (the cluster lists them in node order). */
    private static List<String> twoFrontEnds() {
        String[] all = cluster.connectString().split(",");
        return List.of(all[0], all[all.length - 1]);
    }

    @Test
    void aSessionClosedThroughAnotherFrontEndEndsTheConnectionItLeft() throws Exception {
        List<String> frontEnds = twoFrontEnds();
        BlockingQueue<WatchedEvent> heard = new LinkedBlockingQueue<>();
        ZooKeeper first = Clients.zooKeeper(frontEnds.get(0), 10_000, heard);
        ZooKeeper observer = Clients.zooKeeper(frontEnds.get(1), 10_000, null);
        try {
            first.create("/takeover-close", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            ZooKeeper second = attach(frontEnds.get(1), first);
            second.close();
            awaitExpired(heard, "the handle whose session was closed through another front end");
            eventually("the session's ephemeral is gone", () -> absent(observer, "/takeover-close"));
        } finally {
            first.close();
            observer.close();
        }
    }

    @Test
    void aSessionThatExpiresAfterMovingEndsTheConnectionItLeft() throws Exception {
        List<String> frontEnds = twoFrontEnds();
        BlockingQueue<WatchedEvent> heard = new LinkedBlockingQueue<>();
        ZooKeeper first = Clients.zooKeeper(frontEnds.get(0), 4_000, heard);
        ZooKeeper observer = Clients.zooKeeper(frontEnds.get(1), 10_000, null);
        try {
            first.create("/takeover-expire", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            ZooKeeper second = attach(frontEnds.get(1), first);
            // the second handle drops its connection without closing the session: nobody holds it now
            // (only the front end it moved to keeps it alive), so it expires after its timeout
            second.getTestable().injectSessionExpiration();
            awaitExpired(heard, "the handle whose session expired after moving to another front end");
            eventually("the session's ephemeral is gone", () -> absent(observer, "/takeover-expire"));
        } finally {
            first.close();
            observer.close();
        }
    }

    @Test
    void aWriteThroughTheHandleLeftBehindTearsItsConnectionDownAndTakesTheSessionBack() throws Exception {
        List<String> frontEnds = twoFrontEnds();
        ZooKeeper first = Clients.zooKeeper(frontEnds.get(0), 10_000, null);
        try {
            first.create("/takeover-write", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            ZooKeeper second = attach(frontEnds.get(1), first);
            try {
                // SessionMoved is a connection-level error (ZooKeeper's ZOOKEEPER-710): the write is not made and
                // the connection is closed; the client reconnects, and the session moves back to it
                assertThrows(KeeperException.ConnectionLossException.class,
                        () -> first.setData("/takeover-write", new byte[] {1}, -1));
                eventually("the first handle writes again once reconnected", () -> {
                    try {
                        return first.setData("/takeover-write", new byte[] {2}, -1).getVersion() >= 1;
                    } catch (KeeperException.ConnectionLossException e) {
                        return false;
                    } catch (Exception e) {
                        throw new AssertionError("a write through the reconnected first handle", e);
                    }
                });
                assertArrayEquals(new byte[] {2}, first.getData("/takeover-write", false, null), "the data");
                assertThrows(KeeperException.ConnectionLossException.class,
                        () -> second.setData("/takeover-write", new byte[] {3}, -1),
                        "a write through the second handle, which the session left");
            } finally {
                second.close();
            }
        } finally {
            first.close();
        }
    }

    /** A second handle on {@code session}'s id and password, through {@code connect}, connected. */
    private static ZooKeeper attach(String connect, ZooKeeper session) throws Exception {
        BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
        ZooKeeper second = new ZooKeeper(connect, session.getSessionTimeout(), events::add,
                session.getSessionId(), session.getSessionPasswd());
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            WatchedEvent e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e != null && e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                return second;
            }
        }
        second.close();
        return fail("a second handle did not attach to session 0x" + Long.toHexString(session.getSessionId()));
    }

    private static void awaitExpired(BlockingQueue<WatchedEvent> heard, String who) throws InterruptedException {
        StringBuilder seen = new StringBuilder();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            WatchedEvent e = heard.poll(100, TimeUnit.MILLISECONDS);
            if (e == null) {
                continue;
            }
            seen.append(' ').append(e.getState());
            if (e.getState() == Watcher.Event.KeeperState.Expired) {
                return;
            }
        }
        fail(who + " did not see its session expire within " + PATIENCE + "; it heard:" + seen);
    }

    private static boolean absent(ZooKeeper zk, String path) {
        try {
            return zk.exists(path, false) == null;
        } catch (Exception e) {
            throw new AssertionError("exists(" + path + ") failed", e);
        }
    }
}
