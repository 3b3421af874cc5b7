package io.eyrie.examples.bank;

import io.eyrie.core.Command;
import io.eyrie.examples.cli.Args;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.MulticastNode;
import io.eyrie.multicast.Position;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * One bank replica as a process: a Multi-Ring Paxos node of the cluster file plus a
 * {@link BankServer}, checkpointing into its own directory. Started again on the same directories
 * after a crash, it restores its newest checkpoint and replays the commands that followed from the
 * acceptors.
 *
 * <p>With {@code --digests DIR}, every {@link BankCommands#digest} command it executes appends
 * {@code tag position digest} to {@code DIR/digest-<node>.log}, so a test can compare the state of
 * every replica of a partition at the same point of the order.
 */
public final class BankReplicaMain {

    static final String USAGE = "usage: BankReplicaMain --config FILE --node ID --checkpoints DIR "
            + "[--interval DELIVERIES(100)] [--accounts N(9)] [--opening AMOUNT(100)] [--digests DIR] "
            + "[--exchange-timeout MILLIS(200)]";

    private BankReplicaMain() {
    }

    /** The bank server that also writes its digests to a file. */
    static final class DigestLoggingBank extends BankServer {
        private final Path digestLog;

        DigestLoggingBank(MulticastEndpoint endpoint, int accounts, long opening, Path digestLog) {
            super(endpoint, accounts, opening);
            this.digestLog = digestLog;
        }

        @Override
        public Object executeCommand(Command c) {
            Object result = super.executeCommand(c);
            c.rewind();
            if (digestLog != null && BankCommands.DIGEST.equals(c.getNext())) {
                c.getNext();
                Object tag = c.hasNext() ? c.getNext() : "-";
                String line = tag + " " + Position.toString(getCurrentPosition()) + " " + result + "\n";
                try {
                    Files.writeString(digestLog, line, StandardCharsets.US_ASCII, StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot append to " + digestLog, e);
                }
            }
            return result;
        }
    }

    private static String newestCheckpoint(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.startsWith("checkpoint-") && n.endsWith(".kryo"))
                    .max(String::compareTo).orElse(null);
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args;
        try {
            args = new Args(argv, Set.of("config", "node", "checkpoints", "interval", "accounts", "opening",
                    "digests", "exchange-timeout"), USAGE);
            args.required("config");
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        ClusterConfig config = ClusterConfig.load(Path.of(args.required("config")));
        int node = args.getInt("node", -1);
        Path digests = args.has("digests") ? Path.of(args.get("digests", ".")) : null;
        if (digests != null) {
            Files.createDirectories(digests);
        }
        MulticastNode endpoint = MulticastNode.builder(config, node).build();
        DigestLoggingBank bank = new DigestLoggingBank(endpoint, args.getInt("accounts", 9),
                args.getInt("opening", 100), digests == null ? null : digests.resolve("digest-" + node + ".log"));
        Path checkpoints = Path.of(args.required("checkpoints"));
        bank.setCheckpointing(checkpoints, args.getInt("interval", 100));
        String newest = newestCheckpoint(checkpoints);
        System.out.println(newest == null ? "bank replica node=" + node + " starts empty (no checkpoint)"
                : "bank replica node=" + node + " restores checkpoint " + newest + " and replays what follows");
        bank.setExchangeTimeoutMillis(args.getInt("exchange-timeout", 200));
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bank.close();
            endpoint.close();
            stop.countDown();
        }, "bank-replica-shutdown"));
        bank.runStateMachine();
        System.out.println("bank replica node=" + node + " partition=" + bank.getLocalPartition() + " running");
        stop.await();
    }
}
