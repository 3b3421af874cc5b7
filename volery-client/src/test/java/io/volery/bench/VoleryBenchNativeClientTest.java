package io.volery.bench;

import io.volery.client.ClusterWithClientNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * volery-bench with {@code --client native}: Volery's native client drives a 2 × 3 cluster in this JVM
 * through a client node of the cluster file, and the report has the same shape as with the ZooKeeper client.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class VoleryBenchNativeClientTest {

    @TempDir
    static Path dir;
    static ClusterWithClientNodes cluster;
    static Path clusterFile;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = new ClusterWithClientNodes(2, 3, 1, 2000);
        clusterFile = dir.resolve("volery-cluster.properties");
        Files.writeString(clusterFile, cluster.clusterFileText());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    record Run(int exitCode, String stderr, Map<String, Object> report) {
    }

    @SuppressWarnings("unchecked")
    static Run bench(String... options) throws Exception {
        Path out = Files.createTempFile(dir, "report-", ".json");
        List<String> args = new ArrayList<>(List.of("--clients", "2", "--warmup", "1", "--duration", "2",
                "--out", out.toString(), "--quiet"));
        args.addAll(List.of(options));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        CommandLine cli = new CommandLine(new VoleryBench(errStream));
        cli.setErr(new java.io.PrintWriter(errStream, true));
        int code = cli.execute(args.toArray(String[]::new));
        String json = Files.readString(out);
        return new Run(code, err.toString(StandardCharsets.UTF_8),
                json.isEmpty() ? null : (Map<String, Object>) MiniJson.parse(json));
    }

    @Test
    void createDeleteAndSetDataRunThroughTheNativeClient() throws Exception {
        Run run = bench("--client", "native", "--cluster-file", clusterFile.toString(), "--workload", "createdelete",
                "--global-percent", "20", "--subtrees", "2", "--znodes", "20");
        assertEquals(0, run.exitCode(), "exit code; stderr was:\n" + run.stderr());
        Map<String, Object> config = MiniJson.object(run.report(), "config");
        assertEquals("native", config.get("client"), "the report names the client: " + config);
        assertEquals(clusterFile.toString(), config.get("connect"));
        long creates = VoleryBenchAgainstZooKeeperTest.count(run.report(), "create");
        long deletes = VoleryBenchAgainstZooKeeperTest.count(run.report(), "delete");
        long sets = VoleryBenchAgainstZooKeeperTest.count(run.report(), "setData");
        assertTrue(creates > 0 && deletes > 0 && sets > 0,
                "expected creates, deletes and setData, got " + creates + ", " + deletes + ", " + sets);
        assertTrue(MiniJson.object(run.report(), "errors").isEmpty(), "no errors expected: " + run.report().get("errors"));
        VoleryBenchAgainstZooKeeperTest.assertPercentilesOrdered(MiniJson.object(run.report(), "latencyMicros"), "all");
    }

    @Test
    void theNativeClientNeedsAClusterFileAndSaysSo() throws Exception {
        Run run = bench("--client", "native", "--workload", "setdata");
        assertEquals(2, run.exitCode(), "picocli's usage-error exit code");
        assertTrue(run.stderr().contains("--cluster-file"), "message should name --cluster-file, got:\n" + run.stderr());
    }
}
