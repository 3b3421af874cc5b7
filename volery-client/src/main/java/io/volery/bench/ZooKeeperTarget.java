package io.volery.bench;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Sessions of the ZooKeeper Java client on the run's connect string. */
final class ZooKeeperTarget implements BenchTarget {
    private final BenchConfig config;
    /** Sessions opened so far: session i starts at server i mod n (see {@link RotatingHostProvider}). */
    private final java.util.concurrent.atomic.AtomicInteger sessions = new java.util.concurrent.atomic.AtomicInteger();

    /** With --owner-affinity: the server each client's session starts at, by client index; else null. */
    private final int[] firstServers;

    ZooKeeperTarget(BenchConfig config) {
        this.config = config;
        this.firstServers = config.ownerAffinity() ? OwnerAffinity.firstServers(config) : null;
    }

    @Override
    public BenchSession open() throws IOException, InterruptedException {
        return session(connectSession(config, sessions.getAndIncrement()));
    }

    /** The server index each client's session starts at (--owner-affinity), or null: sessions take the servers in turn. */
    int[] placement() {
        return firstServers == null ? null : firstServers.clone();
    }

    @Override
    public BenchSession open(int index) throws IOException, InterruptedException {
        if (firstServers == null || index < 0 || index >= firstServers.length) {
            return open();
        }
        return session(connectSession(config, firstServers[index]));
    }

    /** The bench's view of a connected session {@code zk}. */
    static BenchSession session(ZooKeeper zk) {
        return new BenchSession() {
            @Override
            public void setData(String path, byte[] data, Done done) {
                zk.setData(path, data, -1, (rc, p, ctx, stat) -> done.done(rc), null);
            }

            @Override
            public void getData(String path, Done done) {
                zk.getData(path, false, (rc, p, ctx, data, stat) -> done.done(rc), null);
            }

            @Override
            public void create(String path, byte[] data, Created done) {
                zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                        (rc, p, ctx, name) -> done.done(rc, name), null);
            }

            @Override
            public void delete(String path, Done done) {
                zk.delete(path, -1, (rc, p, ctx) -> done.done(rc), null);
            }

            @Override
            public void close() {
                try {
                    zk.close();
                } catch (InterruptedException e) {
                    // Closing only waits for the server to acknowledge the session's end; keep the interrupt.
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** A connected ZooKeeper session, or an {@link IOException} saying what could not be reached. */
    static ZooKeeper connectSession(BenchConfig config) throws IOException, InterruptedException {
        return connectSession(config, (int) (System.nanoTime() & 0xffff));
    }

    /** A session that tries the servers in order from server {@code first} (mod their count) on. */
    static ZooKeeper connectSession(BenchConfig config, int first) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = (WatchedEvent event) -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZooKeeper zk = new ZooKeeper(config.connect(), (int) config.sessionTimeout().toMillis(), watcher, false,
                new RotatingHostProvider(config.connect(), first));
        if (!connected.await(config.sessionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IOException("could not connect to ZooKeeper at '" + config.connect() + "' within "
                    + config.sessionTimeout().toSeconds() + " s; is the server running and the connect string right?");
        }
        return zk;
    }

    @Override
    public void close() {
    }
}
