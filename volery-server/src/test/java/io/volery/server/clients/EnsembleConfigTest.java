package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.backtoback.EmbeddedZooKeeperEnsemble;
import io.volery.server.config.VoleryConfig;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.EnsembleTracker;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.quorum.flexible.QuorumMaj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code /zookeeper/config} as a ZooKeeper ensemble has it (ADR 097): a real ZooKeeper 3.9.5 ensemble of three
 * servers, configured in the 3.5+ form, is the oracle. Its config node lists every server with its client
 * address; Volery's lists every front end the same way, with the same stat and ACL, so that a client given one
 * address learns the others: Curator's EnsembleTracker does, and then survives the death of the server it was
 * given, keeping its session, against either.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class EnsembleConfigTest {
    @TempDir
    Path dir;

    /** What a client reads of the config node. */
    private record ConfigNode(byte[] data, Stat stat, List<ACL> acl) {
        String text() {
            return new String(data, StandardCharsets.UTF_8);
        }

        /** The fields a server does not choose: all but the mtime (its start) and the length (its addresses). */
        String fixedStat() {
            return "czxid " + stat.getCzxid() + ", mzxid " + stat.getMzxid() + ", pzxid " + stat.getPzxid() + ", ctime "
                    + stat.getCtime() + ", version " + stat.getVersion() + ", cversion " + stat.getCversion()
                    + ", aversion " + stat.getAversion() + ", ephemeralOwner " + stat.getEphemeralOwner() + ", children "
                    + stat.getNumChildren();
        }
    }

    /** The config node through {@code connect} (one server), by ZooKeeper's getConfig; a write to it is refused. */
    private static ConfigNode read(String connect) throws Exception {
        ZooKeeper zk = Clients.zooKeeper(connect, 10_000, null);
        try {
            Stat stat = new Stat();
            byte[] data = zk.getConfig(false, stat);
            List<ACL> acl = zk.getACL("/zookeeper/config", new Stat());
            assertThrows(KeeperException.NoAuthException.class, () -> zk.setData("/zookeeper/config", new byte[] {1}, -1));
            return new ConfigNode(data, stat, acl);
        } finally {
            zk.close();
        }
    }

    /** The client addresses a configuration lists, as Curator's EnsembleTracker reads them. */
    private static Set<String> clientAddresses(ConfigNode node) throws Exception {
        Properties properties = new Properties();
        properties.load(new ByteArrayInputStream(node.data()));
        QuorumMaj config = new QuorumMaj(properties);
        assertEquals(0, config.getVersion(), node.text());
        return new TreeSet<>(Arrays.asList(EnsembleTracker.configToConnectionString(config).split(",")));
    }

    /** A line's shape: its numbers (ids and ports) blanked. */
    private static Set<String> shapes(ConfigNode node) {
        return Arrays.stream(node.text().split("\n", -1)).map(l -> l.replaceAll("[0-9]+", "N")).collect(Collectors.toSet());
    }

    private static Set<String> addresses(String connect) {
        return new TreeSet<>(Arrays.asList(connect.split(",")));
    }

    @Test
    void theConfigNodeListsEveryFrontEndAsAnEnsembleListsItsServers() throws Exception {
        long start = System.currentTimeMillis();
        try (EmbeddedZooKeeperEnsemble zookeeper = new EmbeddedZooKeeperEnsemble(dir, 3)) {
            ConfigNode oracle = read(zookeeper.address(2));
            assertEquals(addresses(zookeeper.connectString()), clientAddresses(oracle), oracle.text());
            for (VoleryConfig.Partitioning partitioning : VoleryConfig.Partitioning.values()) {
                try (VoleryCluster volery = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning))) {
                    for (VoleryNode node : List.of(volery.nodes().get(0), volery.nodes().get(4))) {
                        ConfigNode mine = read("127.0.0.1:" + node.clientAddress().getPort());
                        String what = partitioning + ", through node " + node.nodeId() + ": " + mine.text();
                        assertEquals(addresses(volery.connectString()), clientAddresses(mine), what);
                        assertEquals(shapes(oracle), shapes(mine), what);
                        assertEquals(oracle.fixedStat(), mine.fixedStat(), what);
                        assertEquals(oracle.acl(), mine.acl(), what);
                        assertEquals(mine.data().length, mine.stat().getDataLength(), what);
                        assertTrue(mine.stat().getMtime() >= start && mine.stat().getMtime() <= System.currentTimeMillis(),
                                what + " with mtime " + mine.stat().getMtime());
                    }
                }
            }
        }
    }

    private enum Target { ZOOKEEPER, VOLERY_SUBTREE, VOLERY_HASH }

    /**
     * Curator given one server learns the rest from the config node, and when that server dies (it closes, as
     * a crash does for its clients) reconnects through another with its session, its ephemeral node and all.
     * Against Volery before ADR 097 the config node was empty: Curator knew one front end only and lost its
     * session.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Target.class)
    void curatorGivenOneServerFollowsTheEnsembleWhenThatServerDies(Target system) throws Exception {
        EmbeddedZooKeeperEnsemble zookeeper = null;
        VoleryCluster volery = null;
        try {
            String all;
            String one;
            if (system == Target.ZOOKEEPER) {
                zookeeper = new EmbeddedZooKeeperEnsemble(dir, 3);
                all = zookeeper.connectString();
                one = zookeeper.address(1);
            } else {
                VoleryConfig.Partitioning partitioning = system == Target.VOLERY_HASH ? VoleryConfig.Partitioning.HASH
                        : VoleryConfig.Partitioning.SUBTREE;
                volery = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning));
                all = volery.connectString();
                one = "127.0.0.1:" + volery.nodes().get(0).clientAddress().getPort();
            }
            try (CuratorFramework curator = Clients.curator(one)) {
                Clients.eventually(() -> "Curator learned the ensemble: " + curator.getZookeeperClient().getCurrentConnectionString(),
                        () -> addresses(curator.getZookeeperClient().getCurrentConnectionString()).equals(addresses(all)));
                long session = curator.getZookeeperClient().getZooKeeper().getSessionId();
                curator.create().withMode(CreateMode.EPHEMERAL).forPath("/follower");
                // (the new list may move the client to another server: ZooKeeper's client rebalances; the server it
                // is on when the test looks is the one that dies)
                int server = connectedServer(curator);
                if (zookeeper != null) {
                    zookeeper.stop(1 + Arrays.stream(zookeeper.clientPorts()).boxed().toList().indexOf(server));
                } else {
                    volery.nodes().stream().filter(n -> n.clientAddress().getPort() == server).findFirst()
                            .orElseThrow().close();
                }
                Clients.eventually("Curator reconnected to a server other than " + server, () -> {
                    int now = currentServer(curator);
                    return now != -1 && now != server;
                });
                assertEquals(session, curator.getZookeeperClient().getZooKeeper().getSessionId(), "the same session");
                assertNotNull(curator.checkExists().forPath("/follower"), "the session's ephemeral node");
                curator.create().forPath("/written-after", "x".getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            if (zookeeper != null) {
                zookeeper.close();
            }
            if (volery != null) {
                volery.close();
            }
        }
    }

    /** The client port of the server Curator's ZooKeeper client is connected to, once it is connected. */
    private static int connectedServer(CuratorFramework curator) throws Exception {
        int[] port = new int[1];
        Clients.eventually("Curator connected", () -> (port[0] = currentServer(curator)) != -1);
        return port[0];
    }

    /** The client port of the server Curator's ZooKeeper client is connected to now, or -1. */
    private static int currentServer(CuratorFramework curator) {
        try {
            ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
            return zk.getState().isConnected() ? io.volery.server.ServerOfClient.port(zk) : -1;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
