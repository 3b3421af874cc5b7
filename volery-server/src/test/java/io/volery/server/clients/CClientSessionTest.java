package io.volery.server.clients;

import io.volery.server.clients.ExternalProcess.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The ZooKeeper C client (Debian's libzookeeper_mt 3.8.0, and its shell {@code cli_mt} from
 * zookeeper-bin) against a real ZooKeeper 3.9.5 and against a 2x3 Volery: both must answer alike,
 * and as written here. The scripted session (src/test/resources/clients/zk_c_session.c) is compiled
 * with gcc into target/c-client, where both transcripts are left; a machine without gcc or the C
 * client's headers and library (Debian: gcc, libzookeeper-mt-dev) skips that test, and one without
 * cli_mt (Debian: zookeeper-bin) the other, saying which is missing.
 *
 * <p>The session covers creates of every mode (container and TTL too) and their errors, versioned
 * reads and writes, children, data/exists/child watches firing and removed, a second session seeing
 * the first one's ephemerals go when it closes, a chroot, multi across the two partitions (committed,
 * rolled back with per-operation results), digest and ip ACLs, a failed auth, pings over an idle
 * spell, pipelined asynchronous requests, sync, and a request one byte over jute.maxbuffer (the
 * connection drops, the session and its watch live on).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CClientSessionTest extends VoleryBesideZooKeeper {
    private static final Path WORK = Path.of("target", "c-client").toAbsolutePath();
    private static final Path PROGRAM = WORK.resolve("zk_c_session");
    private static final List<Path> CLI_MT = List.of(Path.of("/usr/bin/cli_mt"),
            Path.of("/usr/lib/zookeeper/bin/cli_mt"));


    /** What the C client prints for the scripted session, on real ZooKeeper 3.9.5 as on Volery. */
    static final List<String> EXPECTED_SESSION = List.of(
            "session A connected, timeout 10000 ms",
            "create persistent /c: ZOK (ok) /c",
            "create2 persistent /c/a: ZOK (ok) /c/a version=0 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "create existing /c: ZNODEEXISTS (node exists)",
            "create orphan /c/missing/x: ZNONODE (no node)",
            "create sequential /c/s-: ZOK (ok) /c/s-0000000001",
            "create2 sequential /c/s-: ZOK (ok) /c/s-0000000002 version=0 cversion=0 aversion=0 dataLength=2 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "create2 ephemeral /c/e: ZOK (ok) /c/e version=0 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=A mzxid==czxid=true pzxid==czxid=true",
            "create ephemeral-sequential /c/es-: ZOK (ok) /c/es-0000000004",
            "create under-ephemeral /c/e/kid: ZNOCHILDRENFOREPHEMERALS (no children for ephemerals)",
            "create null-data /c/nul: ZOK (ok) /c/nul",
            "create trailing-slash /c/: ZBADARGUMENTS (bad arguments)",
            "create container /c/box: ZOK (ok) /c/box",
            "create in container /c/box/kid: ZOK (ok) /c/box/kid",
            "exists container /c/box: ZOK (ok) version=0 cversion=1 aversion=0 dataLength=0 numChildren=1 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=false",
            // containers and TTL nodes report no ephemeral owner
            "create2 ttl /c/ttl: ZOK (ok) /c/ttl version=0 cversion=0 aversion=0 dataLength=1 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "children /zookeeper: ZOK (ok) [config, quota]",
            // a standalone ZooKeeper's configuration lists no server (see below for Volery's)
            "getconfig: ZOK (ok) servers=0 version=0",
            "get fresh /c/a: ZOK (ok) data='alpha' version=0 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "get null-data /c/nul: ZOK (ok) data=(null, len -1) version=0 cversion=0 aversion=0 dataLength=0 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "get missing /c/nope: ZNONODE (no node)",
            "set2 /c/a 'beta' version 0: ZOK (ok) version=1 cversion=0 aversion=0 dataLength=4 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "set2 /c/a 'gamma' version 0: ZBADVERSION (bad version)",
            "set2 /c/a 'gamma' version 1: ZOK (ok) version=2 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "set2 /c/a 'delta' version -1: ZOK (ok) version=3 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "set2 /c/nope 'x' version -1: ZNONODE (no node)",
            "set /c/a 'epsilon' version 3: ZOK (ok)",
            "get after sets /c/a: ZOK (ok) data='epsilon' version=4 cversion=0 aversion=0 dataLength=7 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "exists present /c/a: ZOK (ok) version=4 cversion=0 aversion=0 dataLength=7 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "exists absent /c/nope: ZNONODE (no node)",
            "exists ephemeral /c/e: ZOK (ok) version=0 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=A mzxid==czxid=true pzxid==czxid=true",
            "children /c: ZOK (ok) [a, box, e, es-0000000004, nul, s-0000000001, s-0000000002, ttl]",
            "children2 /c: ZOK (ok) [a, box, e, es-0000000004, nul, s-0000000001, s-0000000002, ttl] version=0 cversion=8 aversion=0 dataLength=4 numChildren=8 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=false",
            "children /c/nope: ZNONODE (no node)",
            "children2 /c/a: ZOK (ok) [] version=4 cversion=0 aversion=0 dataLength=7 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "delete /c version -1: ZNOTEMPTY (not empty)",
            "delete /c version 99: ZBADVERSION (bad version)",
            "delete /c/a version 0: ZBADVERSION (bad version)",
            "delete /c/nope version -1: ZNONODE (no node)",
            "delete /c/nul version 0: ZOK (ok)",
            "session B connected, other than A: true",
            "wget /c/a: ZOK (ok) data='epsilon'",
            "set2 /c/a 'zeta' version 4: ZOK (ok) version=5 cversion=0 aversion=0 dataLength=4 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "data watch fired: CHANGED /c/a",
            "wget_children2 /c: ZOK (ok) [a, box, e, es-0000000004, s-0000000001, s-0000000002, ttl] version=0 cversion=9 aversion=0 dataLength=4 numChildren=7 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=false",
            "create by B /c/w: ZOK (ok) /c/w",
            "child watch fired: CHILD /c",
            "wexists /c/later: ZNONODE (no node)",
            "create by B /c/later: ZOK (ok) /c/later",
            "exists watch (absent) fired: CREATED /c/later",
            "wexists /c/w: ZOK (ok) version=0 cversion=0 aversion=0 dataLength=1 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "delete /c/w version 0: ZOK (ok)",
            "exists watch (present) fired: DELETED /c/w",
            "wget /c/later: ZOK (ok) len=0 version=0 cversion=0 aversion=0 dataLength=0 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "delete /c/later version -1: ZOK (ok)",
            "data watch (deleted) fired: DELETED /c/later",
            "wget /c/a: ZOK (ok)",
            "wget_children /c: ZOK (ok) [a, box, e, es-0000000004, s-0000000001, s-0000000002, ttl]",
            "removeWatches child /c/a: ZNOWATCHER (the watcher couldn't be found)",
            "removeWatches data /c/a: ZOK (ok)",
            "removeWatches data /c/a again: ZNOWATCHER (the watcher couldn't be found)",
            "removeAllWatches /c: ZOK (ok)",
            "removeAllWatches /c/nope: ZNOWATCHER (the watcher couldn't be found)",
            "set2 /c/a 'eta' version 5: ZOK (ok) version=6 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "create by B /c/w2: ZOK (ok) /c/w2",
            "delete /c/w2 version 0: ZOK (ok)",
            "get after B's changes /c/a: ZOK (ok) data='eta' version=6 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "sync by A /c: ZOK (ok) /c",
            "removed watches fired: data false, child false",
            "set of 1048551 bytes (a frame of jute.maxbuffer) on /c/a: ZOK (ok) version=7 cversion=0 aversion=0 dataLength=1048551 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "wexists /c/a: ZOK (ok)",
            // a frame over jute.maxbuffer: the server drops the connection unanswered; the session lives
            "set of 1048552 bytes (one byte over) on /c/a: ZCONNECTIONLOSS (connection loss)",
            "set2 /c/a 'theta' version 7: ZOK (ok) version=8 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "A connected again: true, same session: true",
            "watch re-armed after reconnection fired: CHANGED /c/a",
            "get after reconnection /c/a: ZOK (ok) data='theta' version=8 cversion=0 aversion=0 dataLength=5 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "B wexists /c/e: ZOK (ok) version=0 cversion=0 aversion=0 dataLength=3 numChildren=0 ephemeralOwner=A mzxid==czxid=true pzxid==czxid=true",
            "children /c: ZOK (ok) [a, box, e, es-0000000004, s-0000000001, s-0000000002, ttl]",
            "close A: ZOK (ok)",
            "B's exists watch on A's ephemeral fired: DELETED /c/e",
            "exists after A closed /c/e: ZNONODE (no node)",
            "children2 /c: ZOK (ok) [a, box, s-0000000001, s-0000000002, ttl] version=0 cversion=17 aversion=0 dataLength=4 numChildren=5 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=false",
            "create second top-level /c2: ZOK (ok) /c2",
            "multi ok: ZOK (ok)",
            "multi ok op0 create: ZOK (ok) /c/t1",
            "multi ok op1 set: ZOK (ok) version=1 cversion=0 aversion=0 dataLength=6 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "multi ok op2 check: ZOK (ok)",
            "multi ok op3 create: ZOK (ok) /c2/m-0000000000",
            "get after multi /c2: ZOK (ok) data='other2' version=1 cversion=1 aversion=0 dataLength=6 numChildren=1 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=false",
            "children /c2: ZOK (ok) [m-0000000000]",
            // ZooKeeper reports the operations before the failing one as ZOK (an error result with code 0)
            "multi failing: ZBADVERSION (bad version)",
            "multi failing op0: ZOK (ok)",
            "multi failing op1: ZOK (ok)",
            "multi failing op2: ZBADVERSION (bad version)",
            "multi failing op3: ZRUNTIMEINCONSISTENCY (run time inconsistency)",
            "multi failing op4: ZRUNTIMEINCONSISTENCY (run time inconsistency)",
            "exists rolled back /c/t2: ZNONODE (no node)",
            "exists kept /c/t1: ZOK (ok) version=0 cversion=0 aversion=0 dataLength=2 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "get kept /c2: ZOK (ok) data='other2' version=1 cversion=1 aversion=0 dataLength=6 numChildren=1 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=false",
            "multi check absent: ZNONODE (no node) op0 ZNONODE (no node) op1 ZRUNTIMEINCONSISTENCY (run time inconsistency)",
            "session E (chroot /c2) connected",
            "create chroot sequential /r-: ZOK (ok) /r-0000000001",
            "children /: ZOK (ok) [m-0000000000, r-0000000001]",
            "wexists chroot /r: ZNONODE (no node)",
            "create by B /c2/r: ZOK (ok) /c2/r",
            "chroot exists watch fired: CREATED /r",
            "chroot multi: ZOK (ok) op0 ZOK (ok) /q-0000000003 op1 ZOK (ok)",
            "sync chroot /: ZOK (ok) /",
            "get chroot /: ZOK (ok) data='other2' version=1 cversion=5 aversion=0 dataLength=6 numChildren=3 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=false",
            "close E: ZOK (ok)",
            "children /c2: ZOK (ok) [m-0000000000, q-0000000003, r-0000000001]",
            "addAuth B digest: ZOK (ok)",
            "create creator-all /c2/secret: ZOK (ok) /c2/secret",
            "getACL by B /c2/secret: ZOK (ok) [digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E= perms=31] aversion=0",
            "get by B /c2/secret: ZOK (ok) data='s3cr3t' version=0 cversion=0 aversion=0 dataLength=6 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "session C connected, timeout 4000 ms",
            // pings (every timeout/3) keep an idle connection; without answers the client gives up after 2/3 of it
            "C idle 3.5 s: session events 0, connected true",
            "get by C /c2/secret: ZNOAUTH (not authenticated)",
            "set /c2/secret by C: ZNOAUTH (not authenticated)",
            "exists by C /c2/secret: ZNOAUTH (not authenticated)",
            "getACL by C /c2/secret: ZNOAUTH (not authenticated)",
            "create by C /c2/secret/kid: ZNOAUTH (not authenticated)",
            "create creator-all without auth /c2/mine: ZINVALIDACL (invalid acl)",
            // the ACL is checked (an auth id without credentials) before the caller's ADMIN permission
            "setACL /c2/secret by C: ZINVALIDACL (invalid acl)",
            "setACL /c2/secret version 1 by B: ZBADVERSION (bad version)",
            "setACL /c2/secret version 0 by B: ZOK (ok)",
            "getACL after setACL /c2/secret: ZOK (ok) [digest:alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E= perms=31, world:anyone perms=1] aversion=1",
            "get by C after setACL /c2/secret: ZOK (ok) data='s3cr3t' version=0 cversion=0 aversion=1 dataLength=6 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "set /c2/secret by C after setACL: ZNOAUTH (not authenticated)",
            "addAuth C digest: ZOK (ok)",
            "set /c2/secret by C with the wrong password: ZNOAUTH (not authenticated)",
            "addAuth C digest: ZOK (ok)",
            "set2 /c2/secret 'by alice on C' version -1: ZOK (ok) version=1 cversion=0 aversion=1 dataLength=13 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "create ip 127.0.0.1 /c2/ip-here: ZOK (ok) /c2/ip-here",
            "create ip 10.0.0.0/8 /c2/ip-elsewhere: ZOK (ok) /c2/ip-elsewhere",
            "get by C /c2/ip-here: ZOK (ok) data='h' version=0 cversion=0 aversion=0 dataLength=1 numChildren=0 ephemeralOwner=none mzxid==czxid=true pzxid==czxid=true",
            "get by C /c2/ip-elsewhere: ZNOAUTH (not authenticated)",
            "getACL by C /c2/ip-here: ZOK (ok) [ip:127.0.0.1 perms=31] aversion=0",
            "create unknown scheme /c2/bad-acl: ZINVALIDACL (invalid acl)",
            "create empty ACL /c2/no-acl: ZINVALIDACL (invalid acl)",
            "session D connected",
            "addAuth D nosuchscheme: ZOK (ok)",
            "addAuth D nosuchscheme completed: ZAUTHFAILED (authentication failed)",
            "D's session event: AUTH_FAILED true",
            "exists by D after the failed auth: ZINVALIDSTATE (invalid zhandle state)",
            "pipelined 40 async requests across /c and /c2: 40 completions, in order true, unexpected results 0",
            "exists after pipelining /c/t1: ZOK (ok) version=10 cversion=0 aversion=0 dataLength=1 numChildren=0 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=true",
            "children2 /c2: ZOK (ok) [ip-elsewhere, ip-here, m-0000000000, p-0000000007, p-0000000008, p-0000000009, p-0000000010, p-0000000011, p-0000000012, p-0000000013, p-0000000014, p-0000000015, p-0000000016, q-0000000003, r-0000000001, secret] version=1 cversion=18 aversion=0 dataLength=6 numChildren=16 ephemeralOwner=none mzxid==czxid=false pzxid==czxid=false",
            "sync by B /c2: ZOK (ok) /c2",
            "children /c: ZOK (ok) [a, box, s-0000000001, s-0000000002, t1, ttl]",
            "children /c2: ZOK (ok) [ip-elsewhere, ip-here, m-0000000000, p-0000000007, p-0000000008, p-0000000009, p-0000000010, p-0000000011, p-0000000012, p-0000000013, p-0000000014, p-0000000015, p-0000000016, q-0000000003, r-0000000001, secret]",
            "multi delete container: ZOK (ok) op0 ZOK (ok) op1 ZOK (ok)",
            "delete /c/a version -1: ZOK (ok)",
            "delete /c/s-0000000001 version -1: ZOK (ok)",
            "delete /c/s-0000000002 version -1: ZOK (ok)",
            "delete /c/t1 version -1: ZOK (ok)",
            "delete /c/ttl version -1: ZOK (ok)",
            "delete /c version -1: ZOK (ok)",
            "delete /c2/ip-elsewhere version -1: ZOK (ok)",
            "delete /c2/ip-here version -1: ZOK (ok)",
            "delete /c2/m-0000000000 version -1: ZOK (ok)",
            "delete /c2/p-0000000007 version -1: ZOK (ok)",
            "delete /c2/p-0000000008 version -1: ZOK (ok)",
            "delete /c2/p-0000000009 version -1: ZOK (ok)",
            "delete /c2/p-0000000010 version -1: ZOK (ok)",
            "delete /c2/p-0000000011 version -1: ZOK (ok)",
            "delete /c2/p-0000000012 version -1: ZOK (ok)",
            "delete /c2/p-0000000013 version -1: ZOK (ok)",
            "delete /c2/p-0000000014 version -1: ZOK (ok)",
            "delete /c2/p-0000000015 version -1: ZOK (ok)",
            "delete /c2/p-0000000016 version -1: ZOK (ok)",
            "delete /c2/q-0000000003 version -1: ZOK (ok)",
            "delete /c2/r-0000000001 version -1: ZOK (ok)",
            "delete /c2/secret version -1: ZOK (ok)",
            "delete /c2 version -1: ZOK (ok)",
            "exists after cleanup /c: ZNONODE (no node)",
            "exists after cleanup /c2: ZNONODE (no node)",
            "close B: ZOK (ok)",
            "close C: ZOK (ok)");

    @Test
    void scriptedCClientSessionMatchesZooKeeper() throws Exception {
        compileSessionProgram();
        Outcome oracle = run(List.of(PROGRAM.toString(), zookeeper.connectString()), 90);
        Outcome volery = run(List.of(PROGRAM.toString(), cluster.connectString()), 90);
        // kept for a person comparing the two by hand
        Files.writeString(WORK.resolve("session-zookeeper.out"), oracle.output());
        Files.writeString(WORK.resolve("session-volery.out"), volery.output());

        assertEquals(0, oracle.exit(), "the C session against real ZooKeeper 3.9.5 failed:\n" + oracle.output());
        List<String> fromZooKeeper = oracle.stdout().lines().toList();
        List<String> fromVolery = volery.stdout().lines().toList();
        assertEquals(EXPECTED_SESSION, fromZooKeeper, "real ZooKeeper 3.9.5 no longer prints what this test expects ("
                + ExternalProcess.firstDifference(EXPECTED_SESSION, fromZooKeeper) + "); its output:\n" + oracle.output());
        // Volery's lists its front ends, as an ensemble lists its servers, data version -1 (ADR 097)
        String standalone = "getconfig: ZOK (ok) servers=0 version=0";
        assertTrue(fromZooKeeper.contains(standalone), standalone);
        fromZooKeeper = fromZooKeeper.stream().map(l -> l.equals(standalone)
                ? "getconfig: ZOK (ok) servers=" + cluster.nodes().size() + " version=-1" : l).toList();
        assertEquals(fromZooKeeper, fromVolery, "Volery and ZooKeeper 3.9.5 differ (" + ExternalProcess.firstDifference(fromZooKeeper,
                fromVolery) + "); Volery's output:\n" + volery.output());
        assertEquals(0, volery.exit(), "the C session against Volery failed:\n" + volery.output());
    }


    /** The commands cli_mt runs, one session each (batch mode), in order. */
    static final List<String> CLI_COMMANDS = List.of(
            "create /cm",
            "create /cm",
            "create +s /cm/s-",
            "create +e /cm/e",
            "create2 /cm/b",
            "get /cm",
            "set /cm hello",
            "get /cm",
            "ls /cm",
            "ls2 /cm",
            "sync /cm",
            "delete /cm",
            "delete /cm/b",
            "get /cm/b",
            "delete /cm/s-0000000000",
            "ls /cm",
            "delete /cm",
            "get /cm");

    /** The stable part of cli_mt's output for each of {@link #CLI_COMMANDS} (see {@link #stable}). */
    static final List<List<String>> EXPECTED_CLI = List.of(
            List.of("Creating [/cm] node (mode: 0)", "[/cm]: rc = 0", "\tname = /cm"),
            List.of("Creating [/cm] node (mode: 0)", "[/cm]: rc = -110"),
            List.of("Creating [/cm/s-] node (mode: 2)", "[/cm/s-]: rc = 0", "\tname = /cm/s-0000000000"),
            List.of("Creating [/cm/e] node (mode: 1)", "[/cm/e]: rc = 0", "\tname = /cm/e"),
            List.of("Creating [/cm/b] node (mode: 0)", "[/cm/b]: rc = 0", "\tname = /cm/b",
                    "\tversion=0\taversion=0", "\tephemeralOwner = 0"),
            List.of("/cm: rc = 0", " value_len = 3", "new", "Stat:", "\tversion=0\taversion=0", "\tephemeralOwner = 0"),
            List.of("/cm: rc = 0 Stat:", "\tversion=1\taversion=0", "\tephemeralOwner = 0"),
            List.of("/cm: rc = 0", " value_len = 5", "hello", "Stat:", "\tversion=1\taversion=0", "\tephemeralOwner = 0"),
            // the ephemeral went with the session that made it
            List.of("/cm: rc = 0", "\tb", "\ts-0000000000"),
            List.of("/cm: rc = 0", "\tb", "\ts-0000000000", "\tversion=1\taversion=0", "\tephemeralOwner = 0"),
            List.of("[/cm]: rc = 0", "\tname = /cm"),
            List.of("/cm: rc = -111"),
            List.of("/cm/b: rc = 0"),
            List.of("/cm/b: rc = -101", "", "Stat:", "null"),
            List.of("/cm/s-0000000000: rc = 0"),
            List.of("/cm: rc = 0"),
            List.of("/cm: rc = 0"),
            List.of("/cm: rc = -101", "", "Stat:", "null"));

    @Test
    void cliMtBatchCommandsMatchZooKeeper() throws Exception {
        Path cli = CLI_MT.stream().filter(Files::isExecutable).findFirst().orElse(null);
        assumeTrue(cli != null, "cli_mt test skipped: no cli_mt at " + CLI_MT
                + " (Debian's zookeeper-bin provides it: apt-get install zookeeper-bin)");
        for (int i = 0; i < CLI_COMMANDS.size(); i++) {
            String command = CLI_COMMANDS.get(i);
            Outcome oracle = cliMt(cli, zookeeper.connectString(), command);
            Outcome volery = cliMt(cli, cluster.connectString(), command);
            List<String> fromZooKeeper = stable(oracle.stdout());
            List<String> fromVolery = stable(volery.stdout());
            assertEquals(EXPECTED_CLI.get(i), fromZooKeeper, "cli_mt '" + command
                    + "' against real ZooKeeper 3.9.5 no longer prints what this test expects:\n" + oracle.output());
            assertEquals(fromZooKeeper, fromVolery, "cli_mt '" + command
                    + "': Volery's output differs from ZooKeeper's\n--- ZooKeeper\n" + oracle.output()
                    + "\n--- Volery\n" + volery.output());
        }
    }

    /** One cli_mt command in batch mode ({@code -h hosts -c command}); its stdout and stderr, merged. */
    private static Outcome cliMt(Path cli, String hosts, String command) throws InterruptedException {
        Outcome o = run(List.of(cli.toString(), "-h", hosts, "-c", command), 30);
        assertEquals(0, o.exit(), "cli_mt -h " + hosts + " -c '" + command + "'\n" + o.output());
        assertTrue(o.output().contains("state = CONNECTED_STATE"), "cli_mt never connected to " + hosts + "\n" + o.output());
        // it prints everything on stderr: compare what a person would read, both streams
        return new Outcome(o.exit(), o.output(), o.output());
    }

    private static final Pattern GLUED_WATCHER = Pattern.compile("Watcher SESSION_EVENT state = [A-Z_]+?_STATE(\\S[^\n]*\n)\n");

    private static final Pattern NOISE = Pattern.compile(
            "^(--- std(out|err)|Batch mode: .*|Watcher SESSION_EVENT .*|Got a new session id: .*|time = \\d+ msec"
                    + "|\\tctime = .*|\\tczxid=.*|\\tmtime=.*|\\tmzxid=.*|.*ZOO_(ERROR|WARN|INFO|DEBUG)@.*)$");

    /**
     * cli_mt's output without what varies from run to run (times, zxids, session ids, connection
     * logging); children (tab-indented names) sorted, as ZooKeeper lists them in no fixed order.
     */
    static List<String> stable(String output) {
        List<String> lines = new ArrayList<>();
        List<String> names = new ArrayList<>();
        // cli_mt's watcher thread may print its connection line into the middle of the main thread's
        // (seen in CI: "...CONNECTED_STATECreating [/cm/e] node", then the watcher's own line end):
        // take it out with its line end, as NOISE takes it out when it has a line of its own
        output = GLUED_WATCHER.matcher(output).replaceAll("$1");
        for (String line : output.lines().toList()) {
            if (NOISE.matcher(line).matches()) {
                continue;
            }
            if (line.startsWith("\t") && !line.contains("=")) {
                names.add(line);
                continue;
            }
            names.sort(null);
            lines.addAll(names);
            names.clear();
            lines.add(line);
        }
        names.sort(null);
        lines.addAll(names);
        return lines;
    }

    /** Builds target/c-client/zk_c_session from the test resource; skips when gcc or the C client is absent. */
    private static synchronized void compileSessionProgram() throws Exception {
        Files.createDirectories(WORK);
        Path source = WORK.resolve("zk_c_session.c");
        try (InputStream in = CClientSessionTest.class.getResourceAsStream("/clients/zk_c_session.c")) {
            Files.write(source, in.readAllBytes());
        }
        Outcome gcc = run(List.of("gcc", "--version"), 30);
        assumeTrue(gcc.exit() == 0, "C client test skipped: gcc is not installed (apt-get install gcc): " + gcc.output());
        Path probe = WORK.resolve("probe.c");
        Files.writeString(probe, "#include <zookeeper/zookeeper.h>\nint main(void) { return 0; }\n");
        Outcome header = run(List.of("gcc", "-fsyntax-only", probe.toString()), 30);
        assumeTrue(header.exit() == 0, "C client test skipped: zookeeper/zookeeper.h not found"
                + " (apt-get install libzookeeper-mt-dev provides it): " + header.output());
        Outcome library = run(List.of("gcc", "-print-file-name=libzookeeper_mt.so"), 30);
        assumeTrue(library.exit() == 0 && library.stdout().strip().startsWith("/"), "C client test skipped:"
                + " libzookeeper_mt.so not found (apt-get install libzookeeper-mt-dev provides it): " + library.output());
        Outcome build = run(List.of("gcc", "-O1", "-Wall", "-o", PROGRAM.toString(), source.toString(),
                "-lzookeeper_mt", "-lpthread"), 60);
        if (build.exit() != 0) {
            fail("gcc could not build " + source + " although gcc and libzookeeper-mt-dev are installed:\n"
                    + build.output());
        }
    }

}
