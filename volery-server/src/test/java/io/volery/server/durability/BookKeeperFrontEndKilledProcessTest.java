package io.volery.server.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.admin.FourLetterWordClient;
import io.volery.server.clients.BookKeeperNodes;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * BookKeeper on Volery (see {@code BookKeeperOnVoleryTest}) when a Volery process dies rather than a bookie: the
 * bookies and the client reach Volery through nodes 1 and 4, and the one of them serving more of their sessions
 * is killed with kill -9. As when a ZooKeeper ensemble loses a server, every session moves to the other node within
 * its timeout: no bookie's registration goes (a bookie whose session expired would leave the available list and
 * register again under a new session, and a writer would replace it in its ensembles), the writer carries on, new
 * ledgers get ids and metadata through the moved sessions, and recovery still fences the writer.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class BookKeeperFrontEndKilledProcessTest {
    private static final String ALL = "bookies bk1,bk2,bk3,bk4";

    @Test
    void bookiesKeepTheirSessionsWhenTheVoleryNodeServingThemDies(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 100_000)) {
            cluster.startAll();
            try (BookKeeperNodes bk = new BookKeeperNodes(cluster.connectString(1) + "," + cluster.connectString(4),
                    dir.resolve("bookkeeper"), 4)) {
                assertEquals("init true", bk.ask("init"));
                for (int n = 1; n <= 4; n++) {
                    bk.startBookie(n);
                }
                assertEquals("connected", bk.ask("connect"));
                bk.awaitBookies(ALL);
                assertTrue(bk.ask("create a").startsWith("created a id 0 "));
                assertTrue(bk.ask("write a 0 50").startsWith("wrote a up to entry 49, ensembles 1,"));
                Map<String, Long> registrations = registrations(cluster, bk);
                assertEquals(4, registrations.size(), "four registrations: " + registrations);

                int atOne = sessionsAt(cluster, 1);
                int atFour = sessionsAt(cluster, 4);
                int total = atOne + atFour;
                assertTrue(total >= 7, "the four bookies' and the client's writer, reader and admin sessions at nodes "
                        + "1 and 4: " + atOne + " + " + atFour);
                int serving = atOne >= atFour ? 1 : 4;
                cluster.kill(serving);

                // the writer's bookies are all alive: no ensemble change; the metadata of a new ledger goes through
                // whichever sessions moved
                assertTrue(bk.ask("write a 50 50").startsWith("wrote a up to entry 99, ensembles 1,"),
                        "the writer carried on without replacing a bookie");
                assertTrue(bk.ask("create c").startsWith("created c id 1 "));
                assertTrue(bk.ask("write c 0 10").startsWith("wrote c up to entry 9, ensembles 1,"));
                assertEquals("closed c", bk.ask("close c"));
                Thread.sleep(8_000); // twice the bookies' session timeout: an expired session would show by now
                assertEquals(ALL, bk.bookies());
                assertEquals(registrations, registrations(cluster, bk),
                        "every bookie is still registered by the session it started with");
                assertEquals(total, sessionsAt(cluster, serving == 1 ? 4 : 1), "every session moved to the other node");

                assertEquals("read a: last entry 99, 100 entries as written", bk.ask("read a 0"));
                assertEquals("error write BKLedgerFencedException", bk.ask("write a 100 1"));
                assertEquals("read c: last entry 9, 10 entries as written", bk.ask("read c 1"));
                assertEquals("ledgers [0, 1]", bk.ask("ledgers"));
                assertEquals("quit", bk.ask("quit"));
            }
        }
    }

    /** Each bookie's registration znode and the session that holds it, read through node 2. */
    private static Map<String, Long> registrations(ProcessCluster cluster, BookKeeperNodes bk) throws Exception {
        Map<String, Long> owners = new TreeMap<>();
        try (ZooKeeper zk = cluster.session(2)) {
            String available = BookKeeperNodes.ROOT + "/available";
            for (String child : zk.getChildren(available, false)) {
                Stat stat = zk.exists(available + "/" + child, false);
                if (stat != null && stat.getEphemeralOwner() != 0) {
                    owners.put(bk.named(child), stat.getEphemeralOwner());
                }
            }
        }
        return owners;
    }

    /** How many sessions have a connection at node {@code node} ({@code cons}). */
    private static int sessionsAt(ProcessCluster cluster, int node) throws Exception {
        String cons = FourLetterWordClient.ask(cluster.clientAddress(node), "cons", 15_000);
        return cons.split("sid=0x", -1).length - 1;
    }
}
