package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.admin.FourLetterWordClient;
import io.volery.server.frontend.ClientTls;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS on the client port (ADR 060), back to back with a real ZooKeeper 3.9.5 configured alike: the same
 * stores, the x509 provider, the same super user. One script of ZooKeeper Java clients (Netty, TLS, each
 * with its own {@link ZKClientConfig}) must see the same identities, ACL decisions and refusals on both:
 * a trusted certificate authenticates as {@code x509:<DN>} (and super for the super user's), x509 ACLs
 * grant and refuse by DN, {@code auth} ACLs expand to it, a malformed DN is InvalidACL, an untrusted
 * certificate and a plaintext client on the TLS port never connect, and with {@code ssl.clientAuth = need}
 * a client without a certificate does not either. Without TLS on Volery the first line already differs.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TlsClientPortTest {
    @TempDir
    static Path dir;
    static TlsFiles tls;

    /** How long a client that cannot complete a handshake is given before it counts as refused. */
    private static final long REFUSED_AFTER_MILLIS = 4_000;

    static final List<String> EXPECTED = List.of(
            "alice whoAmI [ip:127.0.0.1, x509:" + TlsFiles.ALICE + "]",
            "alice creates with an x509 ACL: OK",
            "alice reads it: OK",
            "bob reads it: NOAUTH",
            "no certificate connects: true",
            "no certificate whoAmI [ip:127.0.0.1]",
            "no certificate reads it: NOAUTH",
            "plaintext port reads it: NOAUTH",
            "admin whoAmI [ip:127.0.0.1, super:, x509:" + TlsFiles.ADMIN + "]",
            "admin writes it: OK",
            "alice creates with an auth ACL: OK",
            "its ACL [31 x509:" + TlsFiles.ALICE + "]",
            "a malformed x509 id: INVALIDACL",
            "alice creates readable by bob: OK",
            "bob reads that: OK",
            "bob writes that: NOAUTH",
            // a client's key manager offers no certificate the server's trusted issuers did not sign: mallory
            // connects without one (ssl.clientAuth = want) and is nobody
            "mallory connects: true",
            "mallory whoAmI [ip:127.0.0.1]",
            "mallory reads it: NOAUTH",
            "plaintext client on the TLS port connects: false",
            "admin deletes: OK OK OK");

    @BeforeAll
    static void stores() throws Exception {
        tls = TlsFiles.create(dir.resolve("tls"));
    }

    static ClientTls voleryTls(ClientTls.Auth auth, boolean portUnification) {
        return voleryTls(tls, auth, portUnification);
    }

    /** Volery's TLS settings from {@code tls}'s stores, with ZooKeeper's: the test CA trusted, admin super. */
    static ClientTls voleryTls(TlsFiles tls, ClientTls.Auth auth, boolean portUnification) {
        return new ClientTls(new io.eyrie.multicast.TlsStore(tls.server(), TlsFiles.PASSWORD.toCharArray(), null),
                new io.eyrie.multicast.TlsStore(tls.trust(), TlsFiles.PASSWORD.toCharArray(), null), auth, List.of(), List.of(),
                TlsFiles.ADMIN, portUnification);
    }

    @Test
    void sameIdentitiesAclsAndRefusalsAsZooKeeper() throws Exception {
        List<String> oracle;
        try (TlsZooKeeper zookeeper = TlsZooKeeper.start(dir.resolve("zk-want"), tls, "want", false)) {
            oracle = script(zookeeper.secureConnect(), zookeeper.plainConnect());
        }
        assertEquals(EXPECTED, oracle, "ZooKeeper's answers");
        List<String> volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000,
                o -> o.withTls(voleryTls(ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(0);
            volery = script(connect(node.secureClientAddress()), connect(node.clientAddress()));
        }
        assertEquals(oracle, volery, "Volery's answers against ZooKeeper's");
    }

    /** {@code ssl.clientAuth = need}, and port unification: TLS and plaintext clients on the plain port. */
    @Test
    void certificatesNeededAndPortUnificationAsZooKeeper() throws Exception {
        List<String> oracle;
        try (TlsZooKeeper zookeeper = TlsZooKeeper.start(dir.resolve("zk-need"), tls, "need", true)) {
            oracle = needScript(zookeeper.secureConnect(), zookeeper.plainConnect());
        }
        assertEquals(List.of(
                "no certificate connects: false",
                "mallory connects: false",
                "alice connects: true",
                "alice on the plain port whoAmI [ip:127.0.0.1, x509:" + TlsFiles.ALICE + "]",
                "plaintext client on the plain port connects: true",
                "ruok on the plain port: imok"), oracle, "ZooKeeper's answers");
        List<String> volery;
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                o -> o.withTls(voleryTls(ClientTls.Auth.NEED, true), new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(0);
            volery = needScript(connect(node.secureClientAddress()), connect(node.clientAddress()));
            long failures = Long.parseLong(FourLetterWordClient.parseMntr(FourLetterWordClient.ask(node.clientAddress(),
                    "mntr", 10_000)).get("volery_tls_handshake_failures").strip());
            // the refused client retried while it was given time: at least one failed handshake, counted
            assertEquals(true, failures >= 1, "volery_tls_handshake_failures " + failures);
        }
        assertEquals(oracle, volery, "Volery's answers against ZooKeeper's");
    }

    /**
     * ZooKeeper's {@code ssl.clientHostnameVerification}: a client certificate of the CA must also name the
     * address its client connects from; a client without one still connects ({@code want}), and so does one
     * whose certificate names another address when the setting is off, as by default. No oracle: ZooKeeper
     * 3.9.5's Netty client port refuses every client certificate with the setting on (it asks the JDK for
     * endpoint identification on the server side, which the JDK does not do), which the first line checks.
     */
    @Test
    void clientHostNameVerification() throws Exception {
        try (TlsZooKeeper zookeeper = TlsZooKeeper.start(dir.resolve("zk-hosts"), tls, "want", false,
                List.of("-Dzookeeper.ssl.clientHostnameVerification=true"))) {
            assertEquals("alice, for 127.0.0.1: connects: false", hostScript(zookeeper.secureConnect()).get(0),
                    "ZooKeeper 3.9.5 took a client certificate with ssl.clientHostnameVerification: compare with it again");
        }
        ClientTls checking = new ClientTls(new io.eyrie.multicast.TlsStore(tls.server(), TlsFiles.PASSWORD.toCharArray(), null),
                new io.eyrie.multicast.TlsStore(tls.trust(), TlsFiles.PASSWORD.toCharArray(), null), ClientTls.Auth.WANT,
                List.of(), List.of(), TlsFiles.ADMIN, true, true);
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                o -> o.withTls(checking, new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(0);
            assertEquals(List.of(
                    "alice, for 127.0.0.1: connects: true",
                    "carol, for 10.9.9.9: connects: false",
                    "no certificate connects: true"), hostScript(connect(node.secureClientAddress())), "on the TLS port");
            // port unification: the plain port's TLS connections are checked the same way
            assertEquals("carol, for 10.9.9.9: connects: false", hostScript(connect(node.clientAddress())).get(1));
            long failures = Long.parseLong(FourLetterWordClient.parseMntr(FourLetterWordClient.ask(node.clientAddress(),
                    "mntr", 10_000)).get("volery_tls_handshake_failures").strip());
            assertTrue(failures >= 2, "refusals counted: " + failures);
        }
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                o -> o.withTls(voleryTls(ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0)))) {
            List<String> unverified = hostScript(connect(cluster.nodes().get(0).secureClientAddress()));
            assertEquals("carol, for 10.9.9.9: connects: true", unverified.get(1), "without the setting: " + unverified);
        }
    }

    /**
     * ZooKeeper's maxClientCnxns counts each port's connections apart (the secure port is a factory of its own):
     * with a limit of 2, one address holds two plaintext and two TLS sessions, and a third plaintext one is refused.
     */
    @Test
    void eachPortCountsItsOwnConnectionsAsZooKeeper() throws Exception {
        List<String> oracle;
        try (TlsZooKeeper zookeeper = TlsZooKeeper.start(dir.resolve("zk-limits"), tls, "want", false, List.of(),
                "maxClientCnxns=2\n")) {
            oracle = limitScript(zookeeper.plainConnect(), zookeeper.secureConnect());
        }
        assertEquals(List.of("plaintext 1: true", "plaintext 2: true", "TLS 1: true", "TLS 2: true", "plaintext 3: false"),
                oracle, "ZooKeeper's admissions");
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000, o -> o.withConnectionLimits(2, 0)
                .withTls(voleryTls(ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(0);
            assertEquals(oracle, limitScript(connect(node.clientAddress()), connect(node.secureClientAddress())),
                    "Volery's admissions against ZooKeeper's");
        }
    }

    /** AdminServer's {@code connections} lists TLS connections under {@code secure_connections}, as ZooKeeper's. */
    @Test
    void adminConnectionsTellTlsConnectionsApart() throws Exception {
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000, o -> o
                .withTls(voleryTls(ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0))
                .withAdminServer(new InetSocketAddress("127.0.0.1", 0)));
             Session plain = Session.open(connect(cluster.nodes().get(0).clientAddress()), new ZKClientConfig());
             Session secure = Session.open(connect(cluster.nodes().get(0).secureClientAddress()), tlsClient("alice"))) {
            java.net.URL url = new java.net.URL("http://127.0.0.1:" + cluster.nodes().get(0).adminAddress().getPort()
                    + "/commands/connections");
            @SuppressWarnings("unchecked")
            Map<String, List<Map<String, Object>>> answer = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readValue(url.openStream(), Map.class);
            assertEquals(List.of(plain.zk.getSessionId()),
                    answer.get("connections").stream().map(c -> ((Number) c.get("session_id")).longValue()).toList());
            assertEquals(List.of(secure.zk.getSessionId()),
                    answer.get("secure_connections").stream().map(c -> ((Number) c.get("session_id")).longValue()).toList());
        }
    }

    private static List<String> limitScript(String plain, String secure) throws Exception {
        List<String> out = new ArrayList<>();
        List<Session> open = new ArrayList<>();
        try {
            for (int i = 1; i <= 2; i++) {
                open.add(Session.open(plain, new ZKClientConfig()));
                out.add("plaintext " + i + ": " + (open.get(open.size() - 1).zk != null));
            }
            for (int i = 1; i <= 2; i++) {
                open.add(Session.open(secure, tlsClient("alice")));
                out.add("TLS " + i + ": " + (open.get(open.size() - 1).zk != null));
            }
            open.add(Session.open(plain, new ZKClientConfig()));
            out.add("plaintext 3: " + (open.get(open.size() - 1).zk != null));
        } finally {
            for (Session s : open) {
                s.close();
            }
        }
        return out;
    }

    /** The subject of the certificate the server at {@code at} presents to a new TLS connection. */
    private static String serverSubject(InetSocketAddress at) throws Exception {
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, new io.eyrie.multicast.TlsStore(tls.trust(), TlsFiles.PASSWORD.toCharArray(), null)
                .trustManagerFactory().getTrustManagers(), null);
        try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket(at.getHostString(), at.getPort())) {
            s.startHandshake();
            return ((java.security.cert.X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
        }
    }

    /**
     * ZooKeeper's {@code client.certReload}: the server's key store replaced on disk is what new connections
     * get, without a restart; a session made before goes on.
     */
    @Test
    void changedStoresAreTakenUpWithoutARestart() throws Exception {
        Path live = dir.resolve("server-live.p12");
        java.nio.file.Files.copy(tls.server(), live);
        ClientTls reloading = new ClientTls(new io.eyrie.multicast.TlsStore(live, TlsFiles.PASSWORD.toCharArray(), null),
                new io.eyrie.multicast.TlsStore(tls.trust(), TlsFiles.PASSWORD.toCharArray(), null), ClientTls.Auth.WANT,
                List.of(), List.of(), TlsFiles.ADMIN, false, false, true);
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                o -> o.withTls(reloading, new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(0);
            InetSocketAddress secure = node.secureClientAddress();
            assertEquals("CN=localhost,O=Volery Tests", serverSubject(secure));
            try (Session before = Session.open(connect(secure), tlsClient("alice"))) {
                String path = "/reload-" + System.nanoTime();
                before.zk.create(path, new byte[1], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                java.nio.file.Files.copy(tls.rotatedServer(), live, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                String subject = serverSubject(secure);
                while (!subject.equals("CN=localhost,O=Volery Tests Rotated") && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    subject = serverSubject(secure);
                }
                assertEquals("CN=localhost,O=Volery Tests Rotated", subject, "the changed key store was not taken up");
                assertEquals(1, before.zk.exists(path, false).getDataLength(), "the session made before goes on");
                try (Session after = Session.open(connect(secure), tlsClient("bob"))) {
                    assertTrue(after.zk != null, "a new client did not connect with the new certificate");
                    assertEquals("[ip:127.0.0.1, x509:" + TlsFiles.BOB + "]", whoAmI(after.zk));
                }
            }
            assertEquals("1", FourLetterWordClient.parseMntr(FourLetterWordClient.ask(node.clientAddress(), "mntr", 10_000))
                    .get("volery_tls_store_reloads").strip());
        }
    }

    /**
     * ZooKeeper's {@code ssl.crl}: a client certificate on the CA's revocation list (fetched from the
     * distribution point the certificates name, here an HTTP server of this test) is refused, one that is not
     * connects; without the setting the revoked one connects too. ZooKeeper 3.9.5 is the oracle.
     */
    @Test
    void revokedClientCertificatesAsZooKeeper() throws Exception {
        com.sun.net.httpserver.HttpServer crlServer = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress("127.0.0.1", 0), 0);
        Path crlDir = dir.resolve("crl-ca");
        java.util.concurrent.atomic.AtomicInteger fetches = new java.util.concurrent.atomic.AtomicInteger();
        crlServer.createContext("/ca.crl", exchange -> {
            fetches.incrementAndGet();
            byte[] body = java.nio.file.Files.readAllBytes(crlDir.resolve("ca.crl"));
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        crlServer.start();
        try {
            TlsFiles revoking = TlsFiles.withRevocationList(crlDir,
                    "http://127.0.0.1:" + crlServer.getAddress().getPort() + "/ca.crl");
            List<String> oracle;
            try (TlsZooKeeper zookeeper = TlsZooKeeper.start(dir.resolve("zk-crl"), revoking, "want", false,
                    List.of("-Dzookeeper.ssl.crl=true"))) {
                oracle = revocationScript(revoking, zookeeper.secureConnect());
            }
            assertEquals(List.of(
                    "alice connects: true",
                    "bob, revoked, connects: false",
                    "no certificate connects: true"), oracle, "ZooKeeper's answers");
            int zookeeperFetches = fetches.get();
            assertTrue(zookeeperFetches >= 1, "ZooKeeper never fetched the revocation list");
            io.eyrie.multicast.TlsStore trust = new io.eyrie.multicast.TlsStore(revoking.trust(),
                    TlsFiles.PASSWORD.toCharArray(), null);
            ClientTls checking = new ClientTls(new io.eyrie.multicast.TlsStore(revoking.server(), TlsFiles.PASSWORD.toCharArray(), null),
                    trust.withRevocation(io.eyrie.multicast.TlsStore.Revocation.CRL), ClientTls.Auth.WANT,
                    List.of(), List.of(), null, false);
            try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                    o -> o.withTls(checking, new InetSocketAddress("127.0.0.1", 0)))) {
                assertEquals(oracle, revocationScript(revoking, connect(cluster.nodes().get(0).secureClientAddress())),
                        "Volery's answers against ZooKeeper's");
            }
            assertTrue(fetches.get() > zookeeperFetches, "Volery never fetched the revocation list");
            ClientTls unchecked = new ClientTls(new io.eyrie.multicast.TlsStore(revoking.server(), TlsFiles.PASSWORD.toCharArray(), null),
                    trust, ClientTls.Auth.WANT, List.of(), List.of(), null, false);
            try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                    o -> o.withTls(unchecked, new InetSocketAddress("127.0.0.1", 0)))) {
                assertEquals("bob, revoked, connects: true",
                        revocationScript(revoking, connect(cluster.nodes().get(0).secureClientAddress())).get(1));
            }
        } finally {
            crlServer.stop(0);
        }
    }

    private static List<String> revocationScript(TlsFiles files, String secure) throws Exception {
        List<String> out = new ArrayList<>();
        try (Session alice = Session.open(secure, tlsClient(files, "alice"))) {
            out.add("alice connects: " + (alice.zk != null));
        }
        try (Session bob = Session.open(secure, tlsClient(files, "bob"))) {
            out.add("bob, revoked, connects: " + (bob.zk != null));
        }
        try (Session anonymous = Session.open(secure, tlsClient(files, null))) {
            out.add("no certificate connects: " + (anonymous.zk != null));
        }
        return out;
    }

    private static List<String> hostScript(String secure) throws Exception {
        List<String> out = new ArrayList<>();
        try (Session alice = Session.open(secure, tlsClient("alice"))) {
            out.add("alice, for 127.0.0.1: connects: " + (alice.zk != null));
        }
        try (Session carol = Session.open(secure, tlsClient("carol"))) {
            out.add("carol, for 10.9.9.9: connects: " + (carol.zk != null));
        }
        try (Session anonymous = Session.open(secure, tlsClient(null))) {
            out.add("no certificate connects: " + (anonymous.zk != null));
        }
        return out;
    }

    /**
     * A TCP health check or port scan of the TLS port (connect, then close or reset before any handshake) is
     * an abandoned handshake, not a failed one (ADR 094), and so is a connection that says nothing until the
     * handshake times out: {@code mntr} counts them apart, and the port goes on serving; a plaintext client
     * there is still a failed handshake.
     */
    @Test
    void aProbeOfTheTlsPortIsAnAbandonedHandshakeNotAFailure() throws Exception {
        try (VoleryCluster cluster = new VoleryCluster(1, 1, 0, 2000,
                o -> o.withTls(voleryTls(ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(0);
            InetSocketAddress secure = node.secureClientAddress();
            for (int i = 0; i < 3; i++) {
                try (java.net.Socket probe = new java.net.Socket(secure.getAddress(), secure.getPort())) {
                    probe.setSoLinger(i == 0, 0); // the first one resets, the others close
                }
            }
            Map<String, String> m = awaitAbandoned(node, 3);
            assertEquals("3", m.get("volery_tls_handshakes_abandoned"), "probes counted as abandoned: " + m);
            assertEquals("0", m.get("volery_tls_handshake_failures"), "a probe counted as a failed handshake: " + m);
            try (Session alice = Session.open(connect(secure), tlsClient("alice"))) {
                assertTrue(alice.zk() != null, "alice could not connect after the probes");
                alice.zk().create("/after-probes", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            // a connection that says nothing: Netty's handshake timeout (10 s) closes it, abandoned as well
            long opened = System.nanoTime();
            try (java.net.Socket silent = new java.net.Socket(secure.getAddress(), secure.getPort())) {
                silent.setSoTimeout(60_000);
                assertEquals(-1, silent.getInputStream().read(), "the node wrote to a client that never said hello");
            }
            assertTrue(System.nanoTime() - opened >= TimeUnit.SECONDS.toNanos(9), "closed before the handshake timeout");
            m = awaitAbandoned(node, 4);
            assertEquals("4", m.get("volery_tls_handshakes_abandoned"), "the timed-out handshake counted as abandoned: " + m);
            assertEquals("0", m.get("volery_tls_handshake_failures"), "the timed-out handshake counted as a failure: " + m);
            try (Session plain = Session.open(connect(secure), new ZKClientConfig())) {
                assertEquals(null, plain.zk(), "a plaintext client connected to the TLS port");
            }
            m = tlsCounts(node);
            assertTrue(Long.parseLong(m.get("volery_tls_handshake_failures")) >= 1, "the plaintext client not counted: " + m);
        }
    }

    /** The node's mntr once it counts {@code n} abandoned TLS handshakes (it counts on its event loop). */
    private static Map<String, String> awaitAbandoned(VoleryNode node, int n) throws Exception {
        Clients.eventually(n + " abandoned TLS handshakes", () -> {
            try {
                return String.valueOf(n).equals(tlsCounts(node).get("volery_tls_handshakes_abandoned"));
            } catch (Exception e) {
                return false;
            }
        });
        return tlsCounts(node);
    }

    private static Map<String, String> tlsCounts(VoleryNode node) throws Exception {
        Map<String, String> m = FourLetterWordClient.parseMntr(FourLetterWordClient.ask(node.clientAddress(), "mntr", 10_000));
        m.replaceAll((k, v) -> v.strip());
        return m;
    }

    /**
     * Curator over TLS: two clients with their own certificates, on two nodes' secure ports of a two-partition
     * cluster, take an InterProcessMutex in turn to increment a counter kept in a znode that only their two
     * x509 identities may touch; no increment is lost and a client without a certificate is refused by it.
     */
    @Test
    void curatorRecipesOverTls() throws Exception {
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000,
                o -> o.withTls(voleryTls(ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0)))) {
            String first = connect(cluster.nodes().get(0).secureClientAddress());
            String second = connect(cluster.nodes().get(1).secureClientAddress());
            String counter = "/tls-counter";
            List<ACL> ours = acl(new ACL(ZooDefs.Perms.ALL, new Id("x509", TlsFiles.ALICE)),
                    new ACL(ZooDefs.Perms.ALL, new Id("x509", TlsFiles.BOB)));
            try (CuratorFramework alice = curator(first, "alice"); CuratorFramework bob = curator(second, "bob")) {
                alice.create().withACL(ours).forPath(counter, "0".getBytes(StandardCharsets.UTF_8));
                int rounds = 15;
                List<Thread> threads = new ArrayList<>();
                List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
                for (CuratorFramework c : List.of(alice, bob)) {
                    Thread t = new Thread(() -> {
                        InterProcessMutex lock = new InterProcessMutex(c, "/tls-locks/counter");
                        try {
                            for (int i = 0; i < rounds; i++) {
                                lock.acquire();
                                try {
                                    int v = Integer.parseInt(new String(c.getData().forPath(counter), StandardCharsets.UTF_8));
                                    c.setData().forPath(counter, Integer.toString(v + 1).getBytes(StandardCharsets.UTF_8));
                                } finally {
                                    lock.release();
                                }
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                    });
                    threads.add(t);
                    t.start();
                }
                for (Thread t : threads) {
                    t.join(120_000);
                }
                assertEquals(List.of(), failures, "lock rounds");
                assertEquals(Integer.toString(2 * rounds), new String(alice.getData().forPath(counter), StandardCharsets.UTF_8));
                try (CuratorFramework anonymous = curator(first, null)) {
                    assertEquals("NOAUTH", code(() -> anonymous.getData().forPath(counter)));
                }
            }
        }
    }

    private static CuratorFramework curator(String connect, String who) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(connect).zkClientConfig(tlsClient(who))
                .retryPolicy(new RetryNTimes(10, 200)).sessionTimeoutMs(10_000).connectionTimeoutMs(10_000).build();
        c.start();
        if (!c.blockUntilConnected(20, TimeUnit.SECONDS)) {
            c.close();
            throw new IllegalStateException("Curator did not connect over TLS to " + connect);
        }
        return c;
    }

    private static String connect(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    private static List<String> script(String secure, String plain) throws Exception {
        List<String> out = new ArrayList<>();
        byte[] data = "x".getBytes(StandardCharsets.UTF_8);
        String suffix = Long.toString(System.nanoTime(), 36);
        String a = "/tls-a-" + suffix;
        String b = "/tls-b-" + suffix;
        String c = "/tls-c-" + suffix;
        try (Session alice = Session.open(secure, tlsClient("alice"));
             Session bob = Session.open(secure, tlsClient("bob"));
             Session admin = Session.open(secure, tlsClient("admin"))) {
            out.add("alice whoAmI " + whoAmI(alice.zk));
            out.add("alice creates with an x509 ACL: " + code(() -> alice.zk.create(a, data,
                    acl(new ACL(ZooDefs.Perms.ALL, new Id("x509", TlsFiles.ALICE))), CreateMode.PERSISTENT)));
            out.add("alice reads it: " + code(() -> alice.zk.getData(a, false, null)));
            out.add("bob reads it: " + code(() -> bob.zk.getData(a, false, null)));
            try (Session anonymous = Session.open(secure, tlsClient(null))) {
                out.add("no certificate connects: " + (anonymous.zk != null));
                out.add("no certificate whoAmI " + whoAmI(anonymous.zk));
                out.add("no certificate reads it: " + code(() -> anonymous.zk.getData(a, false, null)));
            }
            try (Session plaintext = Session.open(plain, new ZKClientConfig())) {
                out.add("plaintext port reads it: " + code(() -> plaintext.zk.getData(a, false, null)));
            }
            out.add("admin whoAmI " + whoAmI(admin.zk));
            out.add("admin writes it: " + code(() -> admin.zk.setData(a, data, -1)));
            out.add("alice creates with an auth ACL: " + code(() -> alice.zk.create(b, data, ZooDefs.Ids.CREATOR_ALL_ACL,
                    CreateMode.PERSISTENT)));
            out.add("its ACL " + aclOf(alice.zk, b));
            out.add("a malformed x509 id: " + code(() -> alice.zk.create("/tls-bad-" + suffix, data,
                    acl(new ACL(ZooDefs.Perms.ALL, new Id("x509", "not a distinguished name"))), CreateMode.PERSISTENT)));
            out.add("alice creates readable by bob: " + code(() -> alice.zk.create(c, data,
                    acl(new ACL(ZooDefs.Perms.READ, new Id("x509", TlsFiles.BOB)),
                            new ACL(ZooDefs.Perms.ALL, new Id("x509", TlsFiles.ALICE))), CreateMode.PERSISTENT)));
            out.add("bob reads that: " + code(() -> bob.zk.getData(c, false, null)));
            out.add("bob writes that: " + code(() -> bob.zk.setData(c, data, -1)));
            try (Session mallory = Session.open(secure, tlsClient("mallory"))) {
                out.add("mallory connects: " + (mallory.zk != null));
                out.add("mallory whoAmI " + (mallory.zk == null ? "-" : whoAmI(mallory.zk)));
                out.add("mallory reads it: " + (mallory.zk == null ? "-" : code(() -> mallory.zk.getData(a, false, null))));
            }
            try (Session plaintext = Session.open(secure, new ZKClientConfig())) {
                out.add("plaintext client on the TLS port connects: " + (plaintext.zk != null));
            }
            out.add("admin deletes: " + code(() -> admin.zk.delete(a, -1)) + " " + code(() -> admin.zk.delete(b, -1))
                    + " " + code(() -> admin.zk.delete(c, -1)));
        }
        return out;
    }

    private static List<String> needScript(String secure, String plain) throws Exception {
        List<String> out = new ArrayList<>();
        try (Session anonymous = Session.open(secure, tlsClient(null))) {
            out.add("no certificate connects: " + (anonymous.zk != null));
        }
        try (Session mallory = Session.open(secure, tlsClient("mallory"))) {
            out.add("mallory connects: " + (mallory.zk != null));
        }
        try (Session alice = Session.open(secure, tlsClient("alice"))) {
            out.add("alice connects: " + (alice.zk != null));
        }
        try (Session alice = Session.open(plain, tlsClient("alice"))) {
            out.add("alice on the plain port whoAmI " + (alice.zk == null ? "not connected" : whoAmI(alice.zk)));
        }
        try (Session plaintext = Session.open(plain, new ZKClientConfig())) {
            out.add("plaintext client on the plain port connects: " + (plaintext.zk != null));
        }
        String[] hostPort = plain.split(":");
        out.add("ruok on the plain port: " + FourLetterWordClient.ask(
                new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), "ruok", 10_000));
        return out;
    }

    /** A ZooKeeper Java client over TLS (Netty), presenting {@code who}'s certificate, or none for null. */
    static ZKClientConfig tlsClient(String who) {
        return tlsClient(tls, who);
    }

    /** The same with the stores of {@code files}. */
    static ZKClientConfig tlsClient(TlsFiles files, String who) {
        ZKClientConfig c = new ZKClientConfig();
        c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        c.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        if (who != null) {
            c.setProperty("zookeeper.ssl.keyStore.location", files.client(who).toString());
            c.setProperty("zookeeper.ssl.keyStore.password", TlsFiles.PASSWORD);
        }
        c.setProperty("zookeeper.ssl.trustStore.location", files.trust().toString());
        c.setProperty("zookeeper.ssl.trustStore.password", TlsFiles.PASSWORD);
        return c;
    }

    /** A session, or {@code zk} null when the client could not connect in {@link #REFUSED_AFTER_MILLIS}. */
    record Session(ZooKeeper zk) implements AutoCloseable {
        static Session open(String connect, ZKClientConfig config) throws Exception {
            CountDownLatch up = new CountDownLatch(1);
            ZooKeeper zk = new ZooKeeper(connect, 10_000, e -> {
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    up.countDown();
                }
            }, config);
            if (!up.await(REFUSED_AFTER_MILLIS, TimeUnit.MILLISECONDS)) {
                zk.close();
                return new Session(null);
            }
            return new Session(zk);
        }

        @Override
        public void close() throws InterruptedException {
            if (zk != null) {
                zk.close();
            }
        }
    }

    interface Op {
        void run() throws Exception;
    }

    private static String code(Op op) {
        try {
            op.run();
            return "OK";
        } catch (KeeperException e) {
            return e.code().name();
        } catch (Exception e) {
            return e.getClass().getSimpleName();
        }
    }

    /** Sorted: ZooKeeper lists a connection's identities in the order of a hash set. */
    private static String whoAmI(ZooKeeper zk) throws Exception {
        List<String> ids = new ArrayList<>();
        zk.whoAmI().forEach(i -> ids.add(i.getAuthScheme() + ":" + i.getUser()));
        ids.sort(null);
        return ids.toString();
    }

    /** A mutable list: the client's ACL check asks it whether it contains null, which List.of refuses. */
    private static List<ACL> acl(ACL... entries) {
        return new ArrayList<>(List.of(entries));
    }

    private static String aclOf(ZooKeeper zk, String path) {
        try {
            return join(zk.getACL(path, null), x -> x.getPerms() + " " + x.getId().getScheme() + ":" + x.getId().getId());
        } catch (KeeperException e) {
            return e.code().name();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static <T> String join(List<T> items, Function<T, String> show) {
        List<String> s = new ArrayList<>();
        for (T t : items) {
            s.add(show.apply(t));
        }
        return s.toString();
    }
}
