package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A BookKeeper 4.18 cluster for tests, every part its own JVM on BookKeeper's own class path (module
 * bookkeeper-classpath copies it to its target/bookkeeper): bookies ({@code org.apache.bookkeeper.server.Main}) on
 * ports picked here, named bk1, bk2, ... in everything this class returns, and one client
 * (src/test/resources/clients/BookKeeperClient.java) that takes commands line by line. Its metadata goes to the
 * ZooKeeper (or Volery) at the connect string, under /ledgers.
 */
public final class BookKeeperNodes implements AutoCloseable {
    private static final Path JARS = Path.of("..", "bookkeeper-classpath", "target", "bookkeeper").toAbsolutePath()
            .normalize();
    private static final Path RESOURCES = Path.of("src", "test", "resources", "clients").toAbsolutePath();
    /** The root of BookKeeper's znodes. */
    public static final String ROOT = "/ledgers";

    private final Path dir;
    private final String uri;
    private final int[] ports;
    /** Address to name: 127.0.0.1:port to bk1, ... */
    private final Map<String, String> names = new LinkedHashMap<>();
    private final LineProcess[] bookies;
    private final LineProcess client;

    /** Starts the client (no bookie yet) for the metadata at {@code connectString}; bookies keep their data in {@code dir}. */
    public BookKeeperNodes(String connectString, Path dir, int bookies) throws IOException {
        assertTrue(Files.isDirectory(JARS), JARS + " (module bookkeeper-classpath copies it; build it first)");
        this.dir = dir;
        this.uri = "zk+hierarchical://" + connectString.replace(',', ';') + ROOT;
        this.ports = io.eyrie.multicast.LoopbackPorts.free(bookies);
        this.bookies = new LineProcess[bookies];
        for (int i = 0; i < bookies; i++) {
            names.put("127.0.0.1:" + ports[i], name(i + 1));
        }
        client = new LineProcess("bookkeeper-client", jvm(uri), new LinkedBlockingQueue<>());
    }

    /** Bookie {@code n}'s name. */
    public static String name(int n) {
        return "bk" + n;
    }

    /** Sends the client one command (see BookKeeperClient.java) and returns its answer, bookies by name. */
    public String ask(String command) throws Exception {
        client.send(command);
        return named(client.next(90));
    }

    /** {@code text} with each bookie's address replaced by its name. */
    public String named(String text) {
        for (Map.Entry<String, String> e : names.entrySet()) {
            text = text.replaceAll(Pattern.quote(e.getKey()) + "(?!\\d)", e.getValue());
        }
        return text;
    }

    /** Starts bookie {@code n} (1-based) over its directories: a restarted one must match its own cookie. */
    public void startBookie(int n) throws IOException {
        Path home = dir.resolve(name(n));
        Files.createDirectories(home);
        Path conf = home.resolve("bk.conf");
        Files.writeString(conf, String.join("\n", "bookiePort=" + ports[n - 1], "advertisedAddress=127.0.0.1",
                "allowLoopback=true", "journalDirectories=" + home.resolve("journal"),
                "ledgerDirectories=" + home.resolve("ledgers"), "metadataServiceUri=" + uri,
                // its registration is an ephemeral znode of a session that expires 4 s after the bookie dies
                "zkTimeout=4000", "httpServerEnabled=false",
                "ledgerStorageClass=org.apache.bookkeeper.bookie.InterleavedLedgerStorage",
                // autorecovery: the bookies elect an auditor, which marks the ledgers of a lost bookie
                // under-replicated at once (no periodic checks), and each bookie's replication worker takes a lock on
                // one and copies it
                "autoRecoveryDaemonEnabled=true", "lostBookieRecoveryDelay=0", "auditorPeriodicCheckInterval=0",
                "auditorPeriodicBookieCheckInterval=0", "auditorPeriodicPlacementPolicyCheckInterval=0",
                "auditorPeriodicReplicasCheckInterval=0", "journalSyncData=false", "journalPreAllocSizeMB=1",
                "journalWriteBufferSizeKB=64", "entryLogSizeLimit=16777216", "skipListSizeLimit=8388608",
                "diskUsageThreshold=0.99", "diskUsageWarnThreshold=0.98", ""));
        bookies[n - 1] = new LineProcess("bookie " + name(n), jvm("bookie", conf.toString()),
                new LinkedBlockingQueue<>());
    }

    /** kill -9 of bookie {@code n}. */
    public void killBookie(int n) throws InterruptedException {
        bookies[n - 1].kill();
    }

    /** The registered bookies ("bookies bk1,bk2,..."), sorted by name. */
    public String bookies() throws Exception {
        return sorted(ask("bookies"));
    }

    /** An answer whose last word lists bookies, with that list sorted by name. */
    private static String sorted(String line) {
        int last = line.lastIndexOf(' ') + 1;
        List<String> sorted = new ArrayList<>(Arrays.asList(line.substring(last).split(",")));
        sorted.sort(null);
        return line.substring(0, last) + String.join(",", sorted);
    }

    /** Asks for the registered bookies until they are {@code expected} (60 s); the last answer. */
    public String awaitBookies(String expected) throws Exception {
        return await("bookies", expected);
    }

    /** Sends {@code command} until its answer is {@code expected} (60 s), bookies sorted by name; the last answer. */
    public String await(String command, String expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line = sorted(ask(command));
        while (!line.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            line = sorted(ask(command));
        }
        assertEquals(expected, line, "the answer to " + command + " within 60 s");
        return line;
    }

    /** A JVM on BookKeeper's class path running BookKeeperClient (a client, or with "bookie" first, a bookie). */
    private static List<String> jvm(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(LineProcess.java(), "-Xmx128m", "-XX:MaxDirectMemorySize=64m",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dlog4j2.configurationFile=" + RESOURCES.resolve("bookkeeper-log4j2.properties"),
                "-cp", JARS + "/*" + java.io.File.pathSeparator + compiled(), "BookKeeperClient"));
        command.addAll(List.of(args));
        return command;
    }

    private static Path classes;

    /** BookKeeperClient.java compiled against BookKeeper's jars, once per test JVM. */
    private static synchronized Path compiled() throws IOException {
        if (classes == null) {
            // under target (mvn clean removes it), one directory per test JVM (two forks compile at once)
            Path out = Files.createDirectories(Path.of("target", "bookkeeper-client-" + ProcessHandle.current().pid())
                    .toAbsolutePath());
            java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
            int rc = javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, errors, "-d", out.toString(),
                    "-cp", jars(), RESOURCES.resolve("BookKeeperClient.java").toString());
            assertEquals(0, rc, "BookKeeperClient.java compiles: " + errors);
            classes = out;
        }
        return classes;
    }

    /** BookKeeper's jars, listed (the compiler API does not expand "dir/*"). */
    private static String jars() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(JARS)) {
            return files.map(Path::toString).filter(f -> f.endsWith(".jar"))
                    .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        }
    }

    @Override
    public void close() throws InterruptedException {
        client.close();
        for (LineProcess b : bookies) {
            if (b != null) {
                b.close();
            }
        }
    }
}
