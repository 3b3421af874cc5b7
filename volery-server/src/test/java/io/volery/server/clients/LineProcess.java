package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A program in its own process that a test talks to by lines (Hadoop's elector, BookKeeper's client and bookies):
 * what it prints, line by line, its stdin, its stderr for failure messages, and kill -9.
 */
public final class LineProcess implements AutoCloseable {
    /** What the test calls it in failure messages. */
    public final String name;
    private final LinkedBlockingQueue<String> lines;
    private final StringBuilder stderr = new StringBuilder();
    private final Process process;
    private final Writer stdin;

    /** Starts {@code command}; what it prints goes to {@code lines}. */
    public LineProcess(String name, List<String> command, LinkedBlockingQueue<String> lines) throws IOException {
        this.name = name;
        this.lines = lines;
        process = new ProcessBuilder(command).start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread out = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
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

    /** The path of this JVM's {@code java}, for child JVMs. */
    public static String java() {
        return java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The next line it prints, within {@code seconds}. */
    public String next(int seconds) throws InterruptedException {
        String line = lines.poll(seconds, TimeUnit.SECONDS);
        assertNotNull(line, name + " said nothing within " + seconds + " s; its stderr:\n" + stderr);
        return line;
    }

    /** One line to its stdin. */
    public void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** What it wrote to stderr so far. */
    public String stderr() {
        return stderr.toString();
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(20, TimeUnit.SECONDS), name + " died on kill -9");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }
}
