package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

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
    private final StringBuilder stderr = new StringBuilder();
    private Process process;
    private Writer stdin;

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
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(java, "-Xmx64m", "-cp", classPath, ELECTOR.toString(), connectString, PARENT, name)
                .start();
        stdin = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread out = new Thread(() -> {
            try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // killed
            }
        }, name + "-stdout");
        out.setDaemon(true);
        out.start();
        ExternalProcess.drain(process.getErrorStream(), stderr);
    }

    /** The next line it prints (within 60 s). */
    public String next() throws InterruptedException {
        String line = lines.poll(60, TimeUnit.SECONDS);
        assertNotNull(line, name + " said nothing within 60 s; its stderr:\n" + stderr);
        return line;
    }

    /** "quit" (leave the election gracefully) or "active" (print "ACTIVE-IS name"). */
    public void send(String command) throws IOException {
        stdin.write(command + "\n");
        stdin.flush();
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(20, TimeUnit.SECONDS), name + " died on kill -9");
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }
}
