package io.volery.server.admin;

import io.volery.server.tree.ZnodeTree;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Monitoring's window on a replica. The znode tree is confined to the replica's thread, so a look
 * at it is queued and run by that thread after its next command (every front end orders a touch of
 * its sessions to every partition a few times a second, so the wait is short). It also counts the
 * replica's waits for other partitions' signals.
 */
public final class ReplicaProbe {
    private static final int MAX_PENDING = 64;

    private final ArrayBlockingQueue<Runnable> pending = new ArrayBlockingQueue<>(MAX_PENDING);
    private final AtomicLong commands = new AtomicLong();
    private final AtomicLong signalWaits = new AtomicLong();
    private final AtomicLong signalWaitNanos = new AtomicLong();
    private volatile ZnodeTree tree;
    /** Digests are taken after every command until then (System.nanoTime), as long as someone asks. */
    private volatile long digestsWantedUntil = System.nanoTime();
    private final java.util.ArrayDeque<StateDigest> digests = new java.util.ArrayDeque<>();
    private static final int DIGESTS_KEPT = 256;
    private static final long DIGESTS_WINDOW_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    /**
     * Makes the replica digest its state after each command for the next few seconds. Digesting
     * costs a pass over the whole tree, so it runs only while someone (an operator, a test) compares
     * replicas.
     */
    public void wantDigests() {
        digestsWantedUntil = System.nanoTime() + DIGESTS_WINDOW_NANOS;
    }

    /** The latest digests taken, oldest first, one per command position (at most {@value #DIGESTS_KEPT}). */
    public List<StateDigest> digests() {
        synchronized (digests) {
            return new ArrayList<>(digests);
        }
    }

    /** Called by the replica's thread after each command, with that command's position. */
    public void afterCommand(ZnodeTree current, long position) {
        if (current != null && System.nanoTime() - digestsWantedUntil < 0) {
            StateDigest d = new StateDigest(position, current.digest());
            synchronized (digests) {
                if (digests.size() == DIGESTS_KEPT) {
                    digests.removeFirst();
                }
                digests.addLast(d);
            }
        }
        afterCommand(current);
    }

    /** Runs {@code look} on the replica's thread; fails at once when too many looks are queued. */
    public <T> CompletableFuture<T> inspect(Function<ZnodeTree, T> look) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                result.complete(look.apply(tree));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        };
        if (!pending.offer(task)) {
            result.completeExceptionally(new IllegalStateException("too many monitoring requests queued"));
        }
        return result;
    }

    /** Whether the replica's digests are wanted now (see {@link #wantDigests}). */
    public boolean digesting() {
        return System.nanoTime() - digestsWantedUntil < 0;
    }

    /** Called by the replica's thread after each command. */
    public void afterCommand(ZnodeTree current) {
        commands.incrementAndGet();
        tree = current;
        Runnable task;
        while ((task = pending.poll()) != null) {
            task.run();
        }
    }

    /** Called by the replica's thread after it waited for other partitions' values. */
    public void signalWaited(long nanos) {
        signalWaits.incrementAndGet();
        signalWaitNanos.addAndGet(nanos);
    }

    public long commands() {
        return commands.get();
    }

    public long signalWaits() {
        return signalWaits.get();
    }

    public long signalWaitNanos() {
        return signalWaitNanos.get();
    }
}
