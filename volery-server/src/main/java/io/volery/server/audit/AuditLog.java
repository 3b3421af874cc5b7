package io.volery.server.audit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * ZooKeeper's audit log (3.6+, {@code audit.enable}; ADR 071): one line per change a client asked for and how
 * it ended, and per ephemeral node its session's end removed, with ZooKeeper's fields in ZooKeeper's order,
 * tab separated ({@code session=0x..  user=..  ip=..  operation=..  znode=..  znode_type=..  acl=..
 * result=success|failure|invoked}), after the time and the level ZooKeeper's logger gives them (INFO, or
 * ERROR for a failure). Lines are appended to a file by a thread of their own, so that no client thread
 * waits for the disk; {@link #close} writes what is queued.
 */
public final class AuditLog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
    private static final String STOP = "\u0000stop";

    /** Results, as ZooKeeper's {@code AuditEvent.Result}. */
    public enum Result { SUCCESS, FAILURE, INVOKED }

    private final Path file;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closed;

    private AuditLog(Path file) throws IOException {
        this.file = file;
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        writer = new Thread(() -> write(out), "volery-audit");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * An audit log appending to {@code file} (created with its directories).
     *
     * @throws IOException when the file cannot be opened for appending
     */
    public static AuditLog open(Path file) throws IOException {
        return new AuditLog(file);
    }

    public Path file() {
        return file;
    }

    /**
     * Logs one event; null fields are left out, as ZooKeeper leaves them out.
     *
     * @param session the session as ZooKeeper prints it (0x + hex), or null
     * @param user    the identities' user names, comma separated ({@link #users}), or null
     */
    public void log(String session, String user, String ip, String operation, String znode, String znodeType,
                    String acl, Result result) {
        if (closed) {
            return;
        }
        lines.add(line(session, user, ip, operation, znode, znodeType, acl, result));
    }

    /** An event's text, without time and level: ZooKeeper's {@code AuditEvent.toString()}. */
    public static String line(String session, String user, String ip, String operation, String znode,
                              String znodeType, String acl, Result result) {
        StringBuilder s = new StringBuilder();
        field(s, "session", session);
        field(s, "user", user);
        field(s, "ip", ip);
        field(s, "operation", operation);
        field(s, "znode", znode);
        field(s, "znode_type", znodeType);
        field(s, "acl", acl);
        if (s.length() > 0) {
            s.append('\t');
        }
        return s.append("result=").append(result.name().toLowerCase(java.util.Locale.ROOT)).toString();
    }

    private static void field(StringBuilder s, String key, String value) {
        if (value != null) {
            if (s.length() > 0) {
                s.append('\t');
            }
            s.append(key).append('=').append(value);
        }
    }

    /** The user field of identities (scheme, id) as ZooKeeper's providers name them; null for none. */
    public static String users(List<String[]> identities) {
        List<String> names = new ArrayList<>();
        for (String[] id : identities) {
            String name = switch (id[0]) {
                case "digest" -> id[1].split(":")[0];
                case "ip", "sasl", "x509", "world" -> id[1];
                default -> null; // super and unknown schemes: ZooKeeper has no provider to name them
            };
            if (name != null && !name.isBlank()) {
                names.add(name);
            }
        }
        return names.isEmpty() ? null : String.join(",", names);
    }

    private void write(BufferedWriter out) {
        try (out) {
            List<String> batch = new ArrayList<>();
            while (true) {
                String first = lines.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                lines.drainTo(batch);
                boolean stop = false;
                for (String l : batch) {
                    if (l == STOP) {
                        stop = true;
                        continue;
                    }
                    out.write(Instant.now().toString());
                    out.write(l.endsWith("result=failure") ? " ERROR " : " INFO ");
                    out.write(l);
                    out.newLine();
                }
                batch.clear();
                out.flush();
                if (stop) {
                    return;
                }
            }
        } catch (IOException e) {
            log.error("the audit log {} cannot be written: {}", file, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes what is queued and closes the file. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        lines.add(STOP);
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
