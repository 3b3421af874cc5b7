package io.eyrie.core.internal;

import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes checkpoint images on its own thread, so that the executor only captures them. What is
 * encoded where depends on the capture: a plain application state was encoded by the executor; a
 * {@link io.eyrie.core.StateImage} is serialized here, by {@link Encoder#encode}. Checksumming,
 * writing and fsync are always this thread's. Holds at most one image waiting: a newer one replaces
 * it, since only the newest matters.
 *
 * <p>After an image is durable, the multicast layer is told it may trim below the checkpoint
 * <em>before</em> it (the older of the two files the store keeps), so that a replica whose newest
 * file turns out damaged can still recover from the older one and replay from the acceptor logs.
 */
final class CheckpointWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CheckpointWriter.class);

    /** Produces the image bytes of one checkpoint; called on the writer thread, at most once. */
    @FunctionalInterface
    interface Encoder {
        byte[] encode() throws java.io.IOException;
    }

    private record Pending(long position, Encoder image, byte[] learnerCheckpoint) {
    }

    private final SnapshotStore store;
    private final MulticastEndpoint endpoint;
    private final ReplicaStats stats;
    private final Thread thread;
    private Pending pending;
    private boolean closed;
    /** The learner checkpoint of the newest durable image; reported once a newer one is durable. */
    private byte[] newestDurable;
    private volatile long durablePosition = Position.NONE;
    private volatile long submittedPosition = Position.NONE;

    CheckpointWriter(SnapshotStore store, MulticastEndpoint endpoint, ReplicaStats stats, int nodeId) {
        this.store = store;
        this.endpoint = endpoint;
        this.stats = stats;
        this.thread = new Thread(this::run, "eyrie-checkpoint-" + nodeId);
        thread.setDaemon(true);
    }

    /** Starts writing; {@code restored} is the learner checkpoint of the image recovered from, or null. */
    void start(long restoredPosition, byte[] restored) {
        newestDurable = restored;
        durablePosition = restoredPosition;
        thread.start();
    }

    /**
     * A peer's checkpoint, already stored, now holds this replica's state (its learner was behind the
     * acceptors' trimmed logs): it is the newest durable one.
     */
    synchronized void adopt(long position, byte[] learnerCheckpoint) {
        if (position > durablePosition) {
            durablePosition = position;
            newestDurable = learnerCheckpoint;
            submittedPosition = Math.max(submittedPosition, position);
        }
    }

    /** Hands over an image; returns at once. */
    synchronized void submit(long position, Encoder image, byte[] learnerCheckpoint) {
        if (pending != null) {
            stats.checkpointsSuperseded.incrementAndGet();
        }
        pending = new Pending(position, image, learnerCheckpoint);
        submittedPosition = position;
        notifyAll();
    }

    /** Whether a captured image is still waiting for, or being written to, the disk. */
    boolean writing() {
        return submittedPosition != durablePosition;
    }

    /** The position of the newest checkpoint known to be on disk. */
    long durablePosition() {
        return durablePosition;
    }

    private synchronized Pending next() throws InterruptedException {
        while (pending == null && !closed) {
            wait();
        }
        Pending p = pending;
        pending = null;
        return p;
    }

    private void run() {
        try {
            Pending p;
            while ((p = next()) != null) {
                long start = System.nanoTime();
                byte[] image;
                try {
                    image = p.image.encode();
                    store.write(p.position, image);
                } catch (RuntimeException | java.io.IOException e) {
                    // the replica goes on; acceptors keep their logs until a later checkpoint succeeds
                    stats.checkpointsFailed.incrementAndGet();
                    log.error("checkpoint at position {} failed: {}", Position.toString(p.position), e.toString(), e);
                    continue;
                }
                stats.checkpointsTaken.incrementAndGet();
                byte[] older;
                synchronized (this) {
                    if (p.position <= durablePosition) {
                        continue; // a peer's newer checkpoint was adopted meanwhile
                    }
                    durablePosition = p.position;
                    older = newestDurable;
                    newestDurable = p.learnerCheckpoint;
                }
                if (older != null) {
                    endpoint.checkpointed(older);
                }
                log.debug("checkpoint position={} bytes={} written in {} ms", Position.toString(p.position),
                        image.length, (System.nanoTime() - start) / 1_000_000);
            }
        } catch (InterruptedException e) {
            // closing
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            pending = null;
            notifyAll();
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
