package io.volery.copy;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * A ZooKeeper session whose asynchronous calls come back as futures, at most {@code maxOutstanding} in
 * flight, and are tried again after a connection loss or an operation timeout (the client reconnects on its
 * own) until the session expires. A write tried again may already have been applied once: callers treat the
 * second try's NodeExists / NoNode accordingly.
 */
final class AsyncSession implements AutoCloseable {

    /** A call's outcome: its code and, when it succeeded, its value. */
    record Outcome<T>(Code code, T value) {
        boolean ok() {
            return code == Code.OK;
        }
    }

    private final ZooKeeper zk;
    private final String connect;
    private final Semaphore slots;
    private final java.util.concurrent.atomic.AtomicLong retried = new java.util.concurrent.atomic.AtomicLong();
    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "volery-copy-retry");
        t.setDaemon(true);
        return t;
    });

    private AsyncSession(ZooKeeper zk, String connect, int maxOutstanding) {
        this.zk = zk;
        this.connect = connect;
        this.slots = new Semaphore(maxOutstanding);
    }

    /**
     * Connects and authenticates.
     *
     * @param auths "scheme:credential" each, e.g. "digest:user:password"
     */
    static AsyncSession connect(String connect, int sessionTimeoutMs, List<String> auths, int maxOutstanding)
            throws IOException, InterruptedException {
        return connect(connect, null, sessionTimeoutMs, auths, maxOutstanding);
    }

    /**
     * @param clientConfig a ZooKeeper client properties file for this session alone (TLS, SASL: the keys
     *                     zookeeper.client.secure, zookeeper.ssl.*, zookeeper.sasl.* ...), or null for the JVM's
     *                     system properties
     */
    static AsyncSession connect(String connect, java.io.File clientConfig, int sessionTimeoutMs, List<String> auths,
                                int maxOutstanding) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZooKeeper zk;
        if (clientConfig == null) {
            zk = new ZooKeeper(connect, sessionTimeoutMs, watcher);
        } else {
            try {
                zk = new ZooKeeper(connect, sessionTimeoutMs, watcher, new org.apache.zookeeper.client.ZKClientConfig(clientConfig));
            } catch (org.apache.zookeeper.server.quorum.QuorumPeerConfig.ConfigException e) {
                throw new IOException("client configuration " + clientConfig + ": " + e.getMessage(), e);
            }
        }
        if (!connected.await(Math.max(sessionTimeoutMs, 2_000), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IOException("could not connect to '" + connect + "'; is the server running and the connect string right?");
        }
        for (String auth : auths) {
            int colon = auth.indexOf(':');
            zk.addAuthInfo(auth.substring(0, colon), auth.substring(colon + 1).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        // addAuthInfo is queued like a request: a sync round trip makes sure it was answered (a wrong digest
        // is not refused by ZooKeeper, but a failed SASL/auth closes the session here rather than mid-copy)
        CompletableFuture<Code> synced = new CompletableFuture<>();
        zk.sync("/", (rc, path, ctx) -> synced.complete(Code.get(rc)), null);
        try {
            Code c = synced.get(sessionTimeoutMs, TimeUnit.MILLISECONDS);
            if (c != Code.OK) {
                zk.close();
                throw new IOException("session at '" + connect + "' after authenticating: " + c);
            }
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            zk.close();
            throw new IOException("session at '" + connect + "' did not answer after authenticating", e);
        }
        return new AsyncSession(zk, connect, maxOutstanding);
    }

    String connectString() {
        return connect;
    }

    /** Calls tried again after a connection loss or an operation timeout. */
    long retried() {
        return retried.get();
    }

    /** One asynchronous call, given the callback to complete; issued again while it fails retryably. */
    private <T> CompletableFuture<Outcome<T>> call(Consumer<CompletableFuture<Outcome<T>>> issue) {
        CompletableFuture<Outcome<T>> done = new CompletableFuture<>();
        slots.acquireUninterruptibly();
        done.whenComplete((x, e) -> slots.release());
        attempt(issue, done, 0);
        return done;
    }

    private <T> void attempt(Consumer<CompletableFuture<Outcome<T>>> issue, CompletableFuture<Outcome<T>> done, int tries) {
        CompletableFuture<Outcome<T>> one = new CompletableFuture<>();
        one.whenComplete((o, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
            } else if (o.code() == Code.SESSIONEXPIRED || o.code() == Code.AUTHFAILED) {
                // nothing more will succeed on this session: stop the copy rather than fail node after node
                done.completeExceptionally(new CopyException("the session at '" + connect + "' ended (" + o.code()
                        + "); run again with --merge overwrite to resume"));
            } else if ((o.code() == Code.CONNECTIONLOSS || o.code() == Code.OPERATIONTIMEOUT) && tries < 600) {
                retried.incrementAndGet();
                retries.schedule(() -> attempt(issue, done, tries + 1), Math.min(1000, 50L << Math.min(tries, 4)),
                        TimeUnit.MILLISECONDS);
            } else {
                done.complete(o);
            }
        });
        issue.accept(one);
    }

    private static <T> Outcome<T> outcome(int rc, T value) {
        return new Outcome<>(Code.get(rc), rc == 0 ? value : null);
    }

    /** getData with its stat: value = {data, stat}. */
    CompletableFuture<Outcome<Object[]>> getData(String path) {
        return call(f -> zk.getData(path, false,
                (AsyncCallback.DataCallback) (rc, p, ctx, data, stat) -> f.complete(outcome(rc, new Object[] {data, stat})), null));
    }

    CompletableFuture<Outcome<List<ACL>>> getAcl(String path) {
        return call(f -> zk.getACL(path, new Stat(), (rc, p, ctx, acl, stat) -> f.complete(outcome(rc, acl)), null));
    }

    CompletableFuture<Outcome<List<String>>> getChildren(String path) {
        return call(f -> zk.getChildren(path, false,
                (AsyncCallback.ChildrenCallback) (rc, p, ctx, children) -> f.complete(outcome(rc, children)), null));
    }

    CompletableFuture<Outcome<Stat>> exists(String path) {
        return call(f -> zk.exists(path, false, (rc, p, ctx, stat) -> f.complete(outcome(rc, stat)), null));
    }

    /** create (ttl &gt; 0 for the TTL modes); value = the created path. */
    CompletableFuture<Outcome<String>> create(String path, byte[] data, List<ACL> acl, CreateMode mode, long ttl) {
        if (mode.isTTL()) {
            return call(f -> zk.create(path, data, acl, mode,
                    (AsyncCallback.Create2Callback) (rc, p, ctx, name, stat) -> f.complete(outcome(rc, name)), null, ttl));
        }
        return call(f -> zk.create(path, data, acl, mode,
                (AsyncCallback.StringCallback) (rc, p, ctx, name) -> f.complete(outcome(rc, name)), null));
    }

    CompletableFuture<Outcome<Stat>> setData(String path, byte[] data) {
        return call(f -> zk.setData(path, data, -1, (rc, p, ctx, stat) -> f.complete(outcome(rc, stat)), null));
    }

    CompletableFuture<Outcome<Stat>> setAcl(String path, List<ACL> acl) {
        return call(f -> zk.setACL(path, acl, -1, (rc, p, ctx, stat) -> f.complete(outcome(rc, stat)), null));
    }

    CompletableFuture<Outcome<Void>> delete(String path) {
        return call(f -> zk.delete(path, -1, (rc, p, ctx) -> f.complete(outcome(rc, null)), null));
    }

    CompletableFuture<Outcome<List<OpResult>>> multi(List<Op> ops) {
        return call(f -> zk.multi(ops, (rc, p, ctx, results) -> f.complete(outcome(rc, results)), null));
    }

    static String describe(Code code, String path) {
        return KeeperException.create(code, path).getMessage();
    }

    @Override
    public void close() {
        retries.shutdownNow();
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
