package io.eyrie.multicast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Something built from TLS store files (an SSL context) that is built again when their contents change, for
 * ZooKeeper's {@code sslQuorumReloadCertFiles} and {@code client.certReload} (ADR 066): new connections
 * then use the new keys and trust; connections already made keep theirs. The files are compared by
 * content, not by time stamp, so a store replaced by a rename, by a symbolic link swap or rewritten within
 * the same second is seen. A store that cannot be used (half written, wrong password) leaves the last good
 * one in use; it is logged and counted, and tried again once the files change again.
 *
 * @param <T> what is built from the files
 */
public final class StoreReloader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(StoreReloader.class);
    /** How often {@link #watch} looks at the files. */
    public static final long POLL_MILLIS = 1_000;

    private final String what;
    private final List<Path> files;
    private final Supplier<T> build;
    private volatile T current;
    private byte[] loaded;
    private byte[] refused;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    /**
     * Builds the first value now; its failure is the caller's (a configuration error).
     *
     * @param what  what the files are for, for log lines ("TLS between nodes")
     * @param files the store files whose contents decide
     * @param build builds a value from the files as they are; an exception means they cannot be used
     */
    public StoreReloader(String what, List<Path> files, Supplier<T> build) {
        this.what = what;
        this.files = List.copyOf(files);
        this.build = build;
        byte[] digest = digest();
        this.current = build.get();
        this.loaded = digest;
    }

    /** The value built from the last usable contents of the files. */
    public T current() {
        return current;
    }

    /** Values built again since the first. */
    public long reloads() {
        return reloads.get();
    }

    /** Changed contents that could not be used. */
    public long failures() {
        return failures.get();
    }

    /** Builds again if the files' contents changed since the last build or refusal; true if it did. */
    public synchronized boolean reloadIfChanged() {
        byte[] digest = digest();
        if (digest == null || Arrays.equals(digest, loaded) || Arrays.equals(digest, refused)) {
            return false;
        }
        try {
            current = build.get();
            loaded = digest;
            refused = null;
            reloads.incrementAndGet();
            LOG.info("{}: store files {} changed; new connections use them", what, files);
            return true;
        } catch (RuntimeException e) {
            refused = digest;
            failures.incrementAndGet();
            LOG.warn("{}: store files {} changed but cannot be used, keeping the previous ones: {}", what, files,
                    e.getMessage());
            return false;
        }
    }

    /**
     * Looks at the files every {@link #POLL_MILLIS} on a daemon thread of its own until the returned executor
     * is shut down.
     */
    public ScheduledExecutorService watch() {
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tls-store-watch");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(() -> {
            try {
                reloadIfChanged();
            } catch (RuntimeException e) {
                LOG.warn("{}: watching {} failed: {}", what, files, e.toString());
            }
        }, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
        return thread;
    }

    /** A digest of the files' contents, or null while one cannot be read (being replaced). */
    private byte[] digest() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path f : files) {
                sha.update(Files.readAllBytes(f));
                sha.update((byte) 0);
            }
            return sha.digest();
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
