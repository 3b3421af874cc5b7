package io.eyrie.core.internal;

import java.nio.file.Path;

/**
 * Settings of one replica. All replicas of a cluster must agree on {@code cachingEnabled} and
 * {@code cacheCapacity}: the owner of an object predicts the reader's cache from them.
 *
 * @param exchangeTimeoutMillis how long a replica waits for another partition's exchange before it
 *                              asks that partition's replicas (covers loss and a failed designated sender)
 * @param checkpointDir         null for no checkpoints
 * @param checkpointInterval    deliveries between checkpoints
 * @param checkpointMaxMillis   a checkpoint is also taken at the first delivery this long after the last one
 *                              (0: by count only), so that a restart replays seconds of a quiet cluster's
 *                              history, not all of it (ADR 055)
 */
public record ReplicaOptions(boolean cachingEnabled, int cacheCapacity, long exchangeTimeoutMillis,
                             Path checkpointDir, int checkpointInterval, int deliveryQueueMax,
                             int inboxPositionsMax, int sentPositionsMax, long checkpointMaxMillis) {

    /** The exchange timeout is 200 ms unless {@code -Deyrie.exchangeTimeoutMillis} gives another default. */
    public static ReplicaOptions defaults() {
        return new ReplicaOptions(false, 4096, Long.getLong("eyrie.exchangeTimeoutMillis", 200L), null, 1000, 1024,
                4096, 4096, 0L);
    }

    public ReplicaOptions withCaching(boolean on) {
        return new ReplicaOptions(on, cacheCapacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, checkpointMaxMillis);
    }

    public ReplicaOptions withCacheCapacity(int capacity) {
        return new ReplicaOptions(cachingEnabled, capacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, checkpointMaxMillis);
    }

    public ReplicaOptions withExchangeTimeoutMillis(long millis) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, millis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, checkpointMaxMillis);
    }

    public ReplicaOptions withCheckpoints(Path dir, int interval) {
        return withCheckpoints(dir, interval, checkpointMaxMillis);
    }

    public ReplicaOptions withCheckpoints(Path dir, int interval, long maxMillis) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, exchangeTimeoutMillis, dir, interval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, maxMillis);
    }

    /**
     * How many recent commands' exchanges a replica keeps for asks of other partitions. A replica
     * replaying further behind than this catches up by state transfer from a peer of its partition.
     */
    public ReplicaOptions withSentPositionsMax(int positions) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, positions, checkpointMaxMillis);
    }

    /** How many commands' early exchanges from other partitions a replica buffers before they are asked for. */
    public ReplicaOptions withInboxPositionsMax(int positions) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, positions, sentPositionsMax, checkpointMaxMillis);
    }

    void validate() {
        if (cacheCapacity < 1) {
            throw new IllegalArgumentException("cacheCapacity must be at least 1, got " + cacheCapacity);
        }
        if (exchangeTimeoutMillis < 1) {
            throw new IllegalArgumentException("exchangeTimeoutMillis must be at least 1, got " + exchangeTimeoutMillis);
        }
        if (checkpointDir != null && checkpointInterval < 1) {
            throw new IllegalArgumentException("checkpointInterval must be at least 1 delivery, got " + checkpointInterval);
        }
        if (checkpointMaxMillis < 0) {
            throw new IllegalArgumentException("checkpointMaxMillis must be 0 (off) or positive, got " + checkpointMaxMillis);
        }
        if (deliveryQueueMax < 1 || inboxPositionsMax < 1 || sentPositionsMax < 1) {
            throw new IllegalArgumentException("queue bounds must be positive: " + this);
        }
    }
}
