package io.volery.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --connect "A|B"}: two real ZooKeeper 3.9.5 servers as independent ensembles. Each gets the whole
 * layout; each client works only in the ensemble its subtree maps to.
 */
class ShardedEnsemblesTest {

    @TempDir
    static Path dir;
    static InProcessZooKeeper a;
    static InProcessZooKeeper b;

    @BeforeAll
    static void start() throws Exception {
        a = new InProcessZooKeeper(dir.resolve("a"));
        b = new InProcessZooKeeper(dir.resolve("b"));
    }

    @AfterAll
    static void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private record Run(int exitCode, String stderr) {
    }

    private static Run bench(String... args) throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        CommandLine cli = new CommandLine(new VoleryBench(errStream));
        cli.setErr(new java.io.PrintWriter(errStream, true));
        int code = cli.execute(args);
        return new Run(code, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void eachEnsembleHoldsTheLayoutAndServesOnlyTheClientsOfItsSubtrees() throws Exception {
        int znodes = 40;
        Path out = Files.createTempFile(dir, "report-", ".json");
        // 4 clients on 4 subtrees: subtrees 0 and 2 map to ensemble a, 1 and 3 to b
        Run run = bench("--connect", a.connectString() + "|" + b.connectString(), "--clients", "4",
                "--subtrees", "4", "--znodes", String.valueOf(znodes), "--client-per-subtree",
                "--workload", "createdelete", "--global-percent", "20", "--warmup", "0", "--duration", "2",
                "--quiet", "--out", out.toString());
        assertEquals(0, run.exitCode(), "exit code; stderr was:\n" + run.stderr());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(out));
        assertTrue(MiniJson.number(report, "operations") > 0, "the run completed requests: " + report);
        assertEquals(Map.of(), MiniJson.object(report, "errors"), "no request failed");
        int[] writtenOwn = new int[2];
        for (int e = 0; e < 2; e++) {
            InProcessZooKeeper server = e == 0 ? a : b;
            ZooKeeper zk = BenchClient.connectSession(BenchConfig.defaults(server.connectString(), Workload.SETDATA));
            try {
                for (int j = 0; j < znodes; j++) {
                    String path = "/bench-" + (j % 4) + "/n-" + j;
                    Stat s = zk.exists(path, false);
                    assertTrue(s != null, path + " was populated in ensemble " + e);
                    boolean mine = (j % 4) % 2 == e;
                    if (!mine) {
                        assertEquals(0, s.getVersion(), path + " belongs to the other ensemble but was written in " + e);
                    } else if (s.getVersion() > 0) {
                        writtenOwn[e]++;
                    }
                }
                // the pairs were created (and deleted) where their clients work: the root's cversion moved in both
                assertTrue(zk.exists("/", false).getCversion() > 4, "ensemble " + e + " ran create/delete pairs");
            } finally {
                zk.close();
            }
        }
        // and each ensemble's own subtrees were written
        assertTrue(writtenOwn[0] > 0 && writtenOwn[1] > 0,
                "both ensembles served setData: " + writtenOwn[0] + ", " + writtenOwn[1]);
    }

    @Test
    void anEmptyEnsembleIsAUsageErrorNamingConnect() throws Exception {
        Run run = bench("--connect", a.connectString() + "|", "--clients", "1", "--duration", "1", "--warmup", "0");
        assertEquals(2, run.exitCode(), "picocli's usage-error exit code; stderr:\n" + run.stderr());
        assertTrue(run.stderr().contains("--connect") && run.stderr().contains("empty ensemble"),
                "message should name --connect and the empty ensemble, got:\n" + run.stderr());
    }
}
