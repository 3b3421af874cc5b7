package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * ZooKeeper 3.9.5's own shell, {@code org.apache.zookeeper.ZooKeeperMain}, back to back: one script of
 * what a demanding zkCli user types (sequential, ephemeral, container and TTL nodes, versioned set and
 * delete, stat and ls variants, ACLs of the world, digest and ip schemes and their refusals, addauth and
 * whoami, one-shot and persistent (recursive) watches and their removal, quotas, sync, deleteall,
 * close/connect, and the errors of bad paths, missing parents, non-empty nodes and bad versions) run
 * through zkCli against a real ZooKeeper 3.9.5 and against a 2x3 Volery, partitioned by subtree and by
 * hash; the two transcripts must be equal line by line once what legitimately differs is normalised.
 *
 * <p>zkCli echoes no commands, so each command of the script is preceded by a marker, {@code get
 * /zkcli-step/N}, a read of a node that never exists: its "Node does not exist" line becomes "&gt; command"
 * in the transcript, which then reads like a terminal session and tells which command printed what.
 *
 * <p>Each marker is preceded by a barrier, {@code sync /}, whose "Sync is OK" is dropped again. zkCli prints
 * watch events ("WATCHER::", then "WatchedEvent ...") from its event thread, which may lag behind the main
 * thread: an event would then be printed in the middle of the next command's output (ls prints its list in
 * pieces, splitting the line), or be handled after a later {@code printwatches off/on} and be printed or not
 * by chance. The sync's callback runs on the event thread after every event that arrived before its answer,
 * and zkCli waits for it, so every event a command caused (the server sends it before that command's answer)
 * is printed before the next command starts.
 *
 * <p>Normalised, because they differ between any two servers or runs: the "Connecting to host:port" and
 * welcome lines, log lines, blank lines; cZxid/mZxid/pZxid values and the zxid of watch events (a
 * Volery's zxids are its own); ctime/mtime timestamps; ephemeralOwner values that are session ids, which
 * become S1, S2... in order of first appearance, so that "same session" and "another session" still
 * compare (0x0 and TTL-encoded owners, 0xff..., are kept); the connection-state events (type:None,
 * SyncConnected/Disconnected/Closed), printed whenever the connection comes up or goes down. Not normalised:
 * everything else, including data, versions, child counts and lists, the root's stat, ACLs, quota nodes, error
 * messages and {@code history}. Not run: {@code config} and reading {@code /zookeeper/config}, which a standalone
 * ZooKeeper leaves empty and an ensemble, like Volery, fills with its servers ({@link EnsembleConfigTest}
 * compares Volery's with an ensemble's; ADR 097).
 *
 * <p>The reference ZooKeeper runs with {@code zookeeper.extendedTypesEnabled=true} (see
 * {@link EmbeddedZooKeeper}), so {@code create -t} works on both. It reaps no containers or TTL nodes during
 * a test (its container manager runs hourly); Volery by default reaps at every tick (500 ms here), which would
 * make an emptied container's fate a matter of timing, so the Volery runs with reaping off (the option exists
 * for this comparison). The TTLs are ten minutes anyway.
 *
 * <p>The event lines are still taken out of the transcript and compared separately, each labelled with the
 * command after whose marker it was printed, as a multiset: where exactly, relative to that command's own
 * output, one is printed depends on timing; syncs of both top-level subtrees before {@code quit} let every
 * event the script triggered arrive before the session closes. The child watch of /b2bacl stays armed at
 * {@code close}, which deletes the session's ephemeral child there: ZooKeeper sends the closing session that
 * event before the close's reply (Volery did not before session 56; ADR 096).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ZkCliBackToBackTest {
    @TempDir
    Path dir;

    /** The partition ids VoleryCluster gives two partitions. */
    private static final int[] PARTITIONS = {1, 2};
    /**
     * Top-level nodes of the script: under subtree partitioning /b2b and /b2b2 live in one partition, /b2bacl
     * and /b2bip in the other; under hash partitioning their children are spread over both as well.
     */
    private static final List<String> TOP_LEVEL = List.of("/b2b", "/b2b2", "/b2bacl", "/b2bip");

    /** %CONNECT% is the server's connect string. */
    static final List<String> SCRIPT = List.of(
            "version",
            "ls /",
            // creates, in both partitions
            "create /b2b top",
            "create /b2b2 second",
            "create /b2bacl acl-root",
            "create /b2bip ip-root",
            "create -e /b2b/eph e",
            "create -e -s /b2b/es- es",
            "create -s /b2b2/seq- s",
            "create -s /b2b2/seq- s",
            "create -s -e /b2bacl/es- es",
            "create -c /b2b/cont",
            "create /b2b/cont/item i",
            "create -t 600000 /b2b2/ttl t",
            "create -t 600000 -s /b2b2/ttlseq- ts",
            // create errors
            "create noslash",
            "create /a//b x",
            "create /b2b/ x",
            "create /b2b/missing/child x",
            "create /b2b top",
            "create -e /b2b/eph/child x",
            "create -t 0 /b2b2/ttl0 x",
            "create -c -e /b2b/both x",
            "create -s /b2b2/",
            "create /b2b2/quoted \"hello world\"",
            "create /b2b2/empty",
            "create -s /b2bs- top-seq",
            "create -s /b2bs- top-seq",
            "create -e -s /b2bs- top-eph-seq",
            // reads
            "ls /",
            "get /b2b",
            "get -s /b2b",
            "get -s /b2b/eph",
            "get -s /b2b2/ttl",
            "get -s /b2b/cont",
            "get -x /b2b",
            "get /b2b/nothere",
            "get /b2b2/quoted",
            "get -s /b2b2/empty",
            "set /b2b2/quoted aGVsbG8= -b",
            "get /b2b2/quoted",
            "get -b /b2b2/quoted",
            "set /b2b2/quoted v -s -v 0",
            "stat /",
            "ls -s /",
            "getAcl /",
            "getAcl /zookeeper",
            "ls /zookeeper",
            "get -w /",
            "set / rootdata",
            "get -s /",
            "set / \"\" -v 1",
            "create /b2b2/\u00fcml\u00e4ut \u00fc",
            "get /b2b2/\u00fcml\u00e4ut",
            "delete /b2b2/\u00fcml\u00e4ut",
            "stat /b2b2",
            "stat /b2bacl/es-0000000000",
            "stat /b2b/nothere",
            // versioned writes
            "set -s /b2b v1",
            "set /b2b v2 -v 1",
            "set /b2b v3 -v 1",
            "set /b2b v3 -s -v 2",
            "set /b2b/nothere x",
            "set /b2b2/empty anyversion -v -1",
            "get -s /b2b",
            "delete -v 7 /b2b2/ttl",
            "delete -v 0 /b2b2/ttl",
            "delete /b2b",
            "delete /b2b/nothere",
            "delete /b2b/cont",
            "delete /b2b2",
            "delete -v 3 /b2b/nothere",
            "delete -v -1 /b2b2/empty",
            // listings
            "ls /b2b",
            "ls -s /b2b",
            "ls -R /b2b",
            "ls -R /b2b2",
            "ls /b2b/nothere",
            "ls -s /b2bacl",
            "getAllChildrenNumber /b2b",
            "getAllChildrenNumber /b2b2",
            "getAllChildrenNumber /b2b/nothere",
            "getEphemerals /b2b",
            "getEphemerals /b2bacl",
            "getEphemerals /b2b2",
            "getEphemerals",
            // ACLs: world, refusals, digest (addauth), ip
            "whoami",
            "getAcl /b2b",
            "getAcl -s /b2b",
            "getAcl /b2b/nothere",
            "setAcl /b2bacl world:anyone:r",
            "getAcl /b2bacl",
            "get /b2bacl",
            "set /b2bacl denied",
            "create /b2bacl/c c",
            "delete /b2bacl/es-0000000000",
            "setAcl /b2bacl world:anyone:cdrwa",
            "setAcl /b2bacl bad:x:cdrwa",
            "setAcl /b2bacl world:anyone",
            "setAcl -v 5 /b2bip world:anyone:cdrwa",
            "setAcl -v 0 /b2bip world:anyone:cdrwa",
            "getAcl -s /b2bip",
            "create /b2bip/noauth x auth::cdrwa",
            "setAcl /b2bip auth::cdrwa",
            "addauth digest alice:secret",
            "whoami",
            "create /b2bip/d d",
            "setAcl /b2bip/d auth:alice:secret:cdrwa",
            "getAcl /b2bip/d",
            "get /b2bip/d",
            "setAcl -s /b2bip/d auth::cdrw",
            "getAcl -s /b2bip/d",
            "setAcl /b2bip/d world:anyone:r",
            "create /b2bip/dd dd digest:bob:2D7Aaxv0ckCqoDBYaRuBd8a+n+o=:cdrwa",
            "getAcl /b2bip/dd",
            "get /b2bip/dd",
            "create /b2bip/ip i",
            "setAcl /b2bip/ip ip:127.0.0.1:cdrwa",
            "getAcl /b2bip/ip",
            "get /b2bip/ip",
            "create /b2bip/far f",
            "setAcl /b2bip/far ip:10.1.2.3:cdrwa,world:anyone:c",
            "get /b2bip/far",
            "getAcl /b2bip/far",
            "create /b2bip/far/kid k",
            "setAcl -R /b2b2 world:anyone:cdrwa",
            "getAcl /b2b2/seq-0000000000",
            // one-shot watches
            "printwatches on",
            "get -w /b2b2",
            "set /b2b2 changed",
            "ls -w /b2b2",
            "create /b2b2/kid k",
            "stat -w /b2b2/kid",
            "delete /b2b2/kid",
            "stat -w /b2b2/future",
            "create /b2b2/future f",
            "ls -s -w /b2bacl",
            "delete /b2bacl/es-0000000000",
            // the child watch set on /b2bacl stays: it fires at "close", when the session's ephemerals there go,
            // and ZooKeeper sends the closing session that event before the close's reply
            "sync /",
            "get -s -w /b2b2/future",
            "set -s /b2b2/future g",
            // persistent and persistent recursive watches
            "addWatch -m PERSISTENT /b2bip",
            "set /b2bip a",
            "create /b2bip/p p",
            "set /b2bip/p q",
            "set /b2bip b",
            "addWatch -m PERSISTENT_RECURSIVE /b2b",
            "create /b2b/x x",
            "create /b2b/x/y y",
            "set /b2b/x/y z",
            "deleteall /b2b/x",
            "addWatch /b2b2",
            "create /b2b2/r/s x",
            "create /b2b2/r r",
            "create /b2b2/r/s s",
            "printwatches off",
            "set /b2b2/r/s silent",
            "printwatches on",
            "removewatches /b2bip",
            "set /b2bip c",
            "removewatches /b2b -a",
            "create /b2b/z z",
            "removewatches /b2b -a",
            "get -w /b2b2/r",
            "removewatches /b2b2/r -d",
            "removewatches /b2b2/r -c",
            "ls -w /b2b2/r",
            "removewatches /b2b2/r -c -l",
            "removewatches /b2b2 -a",
            "addWatch -m BOGUS /b2b2",
            "addWatch -m PERSISTENT /b2b/nothere",
            "create /b2b/nothere n",
            "removewatches /b2b/nothere",
            // a persistent recursive watch of the root sees both partitions
            "ls -w /",
            "stat -w /b2bfuture",
            "create /b2bfuture x",
            "delete /b2bfuture",
            "addWatch -m PERSISTENT_RECURSIVE /",
            "create /b2broot r",
            "create /b2broot/kid k",
            "set /b2bacl/es-0000000000 denied",
            "set /b2b/z zz",
            "set /b2bip/ip ii",
            "delete /b2broot/kid",
            "delete /b2broot",
            "sync /",
            "removewatches /",
            "get -w /b2bip/ip",
            "removewatches /b2bip/ip -d -l",
            "set /b2bip/ip iii",
            // ACLs of several entries
            "setAcl /b2bip/p world:anyone:r,auth::cdrwa,ip:127.0.0.1:rw",
            "getAcl /b2bip/p",
            // quotas
            "setquota -n 5 /b2b2",
            "setquota -b 100 /b2b2",
            "listquota /b2b2",
            "setquota -N 10 /b2bip",
            "setquota -B 1000 /b2bip",
            "listquota /b2bip",
            "setquota -n 3 /b2bip/p",
            "setquota -n 3 /b2b/nothere/deeper",
            "ls /zookeeper/quota",
            "ls -s /zookeeper/quota",
            "get -s /zookeeper/quota/b2bip/zookeeper_limits",
            "get /zookeeper/quota/b2bip/zookeeper_stats",
            "getAllChildrenNumber /zookeeper/quota",
            "delquota -n /b2b2",
            "listquota /b2b2",
            "delquota /b2b2",
            "listquota /b2b2",
            "delquota /b2b2",
            "listquota /nothere",
            "delquota -N /b2bip",
            "listquota /b2bip",
            // sync, deleteall
            "sync /b2b",
            "sync /b2bacl",
            "sync /b2b/nothere",
            "deleteall /b2b2 -b 2",
            "ls /b2b2",
            "deleteall /b2b2",
            "deleteall /b2bip/far",
            "deleteall /b2bacl",
            "ls /b2bip",
            "ls /",
            "ls -R /",
            "ls -R /zookeeper",
            "stat /",
            "delete /b2bs-0000000005",
            "stat /",
            "getAllChildrenNumber /",
            "getAllChildrenNumber /zookeeper",
            // (config and config -s: a standalone ZooKeeper's /zookeeper/config is empty, an ensemble's and Volery's
            // list the servers: EnsembleConfigTest compares them with an ensemble's)
            "history",
            // a new session: the old one's ephemerals and credentials are gone
            "getEphemerals /",
            "close",
            "connect %CONNECT%",
            "ls /b2b",
            "getEphemerals /",
            "whoami",
            "get /b2bip/d",
            "addauth digest alice:wrong",
            "get /b2bip/d",
            "addauth digest alice:secret",
            "whoami",
            "get /b2bip/d",
            "create -e /b2b/eph2 e",
            "stat /b2b/eph2",
            "getEphemerals /b2b",
            "sync /b2b",
            // the reserved /zookeeper
            "create /zookeeper/b2b x",
            "set /zookeeper x",
            "delete /zookeeper",
            "delete /zookeeper/quota",
            "ls /zookeeper",
            "ls -s /zookeeper",
            "getAcl /zookeeper/config",
            "getAcl /zookeeper/quota",
            "set /zookeeper/config x",
            "create /zookeeper/config/x x",
            "delete /zookeeper/config",
            "setAcl /zookeeper/config world:anyone:cdrwa",
            "create /zookeeper/quota/fake x",
            "listquota /fake",
            "ls /zookeeper/quota",
            "delete /zookeeper/quota/fake",
            "delete /zookeeper/b2b",
            // no dynamic reconfiguration
            "reconfig -remove 1",
            "reconfig -add server.5=127.0.0.1:2888:3888;2181",
            // a container that empties stays until the (here idle) reaper comes
            "create -c /b2bc",
            "create /b2bc/k k",
            "delete /b2bc/k",
            "stat /b2bc",
            "ls /",
            "sync /b2b",
            "sync /b2bacl");

    @ParameterizedTest
    @EnumSource(VoleryConfig.Partitioning.class)
    void zkCliPrintsWhatItPrintsAgainstZooKeeper(VoleryConfig.Partitioning partitioning) throws Exception {
        Set<Integer> owners = new HashSet<>();
        PathPartitioner partitioner = new PathPartitioner(PARTITIONS, partitioning);
        for (String p : TOP_LEVEL) {
            owners.add(partitioner.ownerOf(p));
        }
        assertEquals(2, owners.size(), "the script's nodes should live in both partitions");

        EmbeddedZooKeeper zookeeper = null;
        VoleryCluster cluster = null;
        try {
            zookeeper = Clients.listeningZooKeeper(dir);
            Transcript expected = run(zookeeper.connectString());

            // like the reference ZooKeeper's container manager, Volery's reaping is off (see the class comment)
            cluster = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning).withContainerReaping(false));
            Transcript actual = run(cluster.connectString());

            compare(expected, actual, partitioning);
        } finally {
            Clients.stop(cluster, zookeeper);
        }
    }

    /** The script, each command preceded by its marker, then quit. */
    static String script(String connect) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < SCRIPT.size(); i++) {
            // after close the marker would only print "Not connected": the step after close has none
            if (i == 0 || !SCRIPT.get(i - 1).equals("close")) {
                s.append("sync /\n");
                s.append("get ").append(marker(i)).append('\n');
            }
            s.append(SCRIPT.get(i).replace("%CONNECT%", connect)).append('\n');
        }
        return s.append("quit\n").toString();
    }

    private static String marker(int i) {
        return "/zkcli-step/" + i;
    }

    record Transcript(String raw, List<String> lines, List<String> events) {
    }

    private static Transcript run(String connect) throws Exception {
        ZkCliSessionTest.Result r = ZkCliSessionTest.zkCli(connect, script(connect), 180);
        return normalise(r.exit(), r.stdout());
    }

    private static final Pattern MARKER = Pattern.compile("Node does not exist: /zkcli-step/(\\d+)");
    /** The marker's read failing otherwise, e.g. "KeeperErrorCode = ConnectionLoss for /zkcli-step/7". */
    private static final Pattern FAILED_MARKER = Pattern.compile("(.*) for /zkcli-step/(\\d+)");
    private static final Pattern ZXID = Pattern.compile("^([cmp]Zxid) = 0x[0-9a-f]+$");
    private static final Pattern TIME = Pattern.compile("^([cm]time) = .*$");
    private static final Pattern OWNER = Pattern.compile("^ephemeralOwner = (0x[0-9a-f]+)$");
    /** The session's connection going up and down, printed whenever it happens; other type:None events (AuthFailed) are kept. */
    private static final Pattern CONNECTION_EVENT =
            Pattern.compile("WatchedEvent state:(SyncConnected|Disconnected|Closed) type:None path:null zxid: -?\\d+");
    private static final Pattern EVENT_ZXID = Pattern.compile("zxid: -?\\d+$");
    /** slf4j-simple's format: milliseconds [thread] LEVEL logger - message. */
    private static final Pattern LOG = Pattern.compile("^\\d+ \\[[^\\]]*\\] (TRACE|DEBUG|INFO|WARN|ERROR) .*");

    static Transcript normalise(int exit, String raw) {
        List<String> lines = new ArrayList<>();
        List<String> events = new ArrayList<>();
        Map<String, String> sessions = new HashMap<>();
        int step = -1;
        for (String line : raw.split("\\R")) {
            String l = line.strip();
            if (l.isEmpty() || l.equals("WATCHER::") || l.equals("Welcome to ZooKeeper!")
                    || l.equals("JLine support is disabled") || l.startsWith("Connecting to ")) {
                continue;
            }
            if (LOG.matcher(l).matches()) {
                // the client library's warnings (connection attempts, addresses, timing); a stack trace's
                // "at ..." lines would not match and would show in the comparison
                continue;
            }
            if (l.startsWith("WatchedEvent ")) {
                if (!CONNECTION_EVENT.matcher(l).matches()) {
                    String command = step < 0 ? "(start)" : step + ": " + SCRIPT.get(step);
                    events.add("[" + command + "] " + EVENT_ZXID.matcher(l).replaceFirst("zxid: <zxid>"));
                }
                continue;
            }
            Matcher m = MARKER.matcher(l);
            if (m.matches()) {
                dropBarrier(lines);
                int at = Integer.parseInt(m.group(1));
                while (++step <= at) {
                    lines.add("> " + SCRIPT.get(step)); // a step without a marker printed nothing or joins the previous
                }
                step = at;
                continue;
            }
            if ((m = FAILED_MARKER.matcher(l)).matches()) {
                // the marker's read failed otherwise (connection): its command still begins here
                int at = Integer.parseInt(m.group(2));
                dropBarrier(lines);
                lines.add("(marker failed: " + m.group(1) + ")");
                while (++step <= at) {
                    lines.add("> " + SCRIPT.get(step));
                }
                step = at;
                continue;
            }
            if ((m = ZXID.matcher(l)).matches()) {
                l = m.group(1) + " = <zxid>";
            } else if ((m = TIME.matcher(l)).matches()) {
                l = m.group(1) + " = <time>";
            } else if ((m = OWNER.matcher(l)).matches()) {
                String owner = m.group(1);
                // 0x0: not ephemeral; 0xff...: a TTL node's owner, which encodes its TTL, the same anywhere
                if (!owner.equals("0x0") && !owner.startsWith("0xff")) {
                    l = "ephemeralOwner = " + sessions.computeIfAbsent(owner, o -> "S" + (sessions.size() + 1));
                }
            }
            lines.add(l);
        }
        lines.add("(exit status " + exit + ")");
        return new Transcript(raw, lines, events);
    }

    /** Removes the "Sync is OK" of the sync before a marker; any other answer of it stays, to be seen. */
    private static void dropBarrier(List<String> lines) {
        if (!lines.isEmpty() && lines.get(lines.size() - 1).equals("Sync is OK")) {
            lines.remove(lines.size() - 1);
        }
    }

    private static void compare(Transcript zk, Transcript volery, VoleryConfig.Partitioning partitioning) {
        StringBuilder problems = new StringBuilder();
        int n = Math.max(zk.lines().size(), volery.lines().size());
        int first = -1;
        for (int i = 0; i < n; i++) {
            String a = i < zk.lines().size() ? zk.lines().get(i) : "(end)";
            String b = i < volery.lines().size() ? volery.lines().get(i) : "(end)";
            if (!a.equals(b)) {
                first = i;
                break;
            }
        }
        if (first >= 0) {
            problems.append("transcripts differ at line ").append(first + 1).append(" (").append(lastCommand(zk.lines(), first))
                    .append(")\n");
            int from = Math.max(0, first - 8);
            int to = first + 12;
            problems.append("--- ZooKeeper 3.9.5, lines ").append(from + 1).append("..\n");
            zk.lines().subList(from, Math.min(to, zk.lines().size())).forEach(l -> problems.append("  ").append(l).append('\n'));
            problems.append("--- Volery (").append(partitioning).append("), lines ").append(from + 1).append("..\n");
            volery.lines().subList(from, Math.min(to, volery.lines().size()))
                    .forEach(l -> problems.append("  ").append(l).append('\n'));
        }
        Map<String, Integer> zkEvents = multiset(zk.events());
        Map<String, Integer> voleryEvents = multiset(volery.events());
        if (!zkEvents.equals(voleryEvents)) {
            problems.append("watch events differ (as multisets)\n");
            Set<String> keys = new java.util.TreeSet<>(zkEvents.keySet());
            keys.addAll(voleryEvents.keySet());
            for (String k : keys) {
                int a = zkEvents.getOrDefault(k, 0);
                int b = voleryEvents.getOrDefault(k, 0);
                if (a != b) {
                    problems.append("  ZooKeeper x").append(a).append(", Volery x").append(b).append(": ").append(k).append('\n');
                }
            }
        }
        if (!problems.isEmpty()) {
            fail(problems + "\n=== normalised ZooKeeper transcript\n" + String.join("\n", zk.lines())
                    + "\n=== ZooKeeper events\n" + String.join("\n", zk.events())
                    + "\n=== normalised Volery transcript\n" + String.join("\n", volery.lines())
                    + "\n=== Volery events\n" + String.join("\n", volery.events())
                    + "\n=== raw ZooKeeper transcript\n" + zk.raw()
                    + "\n=== raw Volery transcript\n" + volery.raw());
        }
    }

    private static String lastCommand(List<String> lines, int at) {
        for (int i = Math.min(at, lines.size() - 1); i >= 0; i--) {
            if (lines.get(i).startsWith("> ")) {
                return "after \"" + lines.get(i).substring(2) + "\"";
            }
        }
        return "before the first command";
    }

    private static Map<String, Integer> multiset(List<String> events) {
        return events.stream().collect(Collectors.toMap(e -> e, e -> 1, Integer::sum, TreeMap::new));
    }
}
