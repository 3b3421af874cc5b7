package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.volery.server.VoleryCluster;
import io.volery.server.config.VoleryConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache BookKeeper 4.18 (the log store under Pulsar and others) keeps all its metadata in ZooKeeper: the cluster's
 * layout and instance id, each bookie's registration (an ephemeral znode its client watches) and cookie (checked,
 * by version, when a bookie starts), ledger ids from sequential znodes, and each ledger's metadata, changed by
 * compare-and-set on its version when a writer replaces a failed bookie, closes, or is fenced by a reader's
 * recovery. Four bookies and a client, each its own JVM with BookKeeper's own class path (module
 * bookkeeper-classpath; src/test/resources/clients/BookKeeperClient.java), run the same scenario against ZooKeeper
 * 3.9.5 and Volery (partitioned by subtree and by hash): a ledger written, closed and read back; a bookie of its
 * ensemble and of an open ledger's killed with kill -9, the writer carrying on with the spare in its place, the
 * dead bookie's registration gone with its session; autorecovery (an auditor the bookies elect with sequential
 * ephemeral votes, under-replication marks, replication workers' locks) copies the closed ledger's share off the
 * dead bookie; the bookie back when it restarts over its own cookie; the open ledger recovered by a reader, which
 * fences the writer; a ledger deleted. Both must tell the same story and leave the same znodes.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class BookKeeperOnVoleryTest extends VoleryBesideZooKeeper {
    private static final int BOOKIES = 4;
    private static final String ALL = "bookies bk1,bk2,bk3,bk4";

    @Test
    void ledgersSurviveAKilledBookieAndFencingAsOnZooKeeper(@TempDir Path dir) throws Exception {
        List<String> oracle = scenario(zookeeper.connectString(), dir.resolve("zookeeper"));
        assertEquals(List.of("init true", "connected", "bookies bk1,bk2,bk3,bk4", "created a id 0, 3 bookies",
                "wrote a up to entry 99, ensembles 1", "closed a", "read a: last entry 99, 100 entries as written",
                "created b id 1, 3 bookies", "wrote b up to entry 49, ensembles 1", "kill -9 a bookie of a and b",
                "wrote b up to entry 99, ensembles 2, the killed bookie replaced by the spare",
                "bookies: the killed one gone", "a re-replicated off the killed bookie",
                "bookies: the restarted one back", "bookies bk1,bk2,bk3,bk4",
                "read b: last entry 99, 100 entries as written", "error write BKLedgerFencedException", "deleted 0",
                "ledgers [1]", "quit"), oracle.subList(0, oracle.size() - 1), "the scenario against ZooKeeper 3.9.5");
        assertEquals(oracle, scenario(cluster.connectString(), dir.resolve("subtree")),
                "Volery (by subtree) against ZooKeeper 3.9.5's story");
        try (VoleryCluster hashed = new VoleryCluster(2, 3, 0, 500,
                o -> o.withPartitioning(VoleryConfig.Partitioning.HASH))) {
            assertEquals(oracle, scenario(hashed.connectString(), dir.resolve("hash")),
                    "Volery (by hash) against ZooKeeper 3.9.5's story");
        }
    }

    /** The scenario's transcript, bookies named bk1..bk4 by their ports; its last line lists the znodes left. */
    private static List<String> scenario(String connectString, Path dir) throws Exception {
        List<String> t = new ArrayList<>();
        try (BookKeeperNodes bk = new BookKeeperNodes(connectString, dir, BOOKIES)) {
            t.add(bk.ask("init"));
            for (int n = 1; n <= BOOKIES; n++) {
                bk.startBookie(n);
            }
            t.add(bk.ask("connect"));
            t.add(bk.awaitBookies(ALL));
            String createdA = bk.ask("create a");
            t.add(createdA.replaceAll(" ensemble .*", ", 3 bookies"));
            t.add(bk.ask("write a 0 100").replaceAll(", last ensemble .*", ""));
            t.add(bk.ask("close a"));
            t.add(bk.ask("read a 0"));

            String createdB = bk.ask("create b");
            List<String> ensemble = ensemble(createdB);
            t.add(createdB.replaceAll(" ensemble .*", ", 3 bookies"));
            t.add(bk.ask("write b 0 50").replaceAll(", last ensemble .*", ""));
            // a bookie of both ledgers (two ensembles of three out of four bookies share at least two)
            String victim = ensemble.stream().filter(ensemble(createdA)::contains).findFirst().orElseThrow();
            int v = Integer.parseInt(victim.substring(2));
            String spare = IntStream.rangeClosed(1, BOOKIES).mapToObj(BookKeeperNodes::name)
                    .filter(n -> !ensemble.contains(n)).findFirst().orElseThrow();
            bk.killBookie(v);
            t.add("kill -9 a bookie of a and b");
            String wrote = bk.ask("write b 50 50");
            List<String> after = Arrays.asList(wrote.replaceAll(".*, last ensemble ", "").split(","));
            assertFalse(after.contains(victim), "the killed bookie left b's ensemble: " + wrote);
            t.add(wrote.replaceAll(", last ensemble .*", "") + (after.contains(spare)
                    ? ", the killed bookie replaced by the spare" : ", not the spare: " + after));
            // its registration is an ephemeral znode: it goes when the dead bookie's session expires (4 s)
            bk.awaitBookies(ALL.replaceAll(victim + ",?", "").replaceAll(",$", ""));
            t.add("bookies: the killed one gone");
            // the auditor marks the closed ledger a under-replicated, a replication worker copies the killed
            // bookie's share to the bookie a lacked and swaps it into a's ensemble (compare-and-set on a's version)
            List<String> holders = new ArrayList<>(ensemble(createdA));
            holders.remove(victim);
            holders.add(IntStream.rangeClosed(1, BOOKIES).mapToObj(BookKeeperNodes::name)
                    .filter(n -> !ensemble(createdA).contains(n)).findFirst().orElseThrow());
            holders.sort(null);
            bk.await("holders 0", "holders 0 " + String.join(",", holders));
            t.add("a re-replicated off the killed bookie");
            bk.startBookie(v); // over its own directories: its cookie must match
            bk.awaitBookies(ALL);
            t.add("bookies: the restarted one back");
            t.add(bk.bookies());

            t.add(bk.ask("read b 1")); // recovery fences b
            t.add(bk.ask("write b 100 1"));
            t.add(bk.ask("delete 0"));
            t.add(bk.ask("ledgers"));
            t.add(bk.ask("quit"));
            t.add("znodes: " + String.join(" ", znodes(connectString, bk)));
        }
        return t;
    }

    /** The bookies of a "created NAME id N ensemble bkX,bkY,bkZ" answer. */
    private static List<String> ensemble(String created) {
        return Arrays.asList(created.replaceAll(".* ensemble ", "").split(","));
    }

    /**
     * Every znode under BookKeeper's root, bookies by name, sorted; the auditor votes without their numbers, which
     * depend on the order in which the bookies started (the killed one's goes).
     */
    private static List<String> znodes(String connectString, BookKeeperNodes bk) throws Exception {
        try (ZooKeeper zk = Clients.zooKeeper(connectString, 10_000, null)) {
            List<String> znodes = new ArrayList<>();
            list(zk, BookKeeperNodes.ROOT, znodes);
            znodes.replaceAll(z -> bk.named(z).replaceAll("/auditorelection/V_\\d+$", "/auditorelection/V_n"));
            znodes.sort(null);
            return znodes;
        }
    }

    private static void list(ZooKeeper zk, String path, List<String> into) throws Exception {
        into.add(path);
        for (String child : zk.getChildren(path, false)) {
            list(zk, path + "/" + child, into);
        }
    }
}
