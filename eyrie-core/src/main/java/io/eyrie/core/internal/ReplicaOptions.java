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
 * @param lateExchangePatienceMillis see {@link #latePatienceMillis()}; 0 for eight exchange timeouts
 */
public record ReplicaOptions(boolean cachingEnabled, int cacheCapacity, long exchangeTimeoutMillis,
                             Path checkpointDir, int checkpointInterval, int deliveryQueueMax,
                             int inboxPositionsMax, int sentPositionsMax, long lateExchangePatienceMillis) {

    /**
     * {@code lateExchangePatienceMillis}: 0 (the default) is eight exchange timeouts; the system property
     * {@code eyrie.lateExchangePatienceMillis} sets another default (equal to the exchange timeout it
     * gives the rule before ADR 042: every late exchange is asked for after one timeout).
     */
    public static ReplicaOptions defaults() {
        return new ReplicaOptions(false, 4096, 200, null, 1000, 1024, 4096, 4096,
                Long.getLong("eyrie.lateExchangePatienceMillis", 0L));
    }

    /**
     * How long a replica waits for another partition's exchange before asking for it when nothing says
     * it was lost (ADR 042): no later exchange of that partition has arrived, so its sender is behind,
     * not silent about this one. An exchange overtaken by a later one is asked for after the exchange
     * timeout. At least the exchange timeout.
     */
    public long latePatienceMillis() {
        return Math.max(exchangeTimeoutMillis,
                lateExchangePatienceMillis > 0 ? lateExchangePatienceMillis : 8 * exchangeTimeoutMillis);
    }

    public ReplicaOptions withLateExchangePatienceMillis(long millis) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, millis);
    }

    public ReplicaOptions withCaching(boolean on) {
        return new ReplicaOptions(on, cacheCapacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, lateExchangePatienceMillis);
    }

    public ReplicaOptions withCacheCapacity(int capacity) {
        return new ReplicaOptions(cachingEnabled, capacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, lateExchangePatienceMillis);
    }

    public ReplicaOptions withExchangeTimeoutMillis(long millis) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, millis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, lateExchangePatienceMillis);
    }

    public ReplicaOptions withCheckpoints(Path dir, int interval) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, exchangeTimeoutMillis, dir, interval,
                deliveryQueueMax, inboxPositionsMax, sentPositionsMax, lateExchangePatienceMillis);
    }

    /**
     * How many recent commands' exchanges a replica keeps for asks of other partitions. A replica
     * replaying further behind than this catches up by state transfer from a peer of its partition.
     */
    public ReplicaOptions withSentPositionsMax(int positions) {
        return new ReplicaOptions(cachingEnabled, cacheCapacity, exchangeTimeoutMillis, checkpointDir, checkpointInterval,
                deliveryQueueMax, inboxPositionsMax, positions, lateExchangePatienceMillis);
    }

    void validate() {
        if (cacheCapacity < 1) {
            throw new IllegalArgumentException("cacheCapacity must be at least 1, got " + cacheCapacity);
        }
        if (exchangeTimeoutMillis < 1) {
            throw new IllegalArgumentException("exchangeTimeoutMillis must be at least 1, got " + exchangeTimeoutMillis);
        }
        if (lateExchangePatienceMillis < 0) {
            throw new IllegalArgumentException("lateExchangePatienceMillis must be 0 (eight exchange timeouts) or more, got "
                    + lateExchangePatienceMillis);
        }
        if (checkpointDir != null && checkpointInterval < 1) {
            throw new IllegalArgumentException("checkpointInterval must be at least 1 delivery, got " + checkpointInterval);
        }
        if (deliveryQueueMax < 1 || inboxPositionsMax < 1 || sentPositionsMax < 1) {
            throw new IllegalArgumentException("queue bounds must be positive: " + this);
        }
    }
}
