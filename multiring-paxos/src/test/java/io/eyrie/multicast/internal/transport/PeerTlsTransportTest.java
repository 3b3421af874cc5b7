package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.DevCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutual TLS between nodes (ADR 061) on real sockets: nodes with certificates of the cluster's CA exchange
 * messages in order; a node whose certificate the CA did not sign, or one speaking plain TCP, gets nothing
 * through to a TLS node, and the refusals are counted; what a TLS node puts on the wire is TLS. With host
 * name verification (ADR 065, the default) a certificate of the CA for another host than the cluster file
 * gives its node gets nothing through either way; without it, it does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeerTlsTransportTest {
    private static final int MAX_FRAME = 64 * 1024;
    private static final String PASSWORD = "eyrie-test";
    /** How long a refused sender is given to get a message through: several redials. */
    private static final long REFUSED_MILLIS = 3_000;

    @TempDir
    static Path dir;
    static DevCertificates certificates;

    private final List<NettyTransport> started = new ArrayList<>();

    @BeforeAll
    static void stores() throws Exception {
        certificates = DevCertificates.create(dir.resolve("ca"), PASSWORD);
        certificates.signed("node", "CN=eyrie node"); // localhost and 127.0.0.1
        for (int i = 1; i <= 3; i++) {
            certificates.signed("host" + i, "CN=eyrie node " + i, "ip:127.0.0." + i);
        }
        certificates.signed("rotated", "CN=eyrie node rotated");
        certificates.signed("elsewhere", "CN=eyrie node", "dns:node.elsewhere.example");
        certificates.selfSigned("stranger", "CN=stranger");
    }

    @AfterEach
    void closeAll() {
        started.forEach(NettyTransport::close);
    }

    /** TLS lines for a node presenting {@code store}'s certificate and trusting the cluster's CA. */
    static String[] tls(String store) {
        return TestCluster.tls(certificates, store, PASSWORD);
    }

    private NettyTransport start(ClusterConfig config, int id, Inbox inbox) {
        NettyTransport t = new NettyTransport(config, id, MAX_FRAME, TransportOptions.defaults()
                .withReconnectMillis(20, 200));
        started.add(t);
        t.start(inbox);
        return t;
    }

    @Test
    void nodesOfTheClustersCaExchangeMessagesInOrderOverTls() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(3), tls("node"));
        Inbox[] inbox = {null, new Inbox(), new Inbox(), new Inbox()};
        NettyTransport[] node = new NettyTransport[4];
        for (int id = 1; id <= 3; id++) {
            node[id] = start(config, id, inbox[id]);
        }
        int perPeer = 2000;
        for (int seq = 0; seq < perPeer; seq++) {
            for (int from = 1; from <= 3; from++) {
                for (int to = 1; to <= 3; to++) {
                    if (to != from) {
                        assertTrue(node[from].send(to, Inbox.message(seq, 4 + seq % 3000)), "send " + seq + " was dropped");
                    }
                }
            }
        }
        for (int to = 1; to <= 3; to++) {
            for (int from = 1; from <= 3; from++) {
                if (to != from) {
                    inbox[to].awaitCount(from, perPeer, Duration.ofSeconds(30));
                    assertEquals(Inbox.range(0, perPeer), inbox[to].from(from), "at node " + to + " from node " + from);
                }
            }
        }
        for (int id = 1; id <= 3; id++) {
            assertEquals(0, node[id].tlsHandshakeFailures(), "failed handshakes at node " + id);
        }
    }

    @Test
    void aNodeWhoseCertificateTheCaDidNotSignGetsNothingThrough() throws Exception {
        int[] ports = TestCluster.freePorts(3);
        ClusterConfig member = TestCluster.config(ports, tls("node"));
        Inbox one = new Inbox();
        Inbox two = new Inbox();
        NettyTransport n1 = start(member, 1, one);
        NettyTransport n2 = start(member, 2, two);
        // node 3 trusts the CA but presents a certificate it signed itself
        NettyTransport n3 = start(TestCluster.config(ports, tls("stranger")), 3, new Inbox());
        for (int seq = 0; seq < 20; seq++) {
            n3.send(1, Inbox.message(seq, 16));
            n2.send(1, Inbox.message(seq, 16));
            Thread.sleep(REFUSED_MILLIS / 20);
        }
        one.awaitCount(2, 20, Duration.ofSeconds(10));
        assertEquals(List.of(), one.from(3), "node 1 took messages from a node without the cluster's certificate");
        assertTrue(n1.tlsHandshakeFailures() >= 1, "node 1 counted no failed handshake");
    }

    /** Nodes 1..3 at 127.0.0.1..3, node i presenting {@code stores[i - 1]}'s certificate; {@code extra} lines appended. */
    private static ClusterConfig[] onThreeHosts(int[] ports, String[] stores, String... extra) {
        ClusterConfig[] configs = new ClusterConfig[4];
        for (int id = 1; id <= 3; id++) {
            StringBuilder text = new StringBuilder();
            for (int i = 1; i <= 3; i++) {
                text.append("node.").append(i).append(" = 127.0.0.").append(i).append(':').append(ports[i - 1]).append('\n');
            }
            text.append("ring.0.acceptors = 1,2,3\nring.all = 0\n");
            for (String line : tls(stores[id - 1])) {
                text.append(line).append('\n');
            }
            for (String line : extra) {
                text.append(line).append('\n');
            }
            configs[id] = ClusterConfig.parse(text.toString(), "node " + id + "'s cluster file");
        }
        return configs;
    }

    /**
     * Starts nodes 1..3 of {@code config} and sends 20 messages 3 to 1, 1 to 3 and 2 to 1, {@code pauseMillis}
     * apart (so that refused senders redial in between).
     */
    private NettyTransport[] threeNodesSending(ClusterConfig[] config, Inbox one, Inbox three, long pauseMillis)
            throws InterruptedException {
        NettyTransport n1 = start(config[1], 1, one);
        NettyTransport n2 = start(config[2], 2, new Inbox());
        NettyTransport n3 = start(config[3], 3, three);
        for (int seq = 0; seq < 20; seq++) {
            n3.send(1, Inbox.message(seq, 16)); // accepted by node 1 only if the hello's node 3 may hold its certificate
            n1.send(3, Inbox.message(seq, 16)); // node 1 dials node 3's address and checks the certificate shown
            n2.send(1, Inbox.message(seq, 16));
            Thread.sleep(pauseMillis);
        }
        return new NettyTransport[] {null, n1, n2, n3};
    }

    @Test
    void aNodeWhoseCertificateNamesAnotherHostGetsNothingThroughEitherWay() throws Exception {
        // node 3 holds a certificate of the cluster's CA, but node 2's (for 127.0.0.2), at 127.0.0.3
        ClusterConfig[] config = onThreeHosts(TestCluster.freePorts(3), new String[] {"host1", "host2", "host2"});
        Inbox one = new Inbox();
        Inbox three = new Inbox();
        NettyTransport[] n = threeNodesSending(config, one, three, REFUSED_MILLIS / 20);
        NettyTransport n1 = n[1];
        NettyTransport n2 = n[2];
        one.awaitCount(2, 20, Duration.ofSeconds(10));
        assertEquals(List.of(), one.from(3), "node 1 took messages from a peer claiming node 3 with a certificate for another host");
        assertEquals(List.of(), three.from(1), "node 1 sent to a peer at node 3's address whose certificate names another host");
        assertTrue(n1.tlsHandshakeFailures() >= 2, "node 1 counted " + n1.tlsHandshakeFailures() + " refusals, not both ways");
        assertEquals(0, n2.tlsHandshakeFailures(), "node 2 refused a peer whose certificate names its host");
    }

    @Test
    void withoutHostNameVerificationAnyCertificateOfTheCaIsAMember() throws Exception {
        // the same placement as above, and a certificate for no host of the cluster at all on node 2
        ClusterConfig[] config = onThreeHosts(TestCluster.freePorts(3), new String[] {"host1", "elsewhere", "host2"},
                "ssl.quorum.hostnameVerification = false");
        Inbox one = new Inbox();
        Inbox three = new Inbox();
        NettyTransport[] n = threeNodesSending(config, one, three, 0);
        NettyTransport n1 = n[1];
        NettyTransport n3 = n[3];
        one.awaitCount(3, 20, Duration.ofSeconds(20));
        one.awaitCount(2, 20, Duration.ofSeconds(20));
        three.awaitCount(1, 20, Duration.ofSeconds(20));
        assertEquals(Inbox.range(0, 20), one.from(3));
        assertEquals(Inbox.range(0, 20), three.from(1));
        assertEquals(0, n1.tlsHandshakeFailures() + n3.tlsHandshakeFailures(), "a refusal without host name verification");
    }

    @Test
    void aPlainTcpNodeGetsNothingThroughEitherWay() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        Inbox one = new Inbox();
        Inbox plainInbox = new Inbox();
        NettyTransport n1 = start(TestCluster.config(ports, tls("node")), 1, one);
        NettyTransport plain = start(TestCluster.config(ports), 2, plainInbox);
        for (int seq = 0; seq < 20; seq++) {
            plain.send(1, Inbox.message(seq, 16));
            n1.send(2, Inbox.message(seq, 16));
            Thread.sleep(REFUSED_MILLIS / 20);
        }
        assertEquals(List.of(), one.from(2), "the TLS node took messages over plain TCP");
        assertEquals(List.of(), plainInbox.from(1), "the plain node read messages of a TLS connection");
        assertTrue(n1.tlsHandshakeFailures() >= 1, "node 1 counted no failed handshake");
    }

    /**
     * A connection that closes before its handshake ends (a TCP health check, a port scan, a peer killed
     * mid-handshake) is counted as abandoned, not as a failed handshake (ADR 094); the node still talks TLS.
     */
    @Test
    void aConnectionClosedBeforeItsHandshakeIsAbandonedNotFailed() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        Inbox two = new Inbox();
        NettyTransport n1 = start(TestCluster.config(ports, tls("node")), 1, new Inbox());
        for (int i = 0; i < 3; i++) {
            try (Socket probe = new Socket("127.0.0.1", ports[0])) {
                probe.setSoLinger(i == 0, 0); // the first one resets, the others close
            }
        }
        awaitAbandoned(n1, 3);
        assertEquals(3, n1.tlsHandshakesAbandoned(), "probes counted as abandoned handshakes");
        assertEquals(0, n1.tlsHandshakeFailures(), "a probe counted as a failed handshake");
        NettyTransport n2 = start(TestCluster.config(ports, tls("node")), 2, two);
        n1.send(2, Inbox.message(1, 16));
        two.awaitCount(1, 1, Duration.ofSeconds(10));
        assertEquals(0, n1.tlsHandshakeFailures() + n2.tlsHandshakeFailures(), "failed handshakes after the probes");
    }

    /**
     * A connection that sends nothing is closed by the node's hello timeout (5 s, before Netty's 10 s handshake
     * timeout); its handshake is abandoned too (ADR 094), not failed.
     */
    @Test
    void aSilentConnectionIsClosedAsAnAbandonedHandshake() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        NettyTransport n1 = start(TestCluster.config(ports, tls("node")), 1, new Inbox());
        try (Socket silent = new Socket("127.0.0.1", ports[0])) {
            silent.setSoTimeout(30_000);
            assertEquals(-1, silent.getInputStream().read(), "the node wrote to a client that never said hello");
        }
        awaitAbandoned(n1, 1);
        assertEquals(1, n1.tlsHandshakesAbandoned(), "the silent connection's handshake");
        assertEquals(0, n1.tlsHandshakeFailures(), "a silent connection counted as a failed handshake");
    }

    /** Waits (at most 10 s) until {@code t} counts {@code n} abandoned handshakes: it counts on its event loop. */
    private static void awaitAbandoned(NettyTransport t, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.tlsHandshakesAbandoned() < n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    @Test
    void aPeerThatRestartsIsDialledAgainOverTls() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2), tls("node"));
        NettyTransport n1 = start(config, 1, new Inbox());
        Inbox before = new Inbox();
        NettyTransport n2 = start(config, 2, before);
        n1.send(2, Inbox.message(1, 32));
        before.awaitCount(1, 1, Duration.ofSeconds(10));
        n2.close(); // the peer goes away: node 1's connection breaks
        started.remove(n2);
        Inbox after = new Inbox();
        start(config, 2, after); // and comes back on the same port, with a new TLS session to make
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int seq = 2;
        while (after.from(1).isEmpty() && System.nanoTime() < deadline) {
            n1.send(2, Inbox.message(seq++, 32)); // sends while the link redials may be dropped: keep sending
            Thread.sleep(50);
        }
        assertTrue(!after.from(1).isEmpty(), "node 1 never got a message through to the restarted node 2");
        assertEquals(0, n1.tlsHandshakeFailures(), "the redial's handshake failed");
    }

    @Test
    void whatANodeDialsWithIsATlsHandshake() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int[] ports = {TestCluster.freePorts(1)[0], fake.getLocalPort()};
            NettyTransport n1 = start(TestCluster.config(ports, tls("node")), 1, new Inbox());
            n1.send(2, Inbox.message(7, 64));
            fake.setSoTimeout(10_000);
            try (Socket s = fake.accept()) {
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                // a TLS record of type handshake (22), version 3.x: a ClientHello, not Eyrie's frame magic
                assertEquals(0x16, in.read(), "first byte on the wire");
                assertEquals(0x03, in.read(), "record version major");
            }
        }
    }

    /** The subject of the certificate the node listening on 127.0.0.1:{@code port} presents to a new connection. */
    private static String presentedSubject(int port) throws Exception {
        io.eyrie.multicast.PeerTls asker = new io.eyrie.multicast.PeerTls(
                new io.eyrie.multicast.TlsStore(certificates.store("node"), PASSWORD.toCharArray(), null),
                new io.eyrie.multicast.TlsStore(certificates.trustStore(), PASSWORD.toCharArray(), null), List.of(), List.of());
        try (javax.net.ssl.SSLSocket s = asker.dial(new Socket("127.0.0.1", port), "127.0.0.1", port)) {
            return ((java.security.cert.X509Certificate) s.getSession().getPeerCertificates()[0])
                    .getSubjectX500Principal().getName();
        }
    }

    /**
     * Starts two nodes; node 1's key store is a copy at {@code live}, and {@code extra} lines go to its cluster
     * file, which {@code node1Config[0]} gets.
     */
    private NettyTransport[] twoNodesWithALiveStore(int[] ports, Path live, Inbox one, Inbox two, ClusterConfig[] node1Config,
                                                    String... extra) throws Exception {
        java.nio.file.Files.copy(certificates.store("node"), live);
        List<String> lines = new ArrayList<>(List.of(tls("node")));
        lines.set(1, "ssl.quorum.keyStore.location = " + live);
        lines.addAll(List.of(extra));
        node1Config[0] = TestCluster.config(ports, lines.toArray(String[]::new));
        NettyTransport n1 = start(node1Config[0], 1, one);
        NettyTransport n2 = start(TestCluster.config(ports, tls("node")), 2, two);
        return new NettyTransport[] {null, n1, n2};
    }

    @Test
    void changedStoresAreTakenUpByNewConnectionsWithoutARestart() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        Path live = dir.resolve("live-" + System.nanoTime() + ".p12");
        Inbox one = new Inbox();
        Inbox two = new Inbox();
        ClusterConfig[] config = new ClusterConfig[1];
        NettyTransport[] n = twoNodesWithALiveStore(ports, live, one, two, config, "sslQuorumReloadCertFiles = true");
        io.eyrie.multicast.StoreReloader<?> stores = config[0].peerTls().stores();
        assertEquals("CN=eyrie node", presentedSubject(ports[0]));
        n[1].send(2, Inbox.message(0, 16));
        n[2].send(1, Inbox.message(0, 16));
        two.awaitCount(1, 1, Duration.ofSeconds(10));
        one.awaitCount(2, 1, Duration.ofSeconds(10));

        // a store half written (or with another password) is not taken: the node keeps its certificate
        java.nio.file.Files.write(live, new byte[] {0x30, 0x01, 0x02});
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (stores.failures() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(1, stores.failures(), "the unusable store was not noticed");
        assertEquals("CN=eyrie node", presentedSubject(ports[0]), "an unusable store replaced a good one");

        // the rotated store: new connections present it, the links already made go on carrying messages
        java.nio.file.Files.copy(certificates.store("rotated"), live, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        String subject = presentedSubject(ports[0]);
        while (!subject.equals("CN=eyrie node rotated") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            subject = presentedSubject(ports[0]);
        }
        assertEquals("CN=eyrie node rotated", subject, "the changed store was not taken up");
        assertEquals(1, stores.reloads());
        for (int seq = 1; seq <= 20; seq++) {
            n[1].send(2, Inbox.message(seq, 16));
            n[2].send(1, Inbox.message(seq, 16));
        }
        two.awaitCount(1, 21, Duration.ofSeconds(10));
        one.awaitCount(2, 21, Duration.ofSeconds(10));
        assertEquals(Inbox.range(0, 21), two.from(1));
        assertEquals(Inbox.range(0, 21), one.from(2));
    }

    @Test
    void withoutReloadingAChangedStoreWaitsForARestart() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        Path live = dir.resolve("still-" + System.nanoTime() + ".p12");
        ClusterConfig[] config = new ClusterConfig[1];
        twoNodesWithALiveStore(ports, live, new Inbox(), new Inbox(), config);
        java.nio.file.Files.copy(certificates.store("rotated"), live, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Thread.sleep(3 * io.eyrie.multicast.StoreReloader.POLL_MILLIS + 500); // three looks, had it been watched
        assertEquals("CN=eyrie node", presentedSubject(ports[0]));
        assertEquals(0, config[0].peerTls().stores().reloads());
    }
}
