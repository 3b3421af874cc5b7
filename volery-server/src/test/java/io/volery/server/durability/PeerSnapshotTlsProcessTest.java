package io.volery.server.durability;

import io.eyrie.multicast.DevCertificates;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A durable replica that lost every snapshot takes a peer's over the peer's ring port (ADR 063); with
 * {@code sslQuorum} that is mutual TLS, as between the nodes' own messages. Real processes, killed with
 * kill -9, snapshots deleted from disk. The client port no longer hands out snapshots at all.
 */
class PeerSnapshotTlsProcessTest {
    private static final String PASSWORD = "volery-test";

    @Test
    void aReplicaWithoutSnapshotsFetchesAPeersOverTheTlsRingPort(@TempDir Path dir) throws Exception {
        DevCertificates certificates = DevCertificates.create(dir.resolve("ca"), PASSWORD);
        certificates.signed("node", "CN=volery node");
        String tls = "sslQuorum = true\n"
                + "ssl.quorum.keyStore.location = " + certificates.store("node") + "\n"
                + "ssl.quorum.keyStore.password = " + PASSWORD + "\n"
                + "ssl.quorum.trustStore.location = " + certificates.trustStore() + "\n"
                + "ssl.quorum.trustStore.password = " + PASSWORD + "\n";
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 15, tls)) {
            cluster.startAll();
            AcknowledgedWrites writes = new AcknowledgedWrites();
            try (ZooKeeper zk = AcknowledgedWrites.connect(cluster.connectString())) {
                writes.run(zk, 60);
                ProcessCluster.await("node 5 keeps a snapshot", 30_000, () -> !snapshotsOf(cluster, 5).isEmpty());
                // the old way in: the client port's "snap" word answered a cluster host with the snapshot
                assertTrue(!answersWithASnapshot(cluster, 4), "node 4's client port handed out a snapshot");
                cluster.kill(5);
                for (Path p : snapshotsOf(cluster, 5)) {
                    Files.delete(p); // a lost disk: only a peer can help
                }
                writes.run(zk, 30); // the partition goes on with two replicas
                cluster.start(5);
                Map<String, String> m5 = cluster.mntr(5);
                assertEquals("1", m5.get("volery_snapshots_fetched"), "node 5 should restore a peer's snapshot; mntr: " + m5);
                long served = 0;
                for (int peer : new int[] {4, 6}) {
                    Map<String, String> m = cluster.mntr(peer);
                    served += Long.parseLong(m.get("volery_side_requests_served"));
                    assertEquals("0", m.get("volery_side_requests_refused"), "node " + peer + ": " + m);
                    assertEquals("0", m.get("volery_peer_tls_handshake_failures"), "node " + peer + ": " + m + "; its TLS lines:\n"
                            + String.join("\n", Files.readAllLines(cluster.log(peer)).stream()
                                    .filter(l -> l.contains("TLS") || l.contains("handshake")).toList()));
                }
                assertTrue(served >= 1, "no peer of node 5 answered a side request");
                assertTrue(Files.readString(cluster.log(5)).contains("restored one from a peer"), cluster.tail(5));
                writes.run(zk, 20);
            }
            try (ZooKeeper reader = cluster.session(5)) {
                assertEquals(List.of(), writes.lostWrites(reader), "acknowledged writes lost, read through node 5");
            }
            cluster.assertReplicasAgree(2);
        }
    }

    private static List<Path> snapshotsOf(ProcessCluster cluster, int id) {
        try {
            return cluster.snapshots(id);
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** Whether the client port answers the retired {@code snap} word with more than a closed connection. */
    private static boolean answersWithASnapshot(ProcessCluster cluster, int id) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(cluster.clientAddress(id), 5_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write("snap".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            byte[] got = in.readNBytes(64);
            return got.length >= 4 && java.nio.ByteBuffer.wrap(got).getInt() > 0;
        } catch (java.net.SocketException | java.net.SocketTimeoutException e) {
            return false;
        }
    }
}
