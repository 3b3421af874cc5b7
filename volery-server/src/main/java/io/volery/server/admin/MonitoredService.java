package io.volery.server.admin;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.volery.server.frontend.ClientConnection;
import io.volery.server.frontend.ZkReply;
import io.volery.server.frontend.ZkRequest;
import io.volery.server.frontend.ZkService;
import io.volery.server.internal.VoleryOracle;
import io.volery.server.internal.VoleryRequest;
import org.apache.zookeeper.proto.ConnectRequest;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * A {@link ZkService} in front of the real one that measures what monitoring reports: latency
 * (ZooKeeper's min/avg/max and a timer per operation and partition), outstanding requests, each
 * connection's counters, and the session timeout bounds of the configuration.
 */
public final class MonitoredService implements ZkService {
    private final ZkService delegate;
    private final VoleryOracle oracle;
    private final MeterRegistry registry;
    private final int minSessionTimeout;
    private final int maxSessionTimeout;
    private final Map<ClientConnection, ConnectionStats> connections = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong minLatency = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong maxLatency = new AtomicLong();
    private final AtomicLong totalLatency = new AtomicLong();
    private final AtomicLong count = new AtomicLong();

    /**
     * @param minSessionTimeout the least session timeout granted (a client asking less gets this)
     * @param maxSessionTimeout the largest session timeout granted
     */
    public MonitoredService(ZkService delegate, VoleryOracle oracle, MeterRegistry registry,
                            int minSessionTimeout, int maxSessionTimeout) {
        this.delegate = delegate;
        this.oracle = oracle;
        this.registry = registry;
        this.minSessionTimeout = minSessionTimeout;
        this.maxSessionTimeout = maxSessionTimeout;
    }

    @Override
    public CompletableFuture<ConnectOutcome> connect(ConnectRequest request, ClientConnection connection) {
        ConnectionStats stats = connections.computeIfAbsent(connection, c -> new ConnectionStats(System.currentTimeMillis()));
        stats.received.incrementAndGet();
        ConnectRequest bounded = new ConnectRequest(request.getProtocolVersion(), request.getLastZxidSeen(),
                Math.max(minSessionTimeout, Math.min(maxSessionTimeout, request.getTimeOut())), request.getSessionId(),
                request.getPasswd(), request.getReadOnly());
        return delegate.connect(bounded, connection).whenComplete((outcome, error) -> {
            if (outcome != null && outcome.accepted()) {
                stats.timeout = outcome.timeoutMillis();
                stats.sent.incrementAndGet();
            } else {
                // the front end closes a refused handshake without calling disconnected()
                connections.remove(connection);
            }
        });
    }

    @Override
    public CompletableFuture<ZkReply> submit(ClientConnection connection, ZkRequest request) {
        ConnectionStats stats = connections.computeIfAbsent(connection, c -> new ConnectionStats(System.currentTimeMillis()));
        stats.received.incrementAndGet();
        stats.lastCxid = request.xid();
        stats.lastOp = request.opCode();
        Timer timer = timer(request);
        long start = System.nanoTime();
        outstanding.incrementAndGet();
        return delegate.submit(connection, request).whenComplete((reply, error) -> {
            outstanding.decrementAndGet();
            long nanos = System.nanoTime() - start;
            timer.record(nanos, TimeUnit.NANOSECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(nanos);
            minLatency.accumulateAndGet(millis, Math::min);
            maxLatency.accumulateAndGet(millis, Math::max);
            totalLatency.addAndGet(millis);
            count.incrementAndGet();
            stats.latency(millis);
            stats.lastResponse = System.currentTimeMillis();
            if (reply != null) {
                stats.sent.incrementAndGet();
                stats.lastZxid = reply.zxid();
            }
        });
    }

    /**
     * The timer of the request's operation and partitions. Looked up by a number (the operation and a
     * bit per partition) so that the common case builds no strings per request; partition ids beyond
     * the bits take the string key.
     */
    private Timer timer(ZkRequest request) {
        int[] d;
        try {
            d = oracle.destinations(VoleryRequest.zk(0, request, 0, 0));
        } catch (RuntimeException e) {
            return timer(request.opCode(), "unknown");
        }
        long mask = 0;
        for (int p : d) {
            mask = p >= 0 && p < 31 && mask >= 0 ? mask | (1L << p) : -1;
        }
        if (mask < 0) {
            return timer(request.opCode(), partitionsTag(d));
        }
        long key = ((long) request.opCode() << 32) | mask;
        Timer t = timersByMask.get(key);
        if (t == null) {
            int[] destinations = d;
            t = timersByMask.computeIfAbsent(key, k -> timer(request.opCode(), partitionsTag(destinations)));
        }
        return t;
    }

    private final Map<Long, Timer> timersByMask = new ConcurrentHashMap<>();

    private static String partitionsTag(int[] d) {
        return d.length == 1 ? String.valueOf(d[0])
                : d.length == 0 ? "none" : Arrays.stream(d).mapToObj(String::valueOf).collect(Collectors.joining("+"));
    }

    private Timer timer(int opCode, String partitions) {
        String op = OpNames.tag(opCode);
        String key = op + "/" + partitions;
        return timers.computeIfAbsent(key, k -> Timer.builder("volery.requests")
                .description("ZooKeeper requests served by this node, by operation and partitions reached")
                .tag("op", op).tag("partition", partitions)
                .register(registry));
    }

    @Override
    public void writeReply(ClientConnection connection, long zxid, Runnable write) {
        delegate.writeReply(connection, zxid, write);
    }

    @Override
    public long ping(ClientConnection connection) {
        ConnectionStats stats = connections.get(connection);
        if (stats != null) {
            stats.received.incrementAndGet();
            stats.sent.incrementAndGet();
            stats.lastOp = 11;
        }
        return delegate.ping(connection);
    }

    @Override
    public void disconnected(ClientConnection connection) {
        connections.remove(connection);
        delegate.disconnected(connection);
    }

    public long outstanding() {
        return outstanding.get();
    }

    public long minLatencyMillis() {
        long m = minLatency.get();
        return m == Long.MAX_VALUE ? 0 : m;
    }

    public long maxLatencyMillis() {
        return maxLatency.get();
    }

    /** ZooKeeper prints the average with one decimal. */
    public double avgLatencyMillis() {
        long n = count.get();
        return n == 0 ? 0 : Math.round(10.0 * totalLatency.get() / n) / 10.0;
    }

    public long requestsCompleted() {
        return count.get();
    }

    /** The connections with a handshake under way or done. */
    public List<ConnectionView> connections() {
        List<ConnectionView> out = new ArrayList<>();
        connections.forEach((c, s) -> out.add(new ConnectionView(c.remoteAddress(), c.sessionId(), s, c.secure())));
        return out;
    }

    /** What {@code cons} and {@code dump} show of one connection; {@code secure}: over TLS. */
    public record ConnectionView(InetSocketAddress remote, long sessionId, ConnectionStats stats, boolean secure) {
    }

    /** One connection's counters. */
    public static final class ConnectionStats {
        final long established;
        final AtomicLong received = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        volatile int timeout;
        volatile int lastCxid;
        volatile int lastOp = Integer.MIN_VALUE;
        volatile long lastZxid = -1;
        volatile long lastResponse;
        volatile long lastLatency;
        private long minLat = Long.MAX_VALUE;
        private long maxLat;
        private long sumLat;
        private long countLat;

        ConnectionStats(long established) {
            this.established = established;
        }

        synchronized void latency(long millis) {
            lastLatency = millis;
            minLat = Math.min(minLat, millis);
            maxLat = Math.max(maxLat, millis);
            sumLat += millis;
            countLat++;
        }

        synchronized long[] latencies() {
            return new long[] {countLat == 0 ? 0 : minLat, countLat == 0 ? 0 : sumLat / countLat, maxLat};
        }
    }

    @Override
    public io.volery.server.audit.AuditLog audit() {
        return delegate.audit();
    }
}
