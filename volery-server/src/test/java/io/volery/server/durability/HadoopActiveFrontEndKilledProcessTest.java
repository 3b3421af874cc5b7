package io.volery.server.durability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.admin.FourLetterWordClient;
import io.volery.server.clients.HadoopParticipant;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hadoop HA on Volery (see {@code HadoopElectorTest}) when a Volery process dies rather than a Hadoop one: the
 * Volery node serving the active participant's session is killed with kill -9. As when a ZooKeeper ensemble loses
 * the server of the active NameNode's session, the participant's client reconnects through another node within its
 * session timeout: the elector goes neutral for the moment, finds its lock still held by its session and is
 * active again; nobody fences and no standby takes over (a failover here would be a needless NameNode switch, or with a
 * broken session hand-over two actives until the fence). Then the active participant itself is killed and the
 * election goes on through the surviving nodes: a standby fences it and takes over.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HadoopActiveFrontEndKilledProcessTest {

    @Test
    void theActiveParticipantKeepsItsLockWhenTheVoleryNodeServingItDies(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 100_000)) {
            cluster.startAll();
            // the active one's client knows nodes 1 and 4, the standbys' nodes 2, 3, 5 and 6; which of 1 and 4
            // serves the active one's session, cons says (the lock's owner)
            String standbys = cluster.connectString(2) + "," + cluster.connectString(3) + "," + cluster.connectString(5)
                    + "," + cluster.connectString(6);
            try (HadoopParticipant nn1 = new HadoopParticipant(cluster.connectString(1) + "," + cluster.connectString(4),
                    "nn1");
                    HadoopParticipant nn2 = new HadoopParticipant(standbys, "nn2");
                    HadoopParticipant nn3 = new HadoopParticipant(standbys, "nn3")) {
                nn1.start();
                assertEquals("ACTIVE", nn1.next());
                nn2.start();
                assertEquals("STANDBY", nn2.next());
                nn3.start();
                assertEquals("STANDBY", nn3.next());
                long lockOwner = lockOwner(cluster);

                int serving = holds(cluster, 1, lockOwner) ? 1 : 4;
                assertTrue(holds(cluster, serving, lockOwner), "node 1 or 4 serves nn1's session");
                cluster.kill(serving);
                assertEquals("NEUTRAL", nn1.next(), "nn1's client lost its connection");
                int other = serving == 1 ? 4 : 1;
                ProcessCluster.await("nn1's client reconnected through node " + other, 30_000,
                        () -> holds(cluster, other, lockOwner));
                // reconnected, the elector finds the lock still its session's and becomes active again (fencing
                // nobody: the breadcrumb names itself)
                assertEquals("ACTIVE", nn1.next(), "nn1 active again after the reconnect");
                Thread.sleep(6000); // longer than the session timeout: had the session gone, a standby would take over
                nn2.send("active");
                assertEquals("ACTIVE-IS nn1", nn2.next(), "nn2 reads the breadcrumb");
                assertEquals(lockOwner, lockOwner(cluster), "the lock is still held by nn1's session");
                List<String> said = new ArrayList<>();
                for (HadoopParticipant p : List.of(nn1, nn2, nn3)) {
                    p.lines.forEach(l -> said.add(p.name + ": " + l));
                }
                assertEquals(List.of(), said, "nobody fenced, took over or went neutral again");

                nn1.kill();
                HadoopParticipant successor = null;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (successor == null && System.nanoTime() < deadline) {
                    successor = !nn2.lines.isEmpty() ? nn2 : !nn3.lines.isEmpty() ? nn3 : null;
                    Thread.sleep(20);
                }
                assertNotNull(successor, "a standby took over within 60 s of nn1's kill");
                assertEquals("FENCE nn1", successor.next());
                assertEquals("ACTIVE", successor.next());
                assertEquals(List.of(), List.copyOf((successor == nn2 ? nn3 : nn2).lines), "the other stays standby");
            }
        }
    }

    /** The session that holds the election's lock, read through node 2. */
    private static long lockOwner(ProcessCluster cluster) throws Exception {
        try (ZooKeeper zk = cluster.session(2)) {
            Stat stat = new Stat();
            byte[] data = zk.getData(HadoopParticipant.PARENT + "/ActiveStandbyElectorLock", false, stat);
            assertTrue(new String(data, StandardCharsets.ISO_8859_1).contains("nn1"), "the lock names nn1");
            return stat.getEphemeralOwner();
        }
    }

    /** Whether a connection of session {@code sessionId} is open at node {@code node} ({@code cons}). */
    private static boolean holds(ProcessCluster cluster, int node, long sessionId) {
        try {
            return FourLetterWordClient.ask(cluster.clientAddress(node), "cons", 15_000)
                    .contains("sid=0x" + Long.toHexString(sessionId) + ",");
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
