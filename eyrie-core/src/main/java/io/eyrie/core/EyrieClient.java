package io.eyrie.core;

import io.eyrie.core.internal.KryoCodec;
import io.eyrie.core.internal.Wire;
import io.eyrie.multicast.MulticastEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Submits commands to the partitions the oracle names and returns the first reply. Every command
 * carries (clientId, seq); one not answered within the retry timeout is multicast again with the
 * same pair, and the replicas' reply table makes sure it executes at most once. At most
 * {@code window} commands are outstanding; {@link #executeAsync} blocks while the window is full.
 *
 * <p>The node of the endpoint must have no groups in the cluster file (clients deliver nothing), and
 * it must be running: its owner starts it (a {@code MulticastNode} of a pure client with
 * {@code node.start(delivery -> { }, null)}) so that it can multicast and receive the replies.
 */
public final class EyrieClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EyrieClient.class);
    public static final int DEFAULT_WINDOW = 64;
    public static final long DEFAULT_RETRY_MILLIS = 2000;

    /** How soon a multicast the local node refused (backpressure) is tried again. */
    static final long REFUSED_RETRY_MILLIS = 20;

    private record Pending(long seq, int[] groups, byte[] payload, CompletableFuture<Object> future,
                           java.util.concurrent.atomic.AtomicLong sentNanos) {
    }

    private final MulticastEndpoint endpoint;
    private final PartitioningOracle oracle;
    private final long clientId;
    private final Semaphore window;
    private final long retryMillis;
    private final ConcurrentSkipListMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
    private final ScheduledExecutorService retries;
    private long nextSeq = 1;
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicBoolean warnedMulticastFailure =
            new java.util.concurrent.atomic.AtomicBoolean();

    public EyrieClient(MulticastEndpoint endpoint, PartitioningOracle oracle) {
        this(endpoint, oracle, DEFAULT_WINDOW, DEFAULT_RETRY_MILLIS);
    }

    /**
     * @param window      most commands outstanding at once
     * @param retryMillis how long to wait for a reply before multicasting the command again
     */
    public EyrieClient(MulticastEndpoint endpoint, PartitioningOracle oracle, int window, long retryMillis) {
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, got " + window);
        }
        if (retryMillis < 1) {
            throw new IllegalArgumentException("retryMillis must be at least 1, got " + retryMillis);
        }
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.oracle = Objects.requireNonNull(oracle, "oracle");
        Partition.install(endpoint.config());
        // a fresh session number per client object, so that a restarted client's seqs are new commands
        this.clientId = ((long) endpoint.nodeId() << 32) | (new SecureRandom().nextInt() & 0x7fffffffL);
        this.window = new Semaphore(window);
        this.retryMillis = retryMillis;
        this.retries = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "eyrie-client-retry-" + endpoint.nodeId());
            t.setDaemon(true);
            return t;
        });
        endpoint.onDirect(this::onDirect);
        retries.scheduleWithFixedDelay(this::retryOverdue, retryMillis, Math.max(1, retryMillis / 4),
                TimeUnit.MILLISECONDS);
    }

    /** Executes {@code c} and waits for its result. */
    public Object execute(Command c) {
        try {
            return executeAsync(c).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EyrieException("interrupted while waiting for " + c, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof EyrieException ee) {
                throw ee;
            }
            throw new EyrieException("command " + c + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Submits {@code c}; blocks while {@code window} commands are outstanding. */
    public CompletableFuture<Object> executeAsync(Command c) {
        if (closed) {
            throw new IllegalStateException("client closed");
        }
        Set<Partition> dests = oracle.getDestinations(c);
        if (dests.isEmpty()) {
            throw new IllegalArgumentException("PartitioningOracle.getDestinations(" + c + ") is empty");
        }
        int[] groups = dests.stream().mapToInt(Partition::getId).sorted().distinct().toArray();
        window.acquireUninterruptibly();
        Pending p;
        synchronized (this) {
            long seq = nextSeq++;
            // One read: replies remove entries outside this lock, so isEmpty() then firstKey() could
            // throw NoSuchElementException (seen under failover), failing the command and leaking a permit.
            Map.Entry<Long, Pending> oldest = pending.firstEntry();
            long ackedBelow = oldest == null ? seq : Math.min(seq, oldest.getKey());
            byte[] payload = Wire.encode(new Wire.Request(clientId, seq, ackedBelow, KryoCodec.encode(c)));
            p = new Pending(seq, groups, payload, new CompletableFuture<>(), new java.util.concurrent.atomic.AtomicLong());
            pending.put(seq, p);
        }
        p.future().whenComplete((r, t) -> window.release());
        multicast(p);
        return p.future();
    }

    public long clientId() {
        return clientId;
    }

    /** Commands waiting for a reply. */
    public int outstanding() {
        return pending.size();
    }

    private void multicast(Pending p) {
        p.sentNanos().set(System.nanoTime());
        endpoint.multicast(p.groups(), p.payload()).whenComplete((v, t) -> {
            if (t != null && !closed) {
                // Refused before it left this node (the proposer is full, or the node is not running):
                // nothing was sent, so waiting a whole retry period for a reply would only stall the
                // command and everything ordered behind it; try again shortly instead.
                try {
                    retries.schedule(() -> {
                        if (!closed && pending.get(p.seq()) == p) {
                            multicast(p);
                        }
                    }, REFUSED_RETRY_MILLIS, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // the client is closing
                }
            }
            if (t != null) {
                // the retry timer multicasts it again; the first failure is worth a warning, since a
                // node that was never started fails every multicast and the client would wait silently
                if (!closed && !warnedMulticastFailure.getAndSet(true)) {
                    log.warn("client={} multicast of seq={} failed ({}); retrying in {} ms. Is the client's "
                                    + "endpoint started?", Long.toHexString(clientId), p.seq(), t.toString(), REFUSED_RETRY_MILLIS);
                } else {
                    log.debug("client={} seq={} multicast failed: {}", Long.toHexString(clientId), p.seq(), t.toString());
                }
            }
        });
    }

    private void retryOverdue() {
        long now = System.nanoTime();
        for (Pending p : pending.values()) {
            if (closed) {
                return;
            }
            if (now - p.sentNanos().get() < TimeUnit.MILLISECONDS.toNanos(retryMillis)) {
                continue;
            }
            log.debug("client={} seq={} no reply yet, multicasting again", Long.toHexString(clientId), p.seq());
            multicast(p);
        }
    }

    private void onDirect(int from, byte[] message) {
        Object m;
        try {
            m = Wire.decodeDirect(message);
        } catch (RuntimeException e) {
            log.warn("client={} dropped a malformed message from node {}: {}", Long.toHexString(clientId), from,
                    e.getMessage());
            return;
        }
        if (!(m instanceof Wire.Reply r) || r.clientId() != clientId) {
            return;
        }
        Pending p = pending.remove(r.seq());
        if (p == null) {
            return; // a later reply to a command already answered: the first one won
        }
        if (r.ok()) {
            p.future().complete(KryoCodec.decode(r.body()));
        } else {
            p.future().completeExceptionally(new EyrieException("command failed at the replicas: "
                    + new String(r.body(), StandardCharsets.UTF_8)));
        }
    }

    @Override
    public void close() {
        closed = true;
        retries.shutdownNow();
        for (Pending p : pending.values()) {
            p.future().completeExceptionally(new EyrieException("client closed before a reply to seq " + p.seq()));
        }
        pending.clear();
    }
}
