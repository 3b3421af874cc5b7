package io.eyrie.multicast.internal.tools;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.MulticastNode;
import io.eyrie.multicast.Position;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one multicast node as its own process, optionally with a load generator: the tool behind
 * the real-process fault tests and the multicast benchmark.
 *
 * <pre>
 * NodeMain --config FILE --node ID [--rate MSGS_PER_S] [--window N] [--bytes B]
 *          [--propose-for-ms MS] [--log-dir DIR]
 * </pre>
 *
 * With {@code --log-dir}, every delivery is appended to {@code delivered-ID-PID.log} as
 * {@code position payloadId} and every acknowledged multicast to {@code acked-ID-PID.log} as
 * {@code payloadId groups}; an ack line is flushed before the next multicast is issued, so a line
 * in the file is a multicast the node had acknowledged before it died.
 *
 * <p>{@code -Deyrie.transport.factory=CLASS} replaces the Netty transport: CLASS has a public no-argument
 * constructor and implements {@code Function<MulticastNode, Transport>} (the DPDK module ships one).
 */
public final class NodeMain {

    public static void main(String[] args) throws Exception {
        Path config = null;
        int node = -1;
        double rate = 0;
        int window = 16;
        int bytes = 100;
        long proposeForMs = Long.MAX_VALUE;
        Path logDir = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--config" -> { config = Path.of(v); i++; }
                case "--node" -> { node = Integer.parseInt(v); i++; }
                case "--rate" -> { rate = Double.parseDouble(v); i++; }
                case "--window" -> { window = Integer.parseInt(v); i++; }
                case "--bytes" -> { bytes = Integer.parseInt(v); i++; }
                case "--propose-for-ms" -> { proposeForMs = Long.parseLong(v); i++; }
                case "--log-dir" -> { logDir = Path.of(v); i++; }
                default -> {
                    System.err.println("unknown argument " + a
                            + "\nusage: NodeMain --config FILE --node ID [--rate N] [--window N] [--bytes B]"
                            + " [--propose-for-ms MS] [--log-dir DIR]");
                    System.exit(2);
                }
            }
        }
        if (config == null || node < 0) {
            System.err.println("--config and --node are required");
            System.exit(2);
        }
        ClusterConfig cfg = ClusterConfig.load(config);
        long pid = ProcessHandle.current().pid();
        BufferedWriter delivered = logDir == null ? null : open(logDir.resolve("delivered-" + node + "-" + pid + ".log"));
        BufferedWriter acked = logDir == null ? null : open(logDir.resolve("acked-" + node + "-" + pid + ".log"));
        AtomicLong deliveries = new AtomicLong();
        MulticastNode.Builder builder = MulticastNode.builder(cfg, node);
        String factory = System.getProperty("eyrie.transport.factory");
        if (factory != null) {
            @SuppressWarnings("unchecked")
            java.util.function.Function<MulticastNode, io.eyrie.multicast.Transport> f =
                    (java.util.function.Function<MulticastNode, io.eyrie.multicast.Transport>)
                            Class.forName(factory).getConstructor().newInstance();
            builder.transport(f);
        }
        MulticastNode n = builder.build();
        n.start((Delivery d) -> {
            deliveries.incrementAndGet();
            if (delivered != null) {
                write(delivered, d.position() + " " + payloadId(d.payload()) + "\n", false);
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            flush(delivered);
            flush(acked);
        }));
        Thread flusher = new Thread(() -> {
            while (true) {
                flush(delivered);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "flusher");
        flusher.setDaemon(true);
        flusher.start();
        System.out.println("node " + node + " pid " + pid + " started");
        System.out.flush();

        int[][] groupChoices = groupChoices(cfg);
        Random random = new Random(pid * 31 + node);
        long start = System.nanoTime();
        long issued = 0;
        Semaphore outstanding = new Semaphore(window);
        long lastReport = System.nanoTime();
        // Tests end the load by creating this file, so every process stops proposing together.
        Path stopFile = logDir == null ? null : logDir.resolve("stop");
        long lastStopCheckMs = 0;
        while (true) {
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            if (stopFile != null && elapsedMs - lastStopCheckMs >= 100) {
                lastStopCheckMs = elapsedMs;
                if (Files.exists(stopFile)) {
                    proposeForMs = 0;
                }
            }
            if (rate > 0 && elapsedMs < proposeForMs) {
                long due = (long) (elapsedMs * rate / 1000.0);
                if (issued < due && outstanding.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                    int[] groups = groupChoices[random.nextInt(groupChoices.length)];
                    String id = "n" + node + "-p" + pid + "-" + issued;
                    byte[] payload = payload(id, bytes);
                    issued++;
                    n.multicast(groups, payload).whenComplete((ok, err) -> {
                        if (err == null && acked != null) {
                            write(acked, id + " " + join(groups) + "\n", true);
                        }
                        outstanding.release();
                    });
                    continue;
                }
            }
            Thread.sleep(rate > 0 && elapsedMs < proposeForMs ? 1 : 50);
            if (System.nanoTime() - lastReport > 1_000_000_000L) {
                lastReport = System.nanoTime();
                System.out.println("node " + node + " issued=" + issued + " delivered=" + deliveries.get()
                        + " status=" + n.status());
                System.out.flush();
            }
        }
    }

    /** Every single group, and every group set of two, so both group rings and ALL are used. */
    static int[][] groupChoices(ClusterConfig cfg) {
        int[] groups = cfg.groups().stream().mapToInt(Integer::intValue).toArray();
        java.util.List<int[]> choices = new java.util.ArrayList<>();
        for (int g : groups) {
            choices.add(new int[] {g});
        }
        if (groups.length > 1) {
            choices.add(Arrays.copyOf(groups, groups.length));
        }
        return choices.toArray(new int[0][]);
    }

    static byte[] payload(String id, int bytes) {
        byte[] idBytes = (id + "|").getBytes(StandardCharsets.US_ASCII);
        byte[] p = new byte[Math.max(bytes, idBytes.length)];
        System.arraycopy(idBytes, 0, p, 0, idBytes.length);
        return p;
    }

    static String payloadId(byte[] payload) {
        for (int i = 0; i < payload.length; i++) {
            if (payload[i] == '|') {
                return new String(payload, 0, i, StandardCharsets.US_ASCII);
            }
        }
        return "?";
    }

    private static String join(int[] groups) {
        StringBuilder b = new StringBuilder();
        for (int g : groups) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(g);
        }
        return b.toString();
    }

    private static BufferedWriter open(Path p) throws IOException {
        Files.createDirectories(p.getParent());
        return Files.newBufferedWriter(p, StandardCharsets.US_ASCII, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private static void write(BufferedWriter w, String line, boolean flush) {
        synchronized (w) {
            try {
                w.write(line);
                if (flush) {
                    w.flush();
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    private static void flush(BufferedWriter w) {
        if (w == null) {
            return;
        }
        synchronized (w) {
            try {
                w.flush();
            } catch (IOException ignored) {
                // The process is going down; nothing more to do.
            }
        }
    }

    private NodeMain() {
    }
}
