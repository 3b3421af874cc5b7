package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.volery.server.VoleryCluster;
import io.volery.server.config.VoleryConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hadoop's HA failover (HDFS NameNodes, YARN ResourceManagers) elects its active node with
 * {@code ActiveStandbyElector} (hadoop-common 3.4.1) on the ZooKeeper 3.8.4 client, as Hadoop ships them: an
 * ephemeral lock znode, a persistent breadcrumb naming the active node so that a successor fences it, and
 * exists watches. Three participants, each its own JVM (src/test/resources/clients/HadoopElector.java; Maven
 * copies the jars to target/hadoop-elector, off this JVM's class path), run the same scenario against ZooKeeper
 * 3.9.5 and Volery (partitioned by subtree and by hash): the first is active and the others standby; the active one is killed with kill -9, so its
 * session expires and one standby fences it (the breadcrumb names it) before it becomes active; that one then
 * leaves gracefully, and the last becomes active without fencing anyone. Both runs must tell the same story, and
 * the znodes left must be the same.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HadoopElectorTest extends VoleryBesideZooKeeper {
    private static final String PARENT = HadoopParticipant.PARENT;

    @Test
    void failoverFencesTheKilledActiveAndAGracefulHandOverFencesNobody() throws Exception {
        List<String> oracle = scenario(zookeeper.connectString());
        assertEquals(List.of("nn1: ACTIVE", "nn2: STANDBY", "nn3: STANDBY", "nn2 reads the active: nn1", "kill -9 nn1",
                "successor: FENCE nn1", "successor: ACTIVE", "other reads the active: successor", "successor quits",
                "successor: QUIT", "other: ACTIVE", "then nothing else",
                "znodes: [ActiveBreadCrumb, ActiveStandbyElectorLock], the breadcrumb names other"), oracle,
                "the scenario against ZooKeeper 3.9.5");
        assertEquals(oracle, scenario(cluster.connectString()), "Volery (by subtree) against ZooKeeper 3.9.5's story");
        try (VoleryCluster hashed = new VoleryCluster(2, 3, 0, 500,
                o -> o.withPartitioning(VoleryConfig.Partitioning.HASH))) {
            assertEquals(oracle, scenario(hashed.connectString()), "Volery (by hash) against ZooKeeper 3.9.5's story");
        }
    }

    /** The scenario's transcript, naming the standby that took over "successor" and the last one "other". */
    private static List<String> scenario(String connectString) throws Exception {
        List<String> transcript = new ArrayList<>();
        try (HadoopParticipant nn1 = new HadoopParticipant(connectString, "nn1");
                HadoopParticipant nn2 = new HadoopParticipant(connectString, "nn2");
                HadoopParticipant nn3 = new HadoopParticipant(connectString, "nn3")) {
            nn1.start();
            transcript.add("nn1: " + nn1.next());
            nn2.start();
            transcript.add("nn2: " + nn2.next());
            nn3.start();
            transcript.add("nn3: " + nn3.next());
            nn2.send("active");
            transcript.add("nn2 reads the active: " + nn2.next().replace("ACTIVE-IS ", ""));

            nn1.kill();
            transcript.add("kill -9 nn1");
            // its session expires (4 s), its lock goes, and one standby takes over
            HadoopParticipant successor = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (successor == null && System.nanoTime() < deadline) {
                for (HadoopParticipant p : List.of(nn2, nn3)) {
                    if (!p.lines.isEmpty()) {
                        successor = p;
                        break;
                    }
                }
                Thread.sleep(20);
            }
            assertNotNull(successor, "a standby took over within 60 s of the kill");
            HadoopParticipant other = successor == nn2 ? nn3 : nn2;
            transcript.add("successor: " + successor.next());
            transcript.add("successor: " + successor.next());
            other.send("active");
            transcript.add("other reads the active: " + other.next().replace("ACTIVE-IS ", "").replace(successor.name,
                    "successor"));

            successor.send("quit");
            transcript.add("successor quits");
            transcript.add("successor: " + successor.next());
            transcript.add("other: " + other.next());
            Thread.sleep(1000);
            List<String> extra = new ArrayList<>();
            for (HadoopParticipant p : List.of(nn2, nn3)) {
                for (String line = p.lines.poll(); line != null; line = p.lines.poll()) {
                    extra.add(p.name + ": " + line);
                }
            }
            transcript.add(extra.isEmpty() ? "then nothing else" : "then " + extra);

            try (ZooKeeper zk = Clients.zooKeeper(connectString, 10_000, null)) {
                List<String> children = new ArrayList<>(zk.getChildren(PARENT, false));
                children.sort(null);
                String named = new String(zk.getData(PARENT + "/ActiveBreadCrumb", false, null), StandardCharsets.UTF_8);
                transcript.add("znodes: " + children + ", the breadcrumb names " + (named.equals(other.name) ? "other" : named));
            }
        }
        return transcript;
    }
}
