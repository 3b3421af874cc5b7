package io.eyrie.multicast.internal.storage;

/**
 * The heap that the in-memory acceptor logs of one process may hold together when the cluster file leaves
 * {@code storage.memoryMaxBytes} unset (ADR 056). Every open log registers; each may hold at most an equal
 * share of the total, and never more than {@link #PER_LOG_CEILING}. A process that runs several nodes (the
 * dev cluster: six nodes, each accepting two rings) thus stays within the same total as one node.
 *
 * <p>A share shrinks when another log opens; a log gives back what it holds over its share at its next
 * append (an idle ring holds at most what its share was when it last appended).
 */
public final class MemoryLogBudget {

    /** The largest share of one log, however large the heap: what a fixed bound was before ADR 056. */
    public static final long PER_LOG_CEILING = 256L * 1024 * 1024;

    /** Part of the heap ({@code 1 / HEAP_DIVISOR}) that the process's logs hold together at most. */
    public static final int HEAP_DIVISOR = 4;

    private static final MemoryLogBudget PROCESS = new MemoryLogBudget(Runtime.getRuntime().maxMemory() / HEAP_DIVISOR);

    private final long totalBytes;
    private int openLogs;
    private volatile long share;

    /** A budget of {@code totalBytes} for the logs that register with it (tests; a process uses {@link #process()}). */
    public MemoryLogBudget(long totalBytes) {
        if (totalBytes < 1) {
            throw new IllegalArgumentException("a memory log budget must be at least 1 byte, got " + totalBytes);
        }
        this.totalBytes = totalBytes;
        this.share = shareOf(0);
    }

    /** This JVM's budget: a quarter of its maximum heap. */
    public static MemoryLogBudget process() {
        return PROCESS;
    }

    public long totalBytes() {
        return totalBytes;
    }

    synchronized void register() {
        openLogs++;
        share = shareOf(openLogs);
    }

    synchronized void unregister() {
        if (openLogs > 0) {
            openLogs--;
        }
        share = shareOf(openLogs);
    }

    public synchronized int openLogs() {
        return openLogs;
    }

    /** What one open log may hold now: read on every append, so set when a log opens or closes. */
    public long shareBytes() {
        return share;
    }

    private long shareOf(int logs) {
        return Math.min(PER_LOG_CEILING, Math.max(1, totalBytes / Math.max(1, logs)));
    }
}
