package io.volery.server.clients;

import io.eyrie.multicast.DevCertificates;
import io.eyrie.multicast.PeerTls;
import io.eyrie.multicast.TlsStore;
import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.admin.FourLetterWordClient;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Volery with mutual TLS between its nodes (sslQuorum, ADR 061): two partitions of three replicas whose
 * rings, signals, exchanges and replies all cross TLS connections. Writes that span both partitions (top-level
 * creates, a multi) and plain ones go through one node; every node then answers the same reads, and reports
 * peer TLS on with no failed handshake.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PeerTlsClusterTest {
    @TempDir
    Path dir;

    @Test
    void aTwoPartitionClusterServesOverTlsBetweenItsNodes() throws Exception {
        DevCertificates ca = DevCertificates.create(dir.resolve("ca"), "volery-test");
        Path node = ca.signed("node", "CN=volery node");
        PeerTls tls = new PeerTls(new TlsStore(node, "volery-test".toCharArray(), null),
                new TlsStore(ca.trustStore(), "volery-test".toCharArray(), null), List.of(), List.of());
        try (VoleryCluster cluster = new VoleryCluster(2, 3, 2000, c -> c.withPeerTls(tls), o -> o)) {
            List<VoleryNode> nodes = cluster.nodes();
            try (ZooKeeper zk = connect(nodes.get(0))) {
                for (int i = 0; i < 6; i++) {
                    zk.create("/tls-" + i, bytes("v" + i), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    zk.create("/tls-" + i + "/child", bytes("c"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                }
                zk.multi(List.of(Op.setData("/tls-0", bytes("m0"), -1), Op.setData("/tls-1", bytes("m1"), -1),
                        Op.setData("/tls-2", bytes("m2"), -1), Op.setData("/tls-3", bytes("m3"), -1)));
            }
            List<String> first = null;
            for (VoleryNode n : nodes) {
                try (ZooKeeper zk = connect(n)) {
                    zk.sync("/", (rc, path, ctx) -> { }, null);
                    List<String> view = new ArrayList<>();
                    List<String> children = new ArrayList<>(zk.getChildren("/", false));
                    Collections.sort(children);
                    for (String c : children) {
                        if (c.startsWith("tls-")) {
                            view.add(c + "=" + new String(zk.getData("/" + c, false, null), StandardCharsets.UTF_8)
                                    + " " + zk.getChildren("/" + c, false));
                        }
                    }
                    if (first == null) {
                        first = view;
                        assertEquals(List.of("tls-0=m0 [child]", "tls-1=m1 [child]", "tls-2=m2 [child]",
                                "tls-3=m3 [child]", "tls-4=v4 [child]", "tls-5=v5 [child]"), view, "node " + n.nodeId());
                    } else {
                        assertEquals(first, view, "node " + n.nodeId() + " against node 1");
                    }
                }
                Map<String, String> mntr = FourLetterWordClient.parseMntr(FourLetterWordClient.ask(n.clientAddress(), "mntr",
                        10_000));
                assertEquals("1", mntr.get("volery_peer_tls").strip(), "node " + n.nodeId() + " peer TLS");
                assertEquals("0", mntr.get("volery_peer_tls_store_reloads").strip(), "node " + n.nodeId() + " reloads");
                assertEquals("0", mntr.get("volery_peer_tls_handshake_failures").strip(), "node " + n.nodeId());
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ZooKeeper connect(VoleryNode n) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(n.clientAddress().getHostString() + ":" + n.clientAddress().getPort(), 10_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        if (!up.await(20, TimeUnit.SECONDS)) {
            zk.close();
            throw new IllegalStateException("no session with node " + n.nodeId());
        }
        return zk;
    }
}
