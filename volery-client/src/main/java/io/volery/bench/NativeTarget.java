package io.volery.bench;

import io.volery.client.RingAccess;
import io.volery.client.VoleryClient;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Sessions of Volery's native client, all over one {@link RingAccess} (one client node of the cluster
 * file), as one load-generator process would use it.
 */
final class NativeTarget implements BenchTarget {
    /** Requests in flight beyond the clients' windows: the setup's and the touches. */
    private static final int SPARE_WINDOW = 1_000;

    private final BenchConfig config;
    private final RingAccess rings;

    NativeTarget(BenchConfig config) throws IOException {
        this.config = config;
        RingAccess.Options options = RingAccess.Options.defaults()
                .withWindow(config.clients() * config.outstanding() + SPARE_WINDOW)
                .withRequestTimeout(Math.max(30_000, config.sessionTimeout().toMillis()));
        try {
            this.rings = RingAccess.open(Path.of(config.connect()), options);
        } catch (IOException e) {
            throw new IOException("could not open the native client on cluster file '" + config.connect() + "': "
                    + e.getMessage(), e);
        }
    }

    @Override
    public BenchSession open() throws IOException {
        VoleryClient client = VoleryClient.connect(rings, (int) config.sessionTimeout().toMillis(), e -> { });
        return new BenchSession() {
            @Override
            public void setData(String path, byte[] data, Done done) {
                report(client.setDataAsync(path, data, -1), done);
            }

            @Override
            public void getData(String path, Done done) {
                report(client.getDataAsync(path, false), done);
            }

            @Override
            public void create(String path, byte[] data, Created done) {
                client.createAsync(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)
                        .whenComplete((c, e) -> done.done(rc(e), c == null ? null : c.path()));
            }

            @Override
            public void delete(String path, Done done) {
                report(client.deleteAsync(path, -1), done);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    private static void report(CompletableFuture<?> f, BenchSession.Done done) {
        f.whenComplete((v, e) -> done.done(rc(e)));
    }

    private static int rc(Throwable e) {
        if (e == null) {
            return KeeperException.Code.OK.intValue();
        }
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof KeeperException k ? k.code().intValue() : KeeperException.Code.SYSTEMERROR.intValue();
    }

    @Override
    public void close() {
        rings.close();
    }
}
