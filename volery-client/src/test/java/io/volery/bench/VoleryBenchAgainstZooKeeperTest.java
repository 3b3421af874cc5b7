package io.volery.bench;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * volery-bench driving a real ZooKeeper 3.9.5 server in this JVM: each workload runs for three
 * seconds (one of warm-up) through the command line and its JSON report is read back.
 */
class VoleryBenchAgainstZooKeeperTest {

    @TempDir
    static Path dir;
    static InProcessZooKeeper zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new InProcessZooKeeper(dir.resolve("zk-data"));
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    /** The outcome of one command-line run: exit code, what it printed on stderr, and the parsed report. */
    record Run(int exitCode, String stderr, Map<String, Object> report) {
    }

    @SuppressWarnings("unchecked")
    static Run bench(String... options) throws Exception {
        Path out = Files.createTempFile(dir, "report-", ".json");
        List<String> args = new ArrayList<>(List.of("--connect", zookeeper.connectString(), "--clients", "2",
                "--warmup", "1", "--duration", "2", "--out", out.toString()));
        args.addAll(List.of(options));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        CommandLine cli = new CommandLine(new VoleryBench(errStream));
        cli.setErr(new java.io.PrintWriter(errStream, true));
        cli.setOverwrittenOptionsAllowed(true); // a test's options may replace the defaults above (--clients)
        int code = cli.execute(args.toArray(String[]::new));
        String stderr = err.toString(StandardCharsets.UTF_8);
        String json = Files.readString(out);
        Map<String, Object> report = json.isEmpty() ? null : (Map<String, Object>) MiniJson.parse(json);
        return new Run(code, stderr, report);
    }

    static long count(Map<String, Object> report, String operation) {
        return (long) MiniJson.number(MiniJson.object(MiniJson.object(report, "byOperation"), operation), "count");
    }

    static void assertPercentilesOrdered(Map<String, Object> latency, String what) {
        double min = MiniJson.number(latency, "min");
        double p50 = MiniJson.number(latency, "p50");
        double p90 = MiniJson.number(latency, "p90");
        double p99 = MiniJson.number(latency, "p99");
        double p999 = MiniJson.number(latency, "p999");
        double max = MiniJson.number(latency, "max");
        assertTrue(min <= p50 && p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= max,
                what + ": expected min <= p50 <= p90 <= p99 <= p99.9 <= max, got " + latency);
        assertTrue(p50 > 0, what + ": a round trip to a server takes more than 0 µs, got p50 " + p50);
    }

    /** The checks every successful run must pass, whatever the workload. */
    static void assertSoundReport(Run run, String workload) {
        assertEquals(0, run.exitCode(), "exit code; stderr was:\n" + run.stderr());
        Map<String, Object> r = run.report();
        double ops = MiniJson.number(r, "operations");
        double measured = MiniJson.number(r, "measuredSeconds");
        assertAll(
                () -> assertEquals(workload, MiniJson.object(r, "config").get("workload"), "workload echoed in config"),
                () -> assertTrue(ops > 0, "expected completed operations, got " + ops),
                () -> assertTrue(measured > 1.5 && measured < 3.0,
                        "measured window should be the 2 s after the 1 s warm-up, got " + measured),
                () -> assertEquals(ops / measured, MiniJson.number(r, "throughputOpsPerSec"), Math.max(1.0, ops / measured * 0.01),
                        "throughput = operations / measured seconds"),
                () -> assertEquals(ops, MiniJson.number(MiniJson.object(r, "latencyMicros"), "count"),
                        "latency histogram holds every measured operation"),
                () -> assertPercentilesOrdered(MiniJson.object(r, "latencyMicros"), "latencyMicros"),
                () -> assertEquals(3, MiniJson.array(r, "timeline").size(), "one timeline point per second (1 + 2)"),
                () -> assertTrue(MiniJson.number(MiniJson.object(r, "cpu"), "processCpuSeconds") > 0,
                        "the load generator's own CPU time is measured"),
                () -> assertEquals(Boolean.TRUE, r.get("drained"), "every request in flight completed before closing"),
                () -> assertTrue(run.stderr().contains("measure") && run.stderr().contains("ops/s"),
                        "a progress line per second on stderr, got:\n" + run.stderr()),
                () -> assertTrue(!MiniJson.array(r, "latencyCdf").isEmpty(), "a latency CDF is present"));
    }

    /** picocli's usage-error exit code, and a message on stderr that mentions {@code text}. */
    static void assertUsageErrorMentioning(Run run, String text) {
        assertEquals(2, run.exitCode(), "picocli's usage-error exit code");
        assertTrue(run.stderr().contains(text), "message should mention " + text + ", got:\n" + run.stderr());
    }

    static void assertNoErrors(Map<String, Object> report) {
        assertAll(
                () -> assertEquals(Map.of(), MiniJson.object(report, "errors"), "errors in the measured window"),
                () -> assertEquals(Map.of(), MiniJson.object(report, "warmupErrors"), "errors in the warm-up"));
    }

    @Test
    void setDataWorkloadWritesExistingZnodesWithoutErrors() throws Exception {
        Run run = bench("--workload", "setdata", "--bytes", "1000", "--znodes", "200");
        assertSoundReport(run, "setdata");
        assertNoErrors(run.report());
        assertEquals(MiniJson.number(run.report(), "operations"), count(run.report(), "setData"),
                "a setdata run issues only setData");
    }

    @Test
    void getDataWorkloadReadsWithoutErrors() throws Exception {
        Run run = bench("--workload", "getdata", "--znodes", "200");
        assertSoundReport(run, "getdata");
        assertNoErrors(run.report());
        assertEquals(MiniJson.number(run.report(), "operations"), count(run.report(), "getData"),
                "a getdata run issues only getData");
    }

    @Test
    void mixedRead90IsNinetyPercentGetData() throws Exception {
        Run run = bench("--workload", "mixed-read90", "--znodes", "200");
        assertSoundReport(run, "mixed-read90");
        assertNoErrors(run.report());
        double reads = count(run.report(), "getData");
        double writes = count(run.report(), "setData");
        double share = reads / (reads + writes);
        assertTrue(share > 0.85 && share < 0.95, "expected about 90% getData, got " + share
                + " (" + reads + " reads, " + writes + " writes)");
    }

    @Test
    void createDeletePairsAreTheAskedShareAndAllSucceed() throws Exception {
        Run run = bench("--workload", "createdelete", "--global-percent", "10", "--subtrees", "4", "--znodes", "200");
        assertSoundReport(run, "createdelete");
        assertNoErrors(run.report());
        long creates = count(run.report(), "create");
        long deletes = count(run.report(), "delete");
        long sets = count(run.report(), "setData");
        assertTrue(creates > 0 && deletes > 0, "expected creates and deletes, got " + creates + " and " + deletes);
        // A pair's halves can fall on either side of the window's edges: at most one window per client apart.
        assertTrue(Math.abs(creates - deletes) <= 2 * 25, "creates and deletes come in pairs, got " + creates + " vs " + deletes);
        double share = (double) (creates + deletes) / (creates + deletes + sets);
        assertTrue(share > 0.06 && share < 0.14, "expected about 10% create/delete, got " + share);
    }

    @Test
    void znodesAreSpreadOverTheTopLevelSubtreesWithTheAskedPayload() throws Exception {
        Run run = bench("--workload", "getdata", "--subtrees", "3", "--znodes", "30", "--bytes", "321", "--quiet");
        assertEquals(0, run.exitCode(), "exit code; stderr was:\n" + run.stderr());
        ZooKeeper zk = BenchClient.connectSession(BenchConfig.defaults(zookeeper.connectString(), Workload.GETDATA));
        try {
            for (int j = 0; j < 30; j++) {
                String path = "/bench-" + (j % 3) + "/n-" + j;
                Stat stat = zk.exists(path, false);
                assertTrue(stat != null, "znode " + j + " belongs in subtree " + (j % 3) + " at " + path + ", which is missing");
                assertEquals(321, stat.getDataLength(), "payload bytes of " + path);
            }
        } finally {
            zk.close();
        }
    }

    @Test
    void withClientPerSubtreeEachClientWritesOnlyItsOwnSubtree() throws Exception {
        // 2 clients over 4 subtrees: clients 0 and 1 keep to /bench-0 and /bench-1; nobody writes the others
        // (beyond the one overwrite of the populating step)
        int znodes = 96;
        ZooKeeper zk = BenchClient.connectSession(BenchConfig.defaults(zookeeper.connectString(), Workload.SETDATA));
        try {
            int[] before = versions(zk, znodes, 4);
            Run run = bench("--workload", "setdata", "--subtrees", "4", "--znodes", String.valueOf(znodes),
                    "--client-per-subtree", "--quiet");
            assertEquals(0, run.exitCode(), "exit code; stderr was:\n" + run.stderr());
            assertEquals(Boolean.TRUE, MiniJson.object(run.report(), "config").get("clientPerSubtree"),
                    "the report records the option");
            int[] after = versions(zk, znodes, 4);
            long writtenInOwn = 0;
            for (int j = 0; j < znodes; j++) {
                int delta = after[j] - Math.max(before[j], -1);
                if (j % 4 >= 2) {
                    assertTrue(delta <= 1, "/bench-" + (j % 4) + "/n-" + j + " belongs to no client but got "
                            + delta + " writes");
                } else if (delta > 1) {
                    writtenInOwn++;
                }
            }
            assertTrue(writtenInOwn > 0, "the clients wrote their own subtrees");
        } finally {
            zk.close();
        }
    }

    /** The data version of every znode of a layout, -1 where it does not exist yet. */
    private static int[] versions(ZooKeeper zk, int znodes, int subtrees) throws Exception {
        int[] v = new int[znodes];
        for (int j = 0; j < znodes; j++) {
            Stat s = zk.exists("/bench-" + (j % subtrees) + "/n-" + j, false);
            v[j] = s == null ? -1 : s.getVersion();
        }
        return v;
    }

    @Test
    void aPacedRunStartsRequestsOnItsScheduleNotAsFastAsTheServerAnswers() throws Exception {
        // 2 clients at 50 requests a second together: 25 each, one every 80 ms. Closed-loop, the same two
        // clients do thousands a second against this server; paced, the measured 2 s hold about 100.
        Run run = bench("--workload", "setdata", "--znodes", "50", "--rate", "50");
        assertSoundReport(run, "setdata");
        assertNoErrors(run.report());
        Map<String, Object> r = run.report();
        double ops = MiniJson.number(r, "operations");
        double measured = MiniJson.number(r, "measuredSeconds");
        assertEquals(50.0, MiniJson.number(MiniJson.object(r, "config"), "rate"), "the rate is echoed in the config");
        // one schedule slot per client may fall on either side of a second's edge
        assertTrue(ops <= 50 * measured + 2 * 2,
                "a paced run starts at most rate x seconds requests, got " + ops + " in " + measured + " s");
        assertTrue(run.stderr().contains("paced at 50/s"), "the summary line names the pace, got:\n" + run.stderr());
    }

    @Test
    void aPacedRunCountsTheTimeARequestWaitedBehindAFullWindow() throws Exception {
        // One client, one request in flight, asked for 100,000 requests a second: no server answers one
        // round trip every 10 us, so the schedule runs ahead and each request waits for the window longer
        // than the last. Its latency counts from its scheduled start, so the measured latencies hold that
        // growing wait (hundreds of milliseconds by the measured window); counted from when each request
        // left, they would be the server's round trip.
        Run run = bench("--workload", "setdata", "--znodes", "10", "--clients", "1", "--outstanding", "1",
                "--rate", "100000");
        assertSoundReport(run, "setdata");
        Map<String, Object> latency = MiniJson.object(run.report(), "latencyMicros");
        double ops = MiniJson.number(run.report(), "operations");
        double measured = MiniJson.number(run.report(), "measuredSeconds");
        assertTrue(ops < 100_000 * measured / 2, "the server could not keep up with the schedule, got " + ops + " ops");
        assertTrue(MiniJson.number(latency, "p50") > 100_000,
                "a request that waited behind the schedule counts that wait: p50 should be over 100 ms, got " + latency);
    }

    @Test
    void aNegativeRateIsAUsageErrorNamingTheOption() throws Exception {
        assertUsageErrorMentioning(bench("--workload", "setdata", "--rate", "-5"), "--rate");
    }

    @Test
    void clientsOfAPacedRunShareTheRateAndStartSpreadOverOneInterval() {
        BenchConfig config = BenchConfig.defaults("127.0.0.1:2181", Workload.SETDATA).withClients(4).withRate(2000);
        assertEquals(2_000_000L, config.clientIntervalNanos(), "4 clients at 2000/s together: one each every 2 ms");
        assertEquals(0L, config.withRate(0).clientIntervalNanos(), "rate 0 is the closed loop");
        assertEquals(List.of(0L, 500_000L, 1_000_000L, 1_500_000L),
                List.of(BenchClient.firstOffsetNanos(2_000_000L, 0, 4), BenchClient.firstOffsetNanos(2_000_000L, 1, 4),
                        BenchClient.firstOffsetNanos(2_000_000L, 2, 4), BenchClient.firstOffsetNanos(2_000_000L, 3, 4)),
                "client i starts i/4 of an interval in");
    }

    @Test
    void theUsageMessageRendersEveryOptionWithoutFormatErrors() {
        // picocli formats descriptions (a lone '%' breaks them, and it then warns on stderr and prints raw text)
        PrintStream realErr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        String usage;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            usage = new CommandLine(new VoleryBench()).getUsageMessage();
        } finally {
            System.setErr(realErr);
        }
        String warnings = captured.toString(StandardCharsets.UTF_8);
        assertTrue(warnings.isEmpty(), "picocli warned while rendering the usage message:\n" + warnings);
        assertTrue(usage.contains("--rate") && usage.contains("75 % of it"), "the --rate option is described, got:\n" + usage);
    }

    @Test
    void globalPercentWithALocalWorkloadIsAUsageErrorNamingTheOption() throws Exception {
        assertUsageErrorMentioning(bench("--workload", "setdata", "--global-percent", "5"), "--global-percent");
    }

    @Test
    void unknownWorkloadIsAUsageErrorListingTheValidOnes() throws Exception {
        assertUsageErrorMentioning(bench("--workload", "writes"), "mixed-read90"); // the list of workloads
    }

    @Test
    void anUnreachableEndpointFailsWithAClearMessage() throws Exception {
        int closedPort = io.eyrie.multicast.LoopbackPorts.free();
        BenchConfig config = BenchConfig.defaults("127.0.0.1:" + closedPort, Workload.SETDATA)
                .withProgress(false);
        config = new BenchConfig(config.connect(), 1, 25, Duration.ofSeconds(1), Duration.ZERO, Workload.SETDATA, 0,
                100, 10, 1, 1, Duration.ofSeconds(1), false);
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                new LoadGenerator(config, System.err)::run);
        assertTrue(e.getMessage().contains("could not connect") && e.getMessage().contains(config.connect()),
                "message should say the endpoint could not be reached and name it, got: " + e.getMessage());
    }
}
