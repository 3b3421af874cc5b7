package io.eyrie.examples.real;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Replica processes (separate JVMs on this test's classpath), killed with SIGKILL and restarted. */
final class ReplicaProcesses implements AutoCloseable {

    private final Path outputDir;
    private final String mainClass;
    private final IntFunction<List<String>> argsOfNode;
    private final Map<Integer, Process> processes = new LinkedHashMap<>();

    ReplicaProcesses(Path outputDir, String mainClass, IntFunction<List<String>> argsOfNode) {
        this.outputDir = outputDir;
        this.mainClass = mainClass;
        this.argsOfNode = argsOfNode;
    }

    void start(int node) throws IOException {
        Files.createDirectories(outputDir);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx128m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(argsOfNode.apply(node));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(outputOf(node).toFile()))
                .start();
        processes.put(node, p);
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
    void kill9(int node) throws InterruptedException {
        Process p = processes.remove(node);
        if (p == null) {
            throw new IllegalStateException("node " + node + " is not running");
        }
        p.destroyForcibly();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("node " + node + " (pid " + p.pid() + ") survived SIGKILL for 10 s");
        }
    }

    boolean alive(int node) {
        Process p = processes.get(node);
        return p != null && p.isAlive();
    }

    Path outputOf(int node) {
        return outputDir.resolve("node-" + node + ".out");
    }

    /** The last lines each process printed, for failure messages. */
    String tails() {
        StringBuilder b = new StringBuilder();
        try (var files = Files.list(outputDir)) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                b.append("--- ").append(f.getFileName()).append(" ---\n");
                lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> b.append(l).append('\n'));
            }
        } catch (IOException e) {
            b.append(e);
        }
        return b.toString();
    }

    @Override
    public void close() {
        processes.values().forEach(Process::destroyForcibly);
        for (Process p : processes.values()) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        processes.clear();
    }
}
