package io.volery.bench;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * One session (ZooKeeper or native client) driven closed-loop: a thread keeps up to {@code outstanding} asynchronous
 * requests in flight, taking a window permit before each and giving it back in the callback. A
 * create/delete pair holds one permit until its delete completes, so pairs never run ahead.
 *
 * <p>With a {@link BenchConfig#rate() rate}, the thread starts requests on a fixed schedule instead (one every
 * {@link BenchConfig#clientIntervalNanos()}, client i offset by i/clients of an interval so that the clients do
 * not start together), the window still bounding what is in flight. A request's latency counts from its
 * scheduled start, not from when it could leave: a server that falls behind delays the requests queued behind
 * a full window, and those delays belong in the latencies (what closed-loop generators omit, "coordinated
 * omission"). A pair's create takes the slot; its delete follows the create's answer.
 */
final class BenchClient implements AutoCloseable {

    private final int index;
    private final boolean perSubtree;
    private final BenchSession session;
    private final int outstanding;
    private final long intervalNanos;
    private final int clients;
    private final Semaphore window;
    private final OperationChooser chooser;
    private final ZnodeLayout layout;
    private final String runTag;
    private final byte[] payload;
    private final OperationRecorder recorder;
    private final Thread thread;
    private volatile boolean running = true;
    /** Until when (System.nanoTime) the client waits before issuing again after a connection loss. */
    private volatile long pausedUntilNanos;
    /** How long a client pauses after a connection loss: while it is between servers every request fails at once. */
    static final long CONNECTION_LOSS_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private long pairCounter;

    private BenchClient(int index, BenchSession session, BenchConfig config, ZnodeLayout layout, String runTag,
            byte[] payload, OperationRecorder recorder) {
        this.index = index;
        this.perSubtree = config.clientPerSubtree();
        this.session = session;
        this.outstanding = config.outstanding();
        this.intervalNanos = config.clientIntervalNanos();
        this.clients = config.clients();
        this.window = new Semaphore(config.outstanding());
        this.chooser = new OperationChooser(config.workload(), config.globalPercent(), config.seed() + index);
        this.layout = layout;
        this.runTag = runTag;
        this.payload = payload;
        this.recorder = recorder;
        this.thread = new Thread(this::issueLoop, "bench-client-" + index);
        this.thread.setDaemon(true);
    }

    /** Opens a session of {@code target}, connected; the thread is not started yet. */
    static BenchClient connect(int index, BenchTarget target, BenchConfig config, ZnodeLayout layout, String runTag,
            byte[] payload, OperationRecorder recorder) throws IOException, InterruptedException {
        return new BenchClient(index, target.open(index), config, layout, runTag, payload, recorder);
    }

    /** A connected ZooKeeper session, or an {@link IOException} saying what could not be reached. */
    static ZooKeeper connectSession(BenchConfig config) throws IOException, InterruptedException {
        return ZooKeeperTarget.connectSession(config);
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

    /** Where client {@code index} of {@code clients} starts within the first interval: spread evenly over it. */
    static long firstOffsetNanos(long intervalNanos, int index, int clients) {
        return (long) ((double) intervalNanos * index / clients);
    }

    private void issueLoop() {
        try {
            long due = System.nanoTime() + firstOffsetNanos(intervalNanos, index, clients);
            while (running) {
                if (intervalNanos > 0 && !sleepUntil(due)) {
                    break;
                }
                long pause = pausedUntilNanos - System.nanoTime();
                if (pause > 0 && !sleepUntil(pausedUntilNanos)) {
                    break;
                }
                // A bounded wait, so that a stalled server cannot keep the thread from seeing the stop.
                if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                if (!running) {
                    window.release();
                    break;
                }
                issue(chooser.next(), intervalNanos > 0 ? due : System.nanoTime());
                due += intervalNanos;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps until {@code deadline} in slices, so that a stop is seen within 100 ms; false once stopped. */
    private boolean sleepUntil(long deadline) {
        long left;
        while (running && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
        }
        return running;
    }

    private void issue(OperationChooser.Choice choice, long start) {
        switch (choice) {
            case SET_DATA -> session.setData(randomZnode(), payload, rc -> complete(Operation.SET_DATA, rc, start));
            case GET_DATA -> session.getData(randomZnode(), rc -> complete(Operation.GET_DATA, rc, start));
            case CREATE_DELETE_PAIR -> {
                String path = layout.pairPath(chooser.nextIndex(layout.subtreeCount()), runTag, index, pairCounter++);
                session.create(path, payload, (rc, name) -> createCompleted(rc, name, start));
            }
        }
    }

    private String randomZnode() {
        if (!perSubtree) {
            return layout.znode(chooser.nextIndex(layout.znodeCount()));
        }
        // znode k lives in subtree k mod subtrees: this client's are s, s + n, s + 2n, ...
        int n = layout.subtreeCount();
        int s = index % n;
        int mine = (layout.znodeCount() - s + n - 1) / n;
        return layout.znode(s + n * chooser.nextIndex(mine));
    }

    private void createCompleted(int rc, String path, long start) {
        if (rc != KeeperException.Code.OK.intValue()) {
            complete(Operation.CREATE, rc, start);
            return;
        }
        recorder.success(Operation.CREATE, start);
        // The pair's second half keeps the first half's permit; it is released when the delete completes.
        long deleteStart = System.nanoTime();
        session.delete(path, rc2 -> complete(Operation.DELETE, rc2, deleteStart));
    }

    private void complete(Operation op, int rc, long start) {
        if (rc == KeeperException.Code.OK.intValue()) {
            recorder.success(op, start);
        } else {
            recorder.failure(rc);
            if (rc == KeeperException.Code.SESSIONEXPIRED.intValue()) {
                // an expired session can do nothing more: issuing on would only count failures as fast as the
                // client library returns them (millions a second, on the load generator's own CPU)
                running = false;
            } else if (rc == KeeperException.Code.CONNECTIONLOSS.intValue()) {
                pausedUntilNanos = System.nanoTime() + CONNECTION_LOSS_PAUSE_NANOS;
            }
        }
        window.release();
    }

    @Override
    public void close() {
        running = false;
        session.close();
    }
}
