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
        client = new LineProcess("bookkeeper-client", jvm("BookKeeperClient.java", uri), new LinkedBlockingQueue<>());
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
                "autoRecoveryDaemonEnabled=false", "journalSyncData=false", "journalPreAllocSizeMB=1",
                "journalWriteBufferSizeKB=64", "entryLogSizeLimit=16777216", "skipListSizeLimit=8388608",
                "diskUsageThreshold=0.99", "diskUsageWarnThreshold=0.98", ""));
        bookies[n - 1] = new LineProcess("bookie " + name(n),
                jvm("org.apache.bookkeeper.server.Main", "--conf", conf.toString()), new LinkedBlockingQueue<>());
    }

    /** kill -9 of bookie {@code n}. */
    public void killBookie(int n) throws InterruptedException {
        bookies[n - 1].kill();
    }

    /** The registered bookies ("bookies bk1,bk2,..."), sorted by name. */
    public String bookies() throws Exception {
        String line = ask("bookies");
        if (!line.startsWith("bookies ")) {
            return line;
        }
        List<String> sorted = new ArrayList<>(Arrays.asList(line.substring("bookies ".length()).split(",")));
        sorted.sort(null);
        return "bookies " + String.join(",", sorted);
    }

    /** Asks for the registered bookies until they are {@code expected} (60 s); the last answer. */
    public String awaitBookies(String expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String line = bookies();
        while (!line.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            line = bookies();
        }
        assertEquals(expected, line, "the registered bookies within 60 s");
        return line;
    }

    /** A JVM on BookKeeper's class path running {@code main} (a class, or a source file of the resources). */
    private static List<String> jvm(String main, String... args) {
        List<String> command = new ArrayList<>(List.of(LineProcess.java(), "-Xmx128m", "-XX:MaxDirectMemorySize=64m",
                "-Dlog4j2.configurationFile=" + RESOURCES.resolve("bookkeeper-log4j2.properties"),
                "-cp", JARS + "/*", main.endsWith(".java") ? RESOURCES.resolve(main).toString() : main));
        command.addAll(List.of(args));
        return command;
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
