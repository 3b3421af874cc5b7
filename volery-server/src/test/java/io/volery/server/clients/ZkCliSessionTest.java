package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * ZooKeeper 3.9.5's own shell, {@code org.apache.zookeeper.ZooKeeperMain}, in a child JVM reading
 * a script on stdin, against a 2x3 Volery. Its stdout is what a person at zkCli would read.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZkCliSessionTest {

    @Test
    void scriptedZkCliSessionPrintsWhatZooKeeperWould() throws Exception {
        String script = String.join("\n",
                "create /cli hello",
                "create /cli/a alpha",
                "create -s /cli/s- seq",
                "create -e /cli/eph ephemeral",
                "create /cli hello",
                "get /cli",
                "set /cli world",
                "get /cli",
                "ls /cli",
                "stat /cli",
                "get /cli/missing",
                "delete /cli/a",
                "ls /cli",
                "create /cli2 other",
                "create /cli2/x/y z",
                "deleteall /cli",
                "ls /cli",
                "get /cli2",
                "quit",
                "");
        try (VoleryCluster cluster = new VoleryCluster(2, 3, 0, 500)) {
            Result r = zkCli(cluster.connectString(), script, 90);
            assertEquals(0, r.exit, "zkCli exit status\n" + r.describe());

            // zkCli prints results on stdout and "Created ..." and errors on stderr; the transcript
            // interleaves both as a person at the terminal would see them.
            List<String> expected = List.of(
                    "Created /cli",
                    "Created /cli/a",
                    "Created /cli/s-0000000001",
                    "Created /cli/eph",
                    "Node already exists: /cli",
                    "hello",
                    "world",
                    "[a, eph, s-0000000001]",
                    "cversion = 3",
                    "dataVersion = 1",
                    "aclVersion = 0",
                    "ephemeralOwner = 0x0",
                    "dataLength = 5",
                    "numChildren = 3",
                    "Node does not exist: /cli/missing",
                    "[eph, s-0000000001]",
                    "Created /cli2",
                    "Node does not exist: /cli2/x/y",
                    "Node does not exist: /cli",
                    "other");
            assertSubsequence(expected, r.stdout.lines().map(String::strip).toList(), r);

            // after the shell quit: what it left behind, seen by another client
            ZooKeeper zk = Clients.zooKeeper(cluster.connectString(), 10_000, null);
            try {
                assertNull(zk.exists("/cli", false), "deleteall left /cli");
                assertEquals("other", new String(zk.getData("/cli2", false, null), StandardCharsets.UTF_8));
            } finally {
                zk.close();
            }
        }
    }

    private static void assertSubsequence(List<String> expected, List<String> actual, Result r) {
        int at = 0;
        for (String line : actual) {
            if (at < expected.size() && line.equals(expected.get(at))) {
                at++;
            }
        }
        if (at < expected.size()) {
            fail("zkCli's stdout lacks, in order, the line \"" + expected.get(at) + "\" (after "
                    + expected.subList(0, at) + ")\n" + r.describe());
        }
    }

    /** {@code stdout} holds stderr too, merged as on a terminal. */
    record Result(int exit, String stdout) {
        String describe() {
            return "--- zkCli transcript\n" + stdout;
        }
    }

    /** ZooKeeperMain in a fresh JVM on this test's class path, {@code script} on its stdin. */
    static Result zkCli(String connect, String script, int timeoutSeconds) throws Exception {
        return zkCli(connect, script, timeoutSeconds, List.of());
    }

    /** The same with more JVM options ({@code -Dkey=value}: a JAAS file, a Kerberos configuration...). */
    static Result zkCli(String connect, String script, int timeoutSeconds, List<String> jvmOptions) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(jvmOptions);
        command.addAll(List.of("org.apache.zookeeper.ZooKeeperMain", "-server", connect));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        StringBuilder out = new StringBuilder();
        Thread o = drain(p.getInputStream(), out);
        try (OutputStream stdin = p.getOutputStream()) {
            stdin.write(script.getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            o.join(5000);
            fail("zkCli did not finish within " + timeoutSeconds + " s\n" + new Result(-1, out.toString()).describe());
        }
        o.join(5000);
        return new Result(p.exitValue(), out.toString());
    }

    private static Thread drain(java.io.InputStream in, StringBuilder into) {
        Thread t = new Thread(() -> {
            try {
                into.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException x) {
                into.append("(output lost: ").append(x).append(')');
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }
}
