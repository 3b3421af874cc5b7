package io.eyrie.multicast;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterConfigTest {

    static final String THREE_NODES = """
            # two group rings plus ALL over three nodes
            node.1 = 127.0.0.1:7001
            node.2 = 127.0.0.1:7002
            node.3 = 127.0.0.1:7003
            node.4 = 127.0.0.1:7004
            node.1.groups = 1
            node.2.groups = 2
            node.3.groups = 1,2
            ring.1.acceptors = 1,2,3
            ring.2.acceptors = 3,2,1
            ring.0.acceptors = 1,2,3
            group.1.ring = 1
            group.2.ring = 2
            ring.all = 0
            merge.slotsPerRound = 2
            storage = durable
            """;

    @Test
    void aRunningClusterCanTakeUpOtherAddressesAndNothingElse() {
        ClusterConfig running = ClusterConfig.parse(THREE_NODES, "a.cfg");
        assertEquals(java.util.List.of(), running.differencesBesidesAddresses(ClusterConfig.parse(
                THREE_NODES.replace("node.3 = 127.0.0.1:7003", "node.3 = 127.0.0.9:7103"), "b.cfg")));
        assertEquals(java.util.List.of("ring.2.acceptors [3, 2, 1] become [3, 1, 2]"), running.differencesBesidesAddresses(
                ClusterConfig.parse(THREE_NODES.replace("ring.2.acceptors = 3,2,1", "ring.2.acceptors = 3,1,2"), "b.cfg")));
        assertEquals(java.util.List.of("node.3.groups [1, 2] becomes [1]"), running.differencesBesidesAddresses(
                ClusterConfig.parse(THREE_NODES.replace("node.3.groups = 1,2", "node.3.groups = 1"), "b.cfg")));
        java.util.List<String> d = running.differencesBesidesAddresses(ClusterConfig.parse(
                THREE_NODES.replace("merge.slotsPerRound = 2", "merge.slotsPerRound = 3"), "b.cfg"));
        assertEquals(1, d.size(), d.toString());
        assertTrue(d.get(0).startsWith("parameters "), d.toString());
        d = running.differencesBesidesAddresses(ClusterConfig.parse(THREE_NODES + "node.5 = 127.0.0.1:7005\n", "b.cfg"));
        assertEquals(java.util.List.of("nodes [1, 2, 3, 4] become [1, 2, 3, 4, 5]"), d);
    }

    @Test
    void learnersAreDerivedFromGroupsAndAllRingIsLearnedByEveryGroupMember() {
        ClusterConfig c = ClusterConfig.parse(THREE_NODES, "test.cfg");
        assertArrayEquals(new int[] {1, 3}, c.ring(1).learners());
        assertArrayEquals(new int[] {2, 3}, c.ring(2).learners());
        assertArrayEquals(new int[] {1, 2, 3}, c.ring(0).learners(), "node 4 has no groups: a pure proposer");
        assertArrayEquals(new int[] {3, 2, 1}, c.ring(2).acceptors(), "ring order is the file's order");
        assertArrayEquals(new int[] {0, 1}, c.ringsLearnedBy(1));
        assertEquals(2, c.ring(1).quorum());
        assertEquals(2, c.parameters().slotsPerRound());
        assertEquals(ClusterConfig.StorageMode.DURABLE, c.parameters().storage());
    }

    @Test
    void oneGroupGoesToItsRingSeveralGroupsGoToAll() {
        ClusterConfig c = ClusterConfig.parse(THREE_NODES, "test.cfg");
        assertEquals(1, c.ringFor(new int[] {1}));
        assertEquals(2, c.ringFor(new int[] {2}));
        assertEquals(0, c.ringFor(new int[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> c.ringFor(new int[] {9}));
        assertThrows(IllegalArgumentException.class, () -> c.ringFor(new int[0]));
    }

    @Test
    void errorsNameTheFileLineAndKey() {
        ClusterConfig.ConfigException e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES + "batch.maxByts = 10\n", "test.cfg"));
        assertTrue(e.getMessage().contains("test.cfg:17: batch.maxByts: unknown key"), e.getMessage());

        e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES.replace("ring.1.acceptors = 1,2,3", "ring.1.acceptors = 1,2,9"), "t"));
        assertTrue(e.getMessage().contains("ring.1.acceptors names node 9"), e.getMessage());

        e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES.replace("node.2 = 127.0.0.1:7002", "node.2 = 127.0.0.1:x"), "t"));
        assertTrue(e.getMessage().contains("t:3: node.2: not a number"), e.getMessage());

        e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES.replace("ring.all = 0", ""), "t"));
        assertTrue(e.getMessage().contains("missing key ring.all"), e.getMessage());

        e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES + "node.1 = 127.0.0.1:1\n", "t"));
        assertTrue(e.getMessage().contains("already set on line 2"), e.getMessage());

        e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES.replace("storage = durable", "storage = tape"), "t"));
        assertTrue(e.getMessage().contains("expected memory or durable"), e.getMessage());
    }

    @Test
    void lingerIsOffByDefault_andBetweenZeroAndOneSecond() {
        assertEquals(0, ClusterConfig.parse(THREE_NODES, "t").parameters().lingerMillis(), "unset: no linger (ADR 087)");
        assertEquals(2, ClusterConfig.parse(THREE_NODES + "ring.lingerMillis = 2\n", "t").parameters().lingerMillis());
        for (String bad : new String[] {"-1", "1001"}) {
            ClusterConfig.ConfigException e = assertThrows(ClusterConfig.ConfigException.class,
                    () -> ClusterConfig.parse(THREE_NODES + "ring.lingerMillis = " + bad + "\n", "t.cfg"));
            assertTrue(e.getMessage().contains("ring.lingerMillis must be in [0, 1000]"), e.getMessage());
        }
        ClusterConfig.ConfigException e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES + "ring.lingerMillis = soon\n", "t.cfg"));
        assertTrue(e.getMessage().contains("ring.lingerMillis: not a number"), e.getMessage());
    }

    @Test
    void memoryMaxBytesIsAutoByDefault_acceptsAutoOrAtLeastOneMebibyte() {
        long auto = ClusterConfig.Parameters.MEMORY_MAX_BYTES_AUTO;
        assertEquals(auto, ClusterConfig.parse(THREE_NODES, "t").parameters().memoryMaxBytes(),
                "unset: the process's logs share a part of the heap (ADR 056)");
        assertEquals(auto, ClusterConfig.parse(THREE_NODES + "storage.memoryMaxBytes = auto\n", "t")
                .parameters().memoryMaxBytes());
        assertEquals(16L << 20, ClusterConfig.parse(THREE_NODES + "storage.memoryMaxBytes = 16777216\n", "t")
                .parameters().memoryMaxBytes());
        ClusterConfig.ConfigException e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES + "storage.memoryMaxBytes = 0\n", "t.cfg"));
        assertTrue(e.getMessage().contains("t.cfg:17: storage.memoryMaxBytes: must be auto or at least 1048576"),
                e.getMessage());
        e = assertThrows(ClusterConfig.ConfigException.class,
                () -> ClusterConfig.parse(THREE_NODES + "storage.memoryMaxBytes = 1000\n", "t.cfg"));
        assertTrue(e.getMessage().contains("storage.memoryMaxBytes must be auto or at least 1048576"), e.getMessage());
    }

    @Test
    void quorumTlsAsZooKeepersKeys(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        DevCertificates c = DevCertificates.create(dir.resolve("ca"), "secret");
        c.signed("node", "CN=node");
        java.nio.file.Files.writeString(dir.resolve("pw.txt"), "secret\n");
        String good = "sslQuorum = true\nssl.quorum.keyStore.location = ca/node.p12\nssl.quorum.keyStore.password = secret\n"
                + "ssl.quorum.trustStore.location = ca/trust.p12\nssl.quorum.trustStore.passwordPath = pw.txt\n";
        java.nio.file.Path file = dir.resolve("cluster.cfg");
        java.nio.file.Files.writeString(file, THREE_NODES + good);
        assertTrue(ClusterConfig.load(file).peerTls() != null, "paths relative to the file, a password file");
        assertTrue(ClusterConfig.load(file).peerTls().verifiesHostnames(), "host names verified by default, as ZooKeeper");
        java.nio.file.Files.writeString(file, THREE_NODES + good + "ssl.quorum.hostnameVerification = False\n");
        assertFalse(ClusterConfig.load(file).peerTls().verifiesHostnames());
        assertFalse(ClusterConfig.load(file).peerTls().reloadsFiles(), "stores read once by default, as ZooKeeper");
        java.nio.file.Files.writeString(file, THREE_NODES + good + "sslQuorumReloadCertFiles = true\n");
        assertTrue(ClusterConfig.load(file).peerTls().reloadsFiles());
        java.nio.file.Files.writeString(file, THREE_NODES + good + "ssl.quorum.ocsp = true\n");
        assertEquals(TlsStore.Revocation.OCSP, ClusterConfig.load(file).peerTls().trustRevocation());
        assertEquals(null, ClusterConfig.parse(THREE_NODES, "t").peerTls(), "plain TCP by default");
        assertEquals(null, ClusterConfig.parse(THREE_NODES + "sslQuorum = false\n", "t").peerTls());

        java.util.Map<String, String> wrong = new java.util.LinkedHashMap<>();
        wrong.put("ssl.quorum.keyStore.location = ca/node.p12\n", "ssl.quorum.keyStore.location: needs sslQuorum = true");
        wrong.put("sslQuorum = yes\n", "sslQuorum: must be true or false");
        wrong.put(good + "ssl.quorum.hostnameVerification = on\n", "ssl.quorum.hostnameVerification: must be true or false");
        wrong.put("ssl.quorum.hostnameVerification = false\n", "ssl.quorum.hostnameVerification: needs sslQuorum = true");
        wrong.put(good + "sslQuorumReloadCertFiles = sometimes\n", "sslQuorumReloadCertFiles: must be true or false");
        wrong.put(good + "ssl.quorum.crl = 1\n", "ssl.quorum.crl: must be true or false");
        wrong.put("sslQuorum = true\nssl.quorum.keyStore.location = ca/node.p12\n", "sslQuorum: needs ssl.quorum.trustStore.location");
        wrong.put(good.replace("ssl.quorum.keyStore.password = secret", "ssl.quorum.keyStore.password = nope"),
                "ssl.quorum.keyStore.location: cannot use key store");
        wrong.put(good.replace("ca/trust.p12", "ca/none.p12"), "ssl.quorum.trustStore.location: no such file");
        wrong.put(good.replace("ca/trust.p12", "ca/ca.pem"), "store type PEM is not supported");
        for (var w : wrong.entrySet()) {
            java.nio.file.Files.writeString(file, THREE_NODES + w.getKey());
            ClusterConfig.ConfigException e = assertThrows(ClusterConfig.ConfigException.class, () -> ClusterConfig.load(file),
                    w.getKey());
            assertTrue(e.getMessage().contains(w.getValue()), "for " + w.getKey() + " got " + e.getMessage());
        }
    }
}
