package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.config.VoleryConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * kazoo 2.11's recipes (Python, from PyPI, unmodified) against a 2-partition x 3-replica Volery, partitioned
 * by subtree and by hash: locks, read/write locks, semaphore, election, counter, barriers, queues, parties,
 * set partitioner, tree cache, watchers and leases. Each recipe lives under its own top-level path, and several
 * kazoo sessions contend from threads; the script (clients/kazoo_recipes.py) prints one line per check, and
 * these are the lines ZooKeeper's semantics require (a standalone ZooKeeper 3.9.5 prints exactly these).
 * The venv ({@link KazooVenv}) is shared with the other kazoo tests; a machine that cannot build it skips
 * the test, saying why.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KazooRecipesTest {
    /** What the script prints against a ZooKeeper ensemble, whatever the partitioning behind it. */
    static final List<String> EXPECTED = List.of(
            "lock max holders 1 total 12",
            "lock c0 acquired True",
            "lock contenders c0,c1,c2",
            "lock non-blocking acquire while held False",
            "lock acquire with a timeout while held: LockTimeout",
            "lock c1,c2 still waiting True True",
            "lock passed to c1 True c2 still waiting True",
            "lock passed to c2 True",
            "lock contenders c2",
            "lock contenders after release none",
            "readers hold together True True",
            "rw contenders r1,r2,w",
            "writer waits for the readers True",
            "writer waits for the second reader True",
            "writer acquired after both readers released True",
            "reader while a writer holds: LockTimeout",
            "reader waits for the writer True",
            "reader acquired after the writer released True",
            "semaphore s0 s1 acquire True True",
            "semaphore lease holders s0,s1",
            "semaphore s2 non-blocking acquire while full False",
            "semaphore s3 waits while full True",
            "semaphore s3 acquired after s0 released True",
            "semaphore lease holders s1,s3",
            "semaphore lease holders after release none",
            "semaphore 4 contenders max holders 2 total 8",
            "election contenders e0,e1,e2",
            "election first leader e0",
            "second leader is a different client True e1",
            "election leaders so far e0,e1",
            "election contenders e1,e2",
            "election leaders e0,e1,e2",
            "election contenders at the end none",
            "counter after 4 x 5 concurrent increments 20",
            "counter minus 3 17 pre 20 post 17",
            "float counter 3.5",
            "barrier wait when there is no barrier True",
            "barrier wait with a timeout while up False",
            "barrier waiters blocked while up True True",
            "barrier removed: waiters released True True",
            "double barrier participating [True, True, True]",
            "double barrier members arrived when each entered [3, 3, 3]",
            "double barrier members leaving when each left [3, 3, 3]",
            "double barrier children after none",
            "queue length 5",
            "queue priority and fifo order high,a,b,c,low",
            "queue get when empty None length 0",
            "queue 3 consumers got 24 distinct 24 all items True left 0",
            "locking queue length 4",
            "locking queue get urgent again without consume urgent",
            "locking queue second consumer gets x1 holds lock True",
            "locking queue release True holds lock False",
            "locking queue released entry taken again urgent",
            "locking queue consume True True consume with nothing held False",
            "locking queue length 2",
            "locking queue closing session took x2",
            "locking queue next while x2 is locked x3",
            "locking queue entry of the closed session x2",
            "locking queue consume True True length 0",
            "locking queue get with a timeout on an empty queue None",
            "locking queue 3 consumers got 15 distinct 15 all items True left 0",
            "Party members m0,m1,m2 len 3",
            "Party after m1 left m0,m2 len 2",
            "Party after all left none len 0",
            "ShallowParty members m0,m1,m2 len 3",
            "ShallowParty after m1 left m0,m2 len 2",
            "ShallowParty after all left none len 0",
            "partitioner p0 a,c,e p1 b,d union is the set True overlap none",
            "partitioner p1 finished True",
            "partitioner p0 alone a,b,c,d,e",
            "treecache ADDED /kr-tree root",
            "treecache INITIALIZED",
            "treecache ADDED /kr-tree/a 1",
            "treecache ADDED /kr-tree/a/b 2",
            "treecache ADDED /kr-tree/a/b/c 3",
            "treecache UPDATED /kr-tree/a/b 22",
            "treecache UPDATED /kr-tree/a 11",
            "treecache get_data 22 children of a b",
            "treecache REMOVED /kr-tree/a/b/c 3",
            "treecache ADDED /kr-tree/z 9",
            "treecache REMOVED /kr-tree/a/b 22",
            "treecache REMOVED /kr-tree/a 11",
            "treecache no further events True faults 0",
            "treecache children of the root z",
            "datawatch initial None None",
            "datawatch after create v1 0",
            "datawatch after set v2 1",
            "datawatch after delete None None",
            "datawatch after re-create stop 0",
            "datawatch stopped after its function returned False True",
            "childrenwatch initial none",
            "childrenwatch c1",
            "childrenwatch c1,c2",
            "childrenwatch c2",
            "childrenwatch c2,stop",
            "childrenwatch stopped after its function returned False True",
            "lease h1 True h2 False h1 renews True h2 after h1's expired True h1 now False",
            "lease race winners 1",
            "multi lease of 2 for m0,m1,m2 [True, True, False] m0 renews True",
            "multi lease holders m0,m1",
            "multi lease m2 after the others expired True",
            "done");

    @Test
    void kazooRecipesAgainstSubtreePartitioning() throws Exception {
        runRecipes(VoleryConfig.Partitioning.SUBTREE);
    }

    @Test
    void kazooRecipesAgainstHashPartitioning() throws Exception {
        runRecipes(VoleryConfig.Partitioning.HASH);
    }

    private static void runRecipes(VoleryConfig.Partitioning partitioning) throws Exception {
        // here, not in a @BeforeAll: Surefire reports a test skipped there as no test at all, without the reason
        Path python = KazooVenv.python("kazoo", "kazoo==2.11.*");
        Path script = Files.createTempFile("kazoo_recipes", ".py");
        try (var in = KazooRecipesTest.class.getResourceAsStream("/clients/kazoo_recipes.py");
             VoleryCluster cluster = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning))) {
            Files.write(script, in.readAllBytes());
            Outcome o = run(List.of(python.toString(), script.toString(), cluster.connectString()), 150);
            List<String> lines = o.stdout().lines().toList();
            assertEquals(0, o.exit(), partitioning + ": kazoo recipes script exit status; its output:\n" + o.output());
            assertEquals(EXPECTED, lines, partitioning + ": kazoo recipes against Volery; full output:\n" + o.output());
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
