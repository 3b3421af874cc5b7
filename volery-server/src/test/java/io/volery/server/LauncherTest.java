package io.volery.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher as a user runs it: {@code bin/volery} in its own process (with the build's classpath
 * handed in, so that the test does not start Maven), and ZooKeeper 3.9.5's own command-line client.
 */
class LauncherTest {
    private static final Path SCRIPT = locateScript();
    private static final String CLASSPATH = System.getProperty("java.class.path");
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    static Path locateScript() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isExecutable(p.resolve("bin/volery"))) {
            p = p.getParent();
        }
        assertNotNull(p, "bin/volery not found above " + Path.of("").toAbsolutePath());
        return p.resolve("bin/volery");
    }

    private static ProcessBuilder volery(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("VOLERY_CLASSPATH", CLASSPATH);
        pb.environment().put("JAVA_OPTS", "-Xmx256m");
        return pb;
    }

    @Test
    void devStartsAClusterThatZkCliCreatesAndReadsAZnodeThrough() throws Exception {
        int port = freePortRun(6);
        java.io.File stderr = java.io.File.createTempFile("volery-dev", ".err");
        stderr.deleteOnExit();
        Process dev = volery("dev", "--port", String.valueOf(port), "--admin-port", "0").redirectError(stderr).start();
        List<String> adminUrls = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(dev.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> connect = CompletableFuture.supplyAsync(() -> {
                try {
                    String line;
                    while ((line = out.readLine()) != null) {
                        java.util.regex.Matcher admin = java.util.regex.Pattern.compile("admin (http://\\S+/commands)").matcher(line);
                        if (admin.find()) {
                            adminUrls.add(admin.group(1));
                        }
                        if (line.startsWith("connect string: ")) {
                            return line.substring("connect string: ".length());
                        }
                    }
                    return null;
                } catch (IOException e) {
                    return null;
                }
            });
            String connectString = connect.get(60, TimeUnit.SECONDS);
            assertNotNull(connectString, () -> "volery dev ended without printing its connect string; its stderr:\n"
                    + tail(stderr.toPath()));
            assertTrue(connectString.startsWith("127.0.0.1:" + port + ","),
                    "expected the first node on 127.0.0.1:" + port + ", got " + connectString);
            assertEquals(6, connectString.split(",").length, "expected 2 partitions x 3 replicas in " + connectString);

            String created = zkCli(connectString, "create", "/launcher", "hello-volery");
            assertTrue(created.contains("Created /launcher"), "zkCli create said:\n" + created);
            String read = zkCli(connectString, "get", "/launcher");
            assertTrue(read.lines().anyMatch(l -> l.equals("hello-volery")), "zkCli get said:\n" + read);
            // --admin-port: every node serves ZooKeeper's AdminServer commands (ADR 068)
            assertEquals(6, adminUrls.size(), "admin URLs printed: " + adminUrls);
            java.net.HttpURLConnection ruok = (java.net.HttpURLConnection) new java.net.URL(adminUrls.get(0) + "/ruok").openConnection();
            String answer = new String(ruok.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.contains("\"command\" : \"ruok\"") && answer.contains("\"error\" : null"), answer);
        } finally {
            dev.destroy();
            if (!dev.waitFor(20, TimeUnit.SECONDS)) {
                dev.destroyForcibly();
            }
        }
    }

    @Test
    void aBrokenConfigurationFileIsRefusedWithTheKeyAndLine(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("volery.cfg");
        Files.writeString(cfg, String.join("\n",
                "node.1 = 127.0.0.1:7001",
                "node.1.groups = 1",
                "node.1.clientPort = 2181",
                "ring.1.acceptors = 1",
                "group.1.ring = 1",
                "ring.all = 1",
                "tickTime = two seconds",
                ""));
        Process p = volery("start", "--config", cfg.toString(), "--node", "1").redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "volery start did not stop on a broken file");
        assertEquals(2, p.exitValue(), "exit status for a configuration error; output:\n" + output);
        assertTrue(output.contains(cfg + ":7: tickTime: not a number: 'two seconds'"),
                "expected the file, line 7 and the key tickTime in:\n" + output);
    }

    /** ZooKeeper 3.9.5's zkCli (ZooKeeperMain) running one command, as {@code zkCli.sh -server S cmd args}. */
    private static String zkCli(String server, String... command) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(JAVA, "-Xmx128m", "-cp", CLASSPATH,
                "org.apache.zookeeper.ZooKeeperMain", "-server", server));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "zkCli " + String.join(" ", command) + " did not finish");
        return out;
    }

    /** The first of {@code n} consecutive free ports on 127.0.0.1. */
    private static String tail(java.nio.file.Path file) {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static int freePortRun(int n) {
        return io.eyrie.multicast.LoopbackPorts.freeRun(n);
    }
}
