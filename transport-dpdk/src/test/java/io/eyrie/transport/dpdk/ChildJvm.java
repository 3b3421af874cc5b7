package io.eyrie.transport.dpdk;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** A child JVM on this test's classpath and native library path; its output lines are kept. */
final class ChildJvm implements AutoCloseable {
    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();

    ChildJvm(List<String> prefix, Class<?> main, String... args) throws IOException {
        this(prefix, List.of(), main.getName(), args);
    }

    ChildJvm(List<String> prefix, List<String> jvmArgs, String main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Djava.library.path=" + System.getProperty("dpdk.native.dir"));
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main);
        cmd.addAll(List.of(args));
        process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
    }

    boolean awaitExit(long seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    String output() {
        return String.join("\n", lines);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
