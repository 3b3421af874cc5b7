package io.volery.server.clients;

import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.VoleryCluster;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * go-zookeeper ({@code github.com/go-zookeeper/zk} v1.0.4, unmodified, from the Go module proxy) against
 * Volery: the program in src/test/go/zkgo runs one scripted session against a real ZooKeeper 3.9.5 and
 * against a 2x3 Volery, and both transcripts must equal the one written here; then six go-zookeeper
 * connections run random reads, writes and version-checked writes on Volery while their TCP connections
 * are cut now and then, and Porcupine must find the history linearizable (its self-test shows that it
 * rejects histories that are not). The script's two top-level nodes, /gozk-one and /gozk-two, fall in
 * different partitions of Volery's 2-partition layout, so its multi spans both. The Go program is built into target/zkgo with go.mod and go.sum as
 * committed; a machine without a Go toolchain, or whose Go module proxy is out of reach, skips these
 * tests, saying which.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GoZkClientTest {
    private static final Path SOURCE = Path.of("src", "test", "go", "zkgo").toAbsolutePath();
    private static final Path OUT = Path.of("target", "zkgo").toAbsolutePath();
    private static final Path BINARY = OUT.resolve("zkgo");
    private static final Path VIZ = OUT.resolve("linearizability.html");

    /** What go-zookeeper sees in the session script, line for line, on ZooKeeper 3.9.5 and on Volery. */
    static final List<String> EXPECTED = List.of(
            "sessions distinct true",
            "create /gozk-one -> /gozk-one",
            "create /gozk-two -> /gozk-two",
            "create again /gozk-one: ErrNodeExists",
            "create without parent /gozk-one/x/y: ErrNoNode",
            "create with no ACL /gozk-one/noacl: ErrInvalidACL",
            "get /gozk-one = \"one\" version=0 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=none",
            "set /gozk-one@0 -> version=1 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=none",
            "set stale /gozk-one@0: ErrBadVersion",
            "set any /gozk-one@-1 -> version=2 cversion=0 aversion=0 dataLength=2 numChildren=0 ephemeralOwner=none",
            "get /gozk-one = \"un\" version=2 cversion=0 aversion=0 dataLength=2 numChildren=0 ephemeralOwner=none",
            "exists /gozk-one/missing: false",
            "get missing /gozk-one/missing: ErrNoNode",
            "set missing /gozk-one/missing@-1: ErrNoNode",
            "sequential /gozk-one/s- -> /gozk-one/s-0000000000",
            "sequential /gozk-one/s- -> /gozk-one/s-0000000001",
            "ephemeral /gozk-one/eph -> /gozk-one/eph",
            "exists /gozk-one/eph: true version=0 cversion=0 aversion=0 dataLength=4 numChildren=0 ephemeralOwner=c1",
            "child of ephemeral /gozk-one/eph/child: ErrNoChildrenForEphemerals",
            "ephemeral sequential /gozk-one/es- -> /gozk-one/es-0000000003",
            "exists /gozk-one/es-0000000003: true version=0 cversion=0 aversion=0 dataLength=0 numChildren=0 ephemeralOwner=c2",
            "children /gozk-one = [es-0000000003 s-0000000001 s-0000000000 eph] (in server order) version=2 cversion=4 aversion=0 dataLength=2 numChildren=4 ephemeralOwner=none",
            "delete non-empty /gozk-one@-1: ErrNotEmpty",
            "delete stale /gozk-one/s-0000000000@3: ErrBadVersion",
            "delete /gozk-one/s-0000000000@0: OK",
            "delete again /gozk-one/s-0000000000@-1: ErrNoNode",
            "sequential after delete /gozk-one/s- -> /gozk-one/s-0000000004",
            "children /gozk-one = [es-0000000003 s-0000000001 eph s-0000000004] (in server order) version=2 cversion=6 aversion=0 dataLength=2 numChildren=4 ephemeralOwner=none",
            "set watched /gozk-two@-1 -> version=1 cversion=0 aversion=0 dataLength=4 numChildren=0 ephemeralOwner=none",
            "c2 data watch: EventNodeDataChanged /gozk-two",
            "set own watched /gozk-one@-1 -> version=3 cversion=6 aversion=0 dataLength=3 numChildren=4 ephemeralOwner=none",
            "c1 data watch before its own set returned: EventNodeDataChanged /gozk-one",
            "create under watched /gozk-one/c -> /gozk-one/c",
            "c2 child watch: EventNodeChildrenChanged /gozk-one",
            "existsW /gozk-two/new: false",
            "create watched /gozk-two/new -> /gozk-two/new",
            "c2 exists watch: EventNodeCreated /gozk-two/new",
            "existsW /gozk-two/new: true",
            "delete watched /gozk-two/new@-1: OK",
            "c2 exists watch: EventNodeDeleted /gozk-two/new",
            "c2 data watch: EventNodeDeleted /gozk-two/new",
            "set parent of child-watched /gozk-two@-1 -> version=2 cversion=2 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=none",
            "c2 child watch after a data change: not yet",
            "create under watched /gozk-two/kid -> /gozk-two/kid",
            "c2 child watch: EventNodeChildrenChanged /gozk-two",
            "multi: err=OK results=[path=/gozk-one/m, stat(version=3 dataLength=1), OK, OK, path=/gozk-two/ms-0000000002]",
            "get /gozk-one/m = \"multi\" version=0 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none",
            "get /gozk-two = \"2\" version=3 cversion=5 aversion=0 dataLength=1 numChildren=1 ephemeralOwner=none",
            "failing multi: err=ErrBadVersion results=[OK, OK, ErrBadVersion, unknown error: -2]",
            "failing multi: err=ErrNodeExists results=[OK, ErrNodeExists, unknown error: -2]",
            "rolled back /gozk-one/m2: false",
            "rolled back /gozk-two/m3: false",
            "unchanged /gozk-two = \"2\" version=3 cversion=5 aversion=0 dataLength=1 numChildren=1 ephemeralOwner=none",
            "unchanged /gozk-one/m = \"multi\" version=0 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none",
            "create digest-only /gozk-two/secret -> /gozk-two/secret",
            "getACL /gozk-two/secret: OK [31:digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=] version=0 cversion=0 aversion=0 dataLength=6 numChildren=0 ephemeralOwner=none",
            "get with auth /gozk-two/secret = \"hidden\" version=0 cversion=0 aversion=0 dataLength=6 numChildren=0 ephemeralOwner=none",
            "get without auth /gozk-two/secret: ErrNoAuth",
            "set without auth /gozk-two/secret@-1: ErrNoAuth",
            "create below without auth /gozk-two/secret/kid: ErrNoAuth",
            "get with a wrong password /gozk-two/secret: ErrNoAuth",
            "getACL /gozk-two: OK [31:world:anyone] version=3 cversion=6 aversion=0 dataLength=1 numChildren=2 ephemeralOwner=none",
            "setACL stale: ErrBadVersion",
            "setACL: OK version=0 cversion=0 aversion=1 dataLength=6 numChildren=0 ephemeralOwner=none",
            "get after world read /gozk-two/secret = \"hidden\" version=0 cversion=0 aversion=1 dataLength=6 numChildren=0 ephemeralOwner=none",
            "set after world read /gozk-two/secret@-1: ErrNoAuth",
            "create auth ACL /gozk-one/authacl -> /gozk-one/authacl",
            "getACL /gozk-one/authacl: ErrNoAuth []",
            "set with auth ACL /gozk-one/authacl@-1 -> version=1 cversion=0 aversion=0 dataLength=1 numChildren=0 ephemeralOwner=none",
            "delete /gozk-one/authacl@-1: OK",
            "delete without auth (DELETE is the parent's) /gozk-two/secret@-1: OK",
            "sync /gozk-one: OK /gozk-one",
            "c3 ephemeral /gozk-one/c3eph -> /gozk-one/c3eph",
            "owner is c3: true",
            "c3 closed; c1 exists watch: EventNodeDeleted /gozk-one/c3eph",
            "after close /gozk-one/c3eph: false",
            "c4 ephemeral /gozk-one/c4eph -> /gozk-one/c4eph",
            "c4 cut off (session timeout 4 s)",
            "c1 exists watch: EventNodeDeleted /gozk-one/c4eph",
            "after expiry /gozk-one/c4eph: false",
            "c4 back; its watch: EventNotWatching /gozk-two err=ErrSessionExpired",
            "c4 heard StateExpired true, has a new session true",
            "c4 ephemeral again /gozk-one/c4eph -> /gozk-one/c4eph",
            "exists /gozk-one/c4eph: true version=0 cversion=0 aversion=0 dataLength=0 numChildren=0 ephemeralOwner=other",
            "create /gozk-one/rw -> /gozk-one/rw",
            "create /gozk-two/rstay -> /gozk-two/rstay",
            "c2 cut off",
            "set while c2 is away /gozk-one/rw@-1 -> version=1 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none",
            "create while c2 is away /gozk-one/rnew -> /gozk-one/rnew",
            "c2 reconnected, same session true",
            "c2 data watch: EventNodeDataChanged /gozk-one/rw",
            "c2 exists watch on a node then missing: EventNodeCreated /gozk-one/rnew",
            "c2 exists watch on a node that was there: EventNodeDataChanged /gozk-one/rw",
            "c2 child watch still armed: not yet",
            "get after reconnect /gozk-one/rw = \"after\" version=1 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none",
            "create under watched /gozk-two/rkid -> /gozk-two/rkid",
            "c2 child watch: EventNodeChildrenChanged /gozk-two",
            "set watched /gozk-two/rstay@-1 -> version=1 cversion=0 aversion=0 dataLength=7 numChildren=0 ephemeralOwner=none",
            "c2 data watch: EventNodeDataChanged /gozk-two/rstay",
            "lock nodes /gozk-two/locks/l = [_c_GUID-lock-0000000000 _c_GUID-lock-0000000001] (sorted) version=0 cversion=2 aversion=0 dataLength=0 numChildren=2 ephemeralOwner=none",
            "lock order: c1 locked, c1 unlocking, c2 locked",
            "lock nodes /gozk-two/locks/l = [_c_GUID-lock-0000000001] (sorted) version=0 cversion=3 aversion=0 dataLength=0 numChildren=1 ephemeralOwner=none",
            "lock nodes /gozk-two/locks/l = [] (in server order) version=0 cversion=4 aversion=0 dataLength=0 numChildren=0 ephemeralOwner=none",
            "unlock twice: zk: not locked",
            "protected ephemeral sequential: OK /gozk-one/_c_GUID-p-0000000013",
            "exists /gozk-one/_c_GUID-p-0000000013: true version=0 cversion=0 aversion=0 dataLength=9 numChildren=0 ephemeralOwner=c2",
            "container /gozk-two/ctr -> /gozk-two/ctr",
            "createContainer: OK /gozk-two/ctr2",
            "in container /gozk-two/ctr2/x -> /gozk-two/ctr2/x",
            "container /gozk-two/ctr2: true version=0 cversion=1 aversion=0 dataLength=0 numChildren=1 ephemeralOwner=none",
            "FLWSrvr on every server: ok=false unable to parse fields from zookeeper response (no regex matches)",
            "children /gozk-one = [_c_GUID-p-0000000013 c eph es-0000000003 m rnew rw s-0000000001 s-0000000004] (sorted) version=3 cversion=19 aversion=0 dataLength=3 numChildren=9 ephemeralOwner=none",
            "children /gozk-two = [ctr rkid ms-0000000002 locks rstay ctr2] (in server order) version=3 cversion=12 aversion=0 dataLength=1 numChildren=6 ephemeralOwner=none",
            "after cleanup /gozk-one: false",
            "after cleanup /gozk-two: false",
            "done");

    /** Why the Go program could not be built for want of a toolchain or of the network; null once built. */
    private static String unavailable;

    @BeforeAll
    static void buildGoProgram() throws Exception {
        String go = findGo();
        if (go == null) {
            unavailable = "go-zookeeper test skipped: no Go toolchain (go on PATH, /usr/local/go/bin/go or "
                    + "/usr/lib/go/bin/go; install golang-go)";
            return;
        }
        Files.createDirectories(OUT);
        Outcome download = go(go, List.of("mod", "download"), 240);
        if (download.exit() != 0 && unreachable(download.output())) {
            unavailable = "go-zookeeper test skipped: the Go module proxy is unreachable, so "
                    + "github.com/go-zookeeper/zk and porcupine cannot be fetched: " + download.output();
            return;
        }
        assertEquals(0, download.exit(), "go mod download failed (not for want of the network):\n" + download.output());
        Outcome build = go(go, List.of("build", "-o", BINARY.toString(), "."), 240);
        assertEquals(0, build.exit(), "the zkgo program does not build:\n" + build.output());
    }

    /** Each test, not the class, is skipped, so that the reason shows in the test report. */
    private static void requireGoProgram() {
        assumeTrue(unavailable == null, unavailable);
    }

    @Test
    void scriptedSessionMatchesZooKeeper(@TempDir Path zkDir) throws Exception {
        requireGoProgram();
        Outcome onZooKeeper;
        EmbeddedZooKeeper zookeeper = new EmbeddedZooKeeper(zkDir);
        try {
            // it starts in the background: a client that connects shows it is listening
            Clients.zooKeeper(zookeeper.connectString(), 10_000, null).close();
            onZooKeeper = run(List.of(BINARY.toString(), "session", zookeeper.connectString()), 90);
        } finally {
            zookeeper.stop();
        }
        assertEquals(0, onZooKeeper.exit(), "the session against ZooKeeper 3.9.5 failed:\n" + onZooKeeper.output());

        Outcome onVolery;
        try (VoleryCluster cluster = new VoleryCluster(2, 3, 0, 500)) {
            onVolery = run(List.of(BINARY.toString(), "session", cluster.connectString()), 90);
        }
        assertEquals(0, onVolery.exit(), "the session against Volery failed:\n" + onVolery.output());

        List<String> zk = onZooKeeper.stdout().lines().toList();
        List<String> volery = onVolery.stdout().lines().toList();
        assertEquals(EXPECTED, zk, "ZooKeeper 3.9.5's transcript is not the expected one:\n" + onZooKeeper.output());
        assertEquals(zk, volery, "Volery's transcript differs from ZooKeeper's:\n" + onVolery.output());
    }

    @Test
    void concurrentHistoryOnVoleryIsLinearizable() throws Exception {
        requireGoProgram();
        Outcome o;
        try (VoleryCluster cluster = new VoleryCluster(2, 3, 0, 500)) {
            // six connections for 8 s; a nemesis cuts one client's TCP connection every 100-400 ms, so
            // sessions move between Volery's six nodes and some operations end with their outcome unknown
            o = run(List.of(BINARY.toString(), "linearizability", cluster.connectString(), "8", "6", "cut"), null,
                    Map.of("ZKGO_VIZ", VIZ.toString()), 150);
        }
        System.out.println("go-zookeeper linearizability run on Volery:\n" + o.output());
        Matcher counts = Pattern.compile("ops ok=(\\d+) \\(reads=(\\d+) writes=(\\d+) cas-ok=(\\d+) "
                + "cas-badversion=(\\d+)\\) failed=(\\d+) indeterminate=(\\d+) connection-cuts=(\\d+)")
                .matcher(o.stdout());
        assertTrue(counts.find(), "no operation counts in the output:\n" + o.output());
        assertEquals(0, o.exit(), "Porcupine's verdict (its picture of the history: " + VIZ + "):\n" + o.output());
        assertTrue(o.stdout().lines().anyMatch(l -> l.matches("linearizable ops=\\d+ keys=4")),
                "no linearizable verdict:\n" + o.output());
        int ok = Integer.parseInt(counts.group(1));
        int reads = Integer.parseInt(counts.group(2));
        int writes = Integer.parseInt(counts.group(3));
        int casOk = Integer.parseInt(counts.group(4));
        int casFailed = Integer.parseInt(counts.group(5));
        int failed = Integer.parseInt(counts.group(6));
        int cuts = Integer.parseInt(counts.group(8));
        assertTrue(ok > 200 && reads > 50 && writes > 20 && casOk > 20,
                "too few operations completed to mean much:\n" + o.output());
        // six clients on four registers: some version checks must lose a race
        assertTrue(casFailed > 0, "no version-checked write ever lost a race:\n" + o.output());
        assertTrue(cuts > 0, "the nemesis cut no connection:\n" + o.output());
        // connection loss is "indeterminate", BadVersion of a CAS is an outcome: nothing else may fail
        assertEquals(0, failed, "operations failed with errors that no healthy cluster gives:\n" + o.output());
    }

    @Test
    void checkerRejectsHistoriesThatAreNotLinearizable() throws Exception {
        requireGoProgram();
        Outcome o = run(List.of(BINARY.toString(), "selftest"), 60);
        assertEquals(0, o.exit(), "the checker's self-test:\n" + o.output());
        assertEquals(List.of(
                "selftest concurrent writes and reads: linearizable: ok",
                "selftest a read of a value never written: NOT linearizable: ok",
                "selftest a stale read after a completed write: NOT linearizable: ok",
                "selftest two successful cas from one version: NOT linearizable: ok",
                "selftest a lost write seen later: linearizable: ok",
                "selftest a lost write seen before it was sent: NOT linearizable: ok",
                "selftest passed"), o.stdout().lines().toList(), o.output());
    }

    /** go on the PATH, else where Go's tarball or Debian's golang-go put it; null if none. */
    static String findGo() {
        String path = System.getenv("PATH");
        List<String> candidates = new ArrayList<>();
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                candidates.add(Path.of(dir, "go").toString());
            }
        }
        candidates.add("/usr/local/go/bin/go");
        candidates.add("/usr/lib/go/bin/go");
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c)) && !Files.isDirectory(Path.of(c))) {
                return c;
            }
        }
        return null;
    }

    /** The build as jepsen/checker/build.sh does it: go.mod and go.sum as committed, modules fetched as needed. */
    private static Outcome go(String go, List<String> args, int timeoutSeconds) throws InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(go);
        command.addAll(args);
        Map<String, String> env = new HashMap<>();
        env.put("GOFLAGS", "-mod=mod");
        if (System.getenv("HOME") == null && System.getenv("GOPATH") == null) {
            env.put("GOPATH", OUT.resolve("gopath").toString());
        }
        if (System.getenv("HOME") == null && System.getenv("GOCACHE") == null
                && System.getenv("XDG_CACHE_HOME") == null) {
            env.put("GOCACHE", OUT.resolve("gocache").toString());
        }
        return run(command, SOURCE, env, timeoutSeconds);
    }

    /** True when a failed download reads as the network's fault rather than the module's. */
    static boolean unreachable(String output) {
        String o = output.toLowerCase(java.util.Locale.ROOT);
        if (o.contains("checksum mismatch") || o.contains("security error")) {
            return false;
        }
        return o.contains("dial tcp") || o.contains("no such host") || o.contains("i/o timeout")
                || o.contains("connection refused") || o.contains("network is unreachable")
                || o.contains("tls handshake timeout") || o.contains("connection reset")
                || o.contains("timed out after") || o.contains("proxyconnect") || o.contains("503 service");
    }
}
