package io.eyrie.examples.kv;

import io.eyrie.examples.cli.Args;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One key-value replica as a process (no checkpoints). With {@code --stats DIR} it keeps
 * {@code DIR/stats-<node>} up to date (every second) with {@code pid framesSent epochMillis}, so a
 * benchmark driver can count its CPU time (from /proc) and the rate of network messages it sends.
 */
public final class KvReplicaMain {

    static final String USAGE = "usage: KvReplicaMain --config FILE --node ID [--stats DIR] [--tick-millis 2]";

    private KvReplicaMain() {
    }

    public static void main(String[] argv) throws Exception {
        Args args;
        try {
            args = new Args(argv, Set.of("config", "node", "stats", "tick-millis"), USAGE);
            args.required("config");
            args.required("node");
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        ClusterConfig config = ClusterConfig.load(Path.of(args.required("config")));
        int node = args.getInt("node", -1);
        MulticastNode endpoint = MulticastNode.builder(config, node).tickMillis(args.getInt("tick-millis", 2)).build();
        KvServer server = new KvServer(endpoint);
        ScheduledExecutorService reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kv-stats");
            t.setDaemon(true);
            return t;
        });
        if (args.has("stats")) {
            Path dir = Path.of(args.get("stats", "."));
            Files.createDirectories(dir);
            Path file = dir.resolve("stats-" + node);
            Path tmp = dir.resolve("stats-" + node + ".tmp");
            Path status = dir.resolve("status-" + node);
            long pid = ProcessHandle.current().pid();
            long[] reports = {0};
            reporter.scheduleAtFixedRate(() -> {
                try {
                    Files.writeString(tmp, pid + " " + endpoint.transportStats().framesSent() + " "
                            + System.currentTimeMillis() + "\n", StandardCharsets.US_ASCII);
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    // the protocol's view (rings, decided instances, merge position), for diagnosis; every
                    // 5 s, as formatting it costs a capped replica a visible share of its CPU
                    if (reports[0]++ % 5 == 0) {
                        Files.writeString(tmp, endpoint.status() + "\n", StandardCharsets.US_ASCII);
                        Files.move(tmp, status, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (Exception e) {
                    System.err.println("cannot write " + file + ": " + e);
                }
            }, 0, 1000, TimeUnit.MILLISECONDS); // writing these 10 times a second took 6-8 % of a 10 % cap
        }
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            reporter.shutdownNow();
            server.close();
            endpoint.close();
            stop.countDown();
        }, "kv-replica-shutdown"));
        server.runStateMachine();
        System.out.println("kv replica node=" + node + " partition=" + server.getLocalPartition() + " running");
        stop.await();
    }
}
