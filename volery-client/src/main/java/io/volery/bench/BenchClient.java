package io.volery.bench;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * One ZooKeeper session driven closed-loop: a thread keeps up to {@code outstanding} asynchronous
 * requests in flight, taking a window permit before each and giving it back in the callback. A
 * create/delete pair holds one permit until its delete completes, so pairs never run ahead.
 */
final class BenchClient implements AutoCloseable {

    private static final List<ACL> OPEN = ZooDefs.Ids.OPEN_ACL_UNSAFE;

    private final int index;
    private final ZooKeeper zk;
    private final int outstanding;
    private final Semaphore window;
    private final OperationChooser chooser;
    private final ZnodeLayout layout;
    private final String runTag;
    private final byte[] payload;
    private final OperationRecorder recorder;
    private final Thread thread;
    private volatile boolean running = true;
    private long pairCounter;

    private final AsyncCallback.StatCallback setDataDone = (rc, path, ctx, stat) -> complete(Operation.SET_DATA, rc, ctx);
    private final AsyncCallback.DataCallback getDataDone = (rc, path, ctx, data, stat) -> complete(Operation.GET_DATA, rc, ctx);
    private final AsyncCallback.VoidCallback deleteDone = (rc, path, ctx) -> complete(Operation.DELETE, rc, ctx);
    private final AsyncCallback.StringCallback createDone = this::createCompleted;

    private BenchClient(int index, ZooKeeper zk, BenchConfig config, ZnodeLayout layout, String runTag,
            byte[] payload, OperationRecorder recorder) {
        this.index = index;
        this.zk = zk;
        this.outstanding = config.outstanding();
        this.window = new Semaphore(config.outstanding());
        this.chooser = new OperationChooser(config.workload(), config.globalPercent(), config.seed() + index);
        this.layout = layout;
        this.runTag = runTag;
        this.payload = payload;
        this.recorder = recorder;
        this.thread = new Thread(this::issueLoop, "bench-client-" + index);
        this.thread.setDaemon(true);
    }

    /** Opens the session and waits until it is connected; the thread is not started yet. */
    static BenchClient connect(int index, BenchConfig config, ZnodeLayout layout, String runTag, byte[] payload,
            OperationRecorder recorder) throws IOException, InterruptedException {
        ZooKeeper zk = connectSession(config);
        return new BenchClient(index, zk, config, layout, runTag, payload, recorder);
    }

    /** A connected session, or an {@link IOException} saying what could not be reached. */
    static ZooKeeper connectSession(BenchConfig config) throws IOException, InterruptedException {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher = (WatchedEvent event) -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        };
        ZooKeeper zk = new ZooKeeper(config.connect(), (int) config.sessionTimeout().toMillis(), watcher);
        if (!connected.await(config.sessionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
            zk.close();
            throw new IOException("could not connect to ZooKeeper at '" + config.connect() + "' within "
                    + config.sessionTimeout().toSeconds() + " s; is the server running and the connect string right?");
        }
        return zk;
    }

    void start() {
        thread.start();
    }

    /** Stops issuing; requests in flight still complete. */
    void stopIssuing() {
        running = false;
    }

    /** Waits until the issuing thread has exited and every request in flight has completed. */
    boolean awaitDrained(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        thread.join(Math.max(1, timeoutMillis));
        long left = deadline - System.nanoTime();
        boolean drained = !thread.isAlive() && window.tryAcquire(outstanding, Math.max(0, left), TimeUnit.NANOSECONDS);
        if (drained) {
            window.release(outstanding);
        }
        return drained;
    }

    private void issueLoop() {
        try {
            while (running) {
                // A bounded wait, so that a stalled server cannot keep the thread from seeing the stop.
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                if (!running) {
                    window.release();
                    break;
                }
                issue(chooser.next());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void issue(OperationChooser.Choice choice) {
        Long start = System.nanoTime();
        switch (choice) {
            case SET_DATA -> zk.setData(randomZnode(), payload, -1, setDataDone, start);
            case GET_DATA -> zk.getData(randomZnode(), false, getDataDone, start);
            case CREATE_DELETE_PAIR -> {
                String path = layout.pairPath(chooser.nextIndex(layout.subtreeCount()), runTag, index, pairCounter++);
                zk.create(path, payload, OPEN, CreateMode.PERSISTENT, createDone, start);
            }
        }
    }

    private String randomZnode() {
        return layout.znode(chooser.nextIndex(layout.znodeCount()));
    }

    private void createCompleted(int rc, String path, Object ctx, String name) {
        if (rc != KeeperException.Code.OK.intValue()) {
            complete(Operation.CREATE, rc, ctx);
            return;
        }
        recorder.success(Operation.CREATE, (Long) ctx);
        // The pair's second half keeps the first half's permit; it is released when the delete completes.
        zk.delete(path, -1, deleteDone, System.nanoTime());
    }

    private void complete(Operation op, int rc, Object ctx) {
        if (rc == KeeperException.Code.OK.intValue()) {
            recorder.success(op, (Long) ctx);
        } else {
            recorder.failure(rc);
        }
        window.release();
    }

    @Override
    public void close() {
        running = false;
        try {
            zk.close();
        } catch (InterruptedException e) {
            // Closing only waits for the server to acknowledge the session's end; keep the interrupt for the caller.
            Thread.currentThread().interrupt();
        }
    }
}
