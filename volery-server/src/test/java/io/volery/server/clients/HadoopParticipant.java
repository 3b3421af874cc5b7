package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One participant of a Hadoop HA election in its own JVM (src/test/resources/clients/HadoopElector.java: Hadoop
 * 3.4.1's ActiveStandbyElector on the ZooKeeper 3.8.4 client, the jars Maven copies to target): what it prints, line
 * by line, and its stdin.
 */
public final class HadoopParticipant implements AutoCloseable {
    /** The election's parent znode. */
    public static final String PARENT = "/hadoop-ha/cluster1";
    private static final Path JARS = Path.of("target").toAbsolutePath();
    private static final Path ELECTOR = Path.of("src", "test", "resources", "clients", "HadoopElector.java")
            .toAbsolutePath();

    /** Its name, which its breadcrumb holds while it is active. */
    public final String name;
    private final String connectString;
    /** What it printed and the test has not taken yet. */
    public final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private LineProcess process;

    /** Not started yet: {@link #start}. */
    public HadoopParticipant(String connectString, String name) {
        this.connectString = connectString;
        this.name = name;
    }

    /** Starts its JVM, which joins the election. */
    public void start() throws IOException {
        Path hadoop = JARS.resolve("hadoop-elector");
        Path client = JARS.resolve("old-zookeeper-clients");
        assertTrue(Files.isDirectory(hadoop), hadoop + " (Maven copies it in generate-test-resources)");
        String classPath = String.join(File.pathSeparator, hadoop.resolve("hadoop-common-3.4.1.jar").toString(),
                hadoop.resolve("hadoop-annotations-3.4.1.jar").toString(),
                client.resolve("3.8.4").resolve("zookeeper-3.8.4.jar").toString(),
                client.resolve("3.8.4").resolve("zookeeper-jute-3.8.4.jar").toString(),
                client.resolve("slf4j-api-1.7.36.jar").toString());
        process = new LineProcess(name, List.of(LineProcess.java(), "-Xmx64m", "-cp", classPath, ELECTOR.toString(),
                connectString, PARENT, name), lines);
    }

    /** The next line it prints (within 60 s). */
    public String next() throws InterruptedException {
        return process.next(60);
    }

    /** "quit" (leave the election gracefully) or "active" (print "ACTIVE-IS name"). */
    public void send(String command) throws IOException {
        process.send(command);
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.kill();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.close();
        }
    }
}
