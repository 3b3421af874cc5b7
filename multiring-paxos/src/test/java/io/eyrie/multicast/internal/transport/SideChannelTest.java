package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.DevCertificates;
import io.eyrie.multicast.SideChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Side requests on the ring port (ADR 063), real sockets: a node asks a peer whose own transport runs, before
 * its own does; with peer TLS the answer travels encrypted and only to a holder of the cluster's certificate;
 * without it, only to the cluster's hosts; a stranger's or a wrong cluster's request gets nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SideChannelTest {
    private static final int MAX_FRAME = 64 * 1024;
    private static final String PASSWORD = "eyrie-test";
    private static final int KIND = 7;

    @TempDir
    static Path dir;
    static DevCertificates certificates;

    private final List<NettyTransport> started = new ArrayList<>();

    @BeforeAll
    static void stores() throws Exception {
        certificates = DevCertificates.create(dir.resolve("ca"), PASSWORD);
        certificates.signed("node", "CN=eyrie node");
        certificates.signed("host2", "CN=eyrie node at 2", "ip:127.0.0.2");
        certificates.signed("host3", "CN=eyrie node at 3", "ip:127.0.0.3");
        certificates.selfSigned("stranger", "CN=stranger");
    }

    static String[] tls(String store) {
        return TestCluster.tls(certificates, store, PASSWORD);
    }

    @AfterEach
    void closeAll() {
        started.forEach(NettyTransport::close);
    }

    private NettyTransport serving(ClusterConfig config, int id, byte[] secret) {
        NettyTransport t = new NettyTransport(config, id, MAX_FRAME);
        started.add(t);
        t.start((from, message) -> { });
        assertTrue(t.serveSideRequests((from, kind) -> kind == KIND ? secret : null));
        return t;
    }

    /** A big answer (several TLS records and socket reads), recognisable anywhere in a capture. */
    private static byte[] secret(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) "SECRET-SNAPSHOT-".charAt(i % 16);
        }
        return b;
    }

    @Test
    void aPeerAnswersOverPlainTcpAndSaysWhenItHasNothingOrFails() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        byte[] secret = secret(3 << 20);
        NettyTransport n1 = serving(config, 1, secret);
        // node 2's transport is not running: the side channel needs only the peer's
        assertArrayEquals(secret, SideChannel.ask(config, 2, 1, KIND, 10_000, 8 << 20));
        assertNull(SideChannel.ask(config, 2, 1, KIND + 1, 10_000, 8 << 20), "a kind the server has nothing of");
        IOException tooBig = assertThrows(IOException.class, () -> SideChannel.ask(config, 2, 1, KIND, 10_000, 1 << 20));
        assertTrue(tooBig.getMessage().contains("more than"), tooBig.getMessage());
        n1.serveSideRequests((from, kind) -> {
            throw new IllegalStateException("disk on fire");
        });
        SideChannel.Refused failed = assertThrows(SideChannel.Refused.class,
                () -> SideChannel.ask(config, 2, 1, KIND, 10_000, 8 << 20));
        assertTrue(failed.getMessage().contains("disk on fire"), failed.getMessage());
        assertEquals(3, n1.sideDesk().served());
        assertEquals(1, n1.sideDesk().refused());
    }

    @Test
    void aTransportWithoutAServerRefusesAndOneOfAnotherClusterIsCutOff() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        ClusterConfig config = TestCluster.config(ports);
        NettyTransport n1 = new NettyTransport(config, 1, MAX_FRAME);
        started.add(n1);
        n1.start((from, message) -> { });
        SideChannel.Refused refused = assertThrows(SideChannel.Refused.class,
                () -> SideChannel.ask(config, 2, 1, KIND, 10_000, 1024));
        assertTrue(refused.getMessage().contains("serves no side requests"), refused.getMessage());
        n1.serveSideRequests((from, kind) -> new byte[] {1, 2, 3});
        // another cluster file (one more node) has another fingerprint: the connection is closed unanswered
        ClusterConfig other = TestCluster.config(new int[] {ports[0], ports[1], TestCluster.freePorts(1)[0]});
        IOException e = assertThrows(IOException.class, () -> SideChannel.ask(other, 2, 1, KIND, 10_000, 1024));
        assertFalse(e instanceof SideChannel.Refused, "answered a request of another cluster: " + e);
        assertEquals(0, n1.sideDesk().served());
        // a node id that is not in the file cannot even be asked for
        assertThrows(IllegalArgumentException.class, () -> SideChannel.ask(config, 9, 1, KIND, 10_000, 1024));
    }

    @Test
    void withoutTlsOnlyTheClustersHostsAreAnswered() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        // node 2's address (TEST-NET-1) is no address of this machine, so its request comes from 127.0.0.1
        ClusterConfig config = ClusterConfig.parse("node.1 = 127.0.0.2:" + ports[0] + "\nnode.2 = 192.0.2.1:" + ports[1]
                + "\nring.0.acceptors = 1,2\nring.all = 0\n", "test cluster");
        NettyTransport n1 = serving(config, 1, secret(100));
        SideChannel.Refused refused = assertThrows(SideChannel.Refused.class,
                () -> SideChannel.ask(config, 2, 1, KIND, 10_000, 1024));
        assertTrue(refused.getMessage().contains("only to the cluster's hosts"), refused.getMessage());
        assertEquals(0, n1.sideDesk().served());
    }

    @Test
    void aRequestLeavesFromTheAskersOwnHostSoAMachineWithSeveralAddressesIsAnswered() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        // both on loopback addresses other than 127.0.0.1, where connections would come from without binding
        ClusterConfig config = ClusterConfig.parse("node.1 = 127.0.0.2:" + ports[0] + "\nnode.2 = 127.0.0.3:" + ports[1]
                + "\nring.0.acceptors = 1,2\nring.all = 0\n", "test cluster");
        NettyTransport n1 = serving(config, 1, secret(100));
        assertArrayEquals(secret(100), SideChannel.ask(config, 2, 1, KIND, 10_000, 1024));
        assertEquals(1, n1.sideDesk().served());
    }

    @Test
    void withPeerTlsTheAnswerIsEncryptedAndOnlyForTheClustersCertificates() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        ClusterConfig config = TestCluster.config(ports, tls("node"));
        byte[] secret = secret(1 << 20);
        NettyTransport n1 = serving(config, 1, secret);
        assertArrayEquals(secret, SideChannel.ask(config, 2, 1, KIND, 10_000, 2 << 20));

        // a plain request to the TLS port: no answer, no byte of the secret
        ClusterConfig plain = TestCluster.config(ports);
        assertThrows(IOException.class, () -> SideChannel.ask(plain, 2, 1, KIND, 5_000, 2 << 20));
        try (Socket s = new Socket("127.0.0.1", ports[0])) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write(new SideRequest(2, ClusterFingerprint.of(config), KIND).frame());
            InputStream in = s.getInputStream();
            byte[] got = in.readAllBytes(); // the server closes on a non-TLS first record
            assertFalse(new String(got, java.nio.charset.StandardCharsets.ISO_8859_1).contains("SECRET-SNAPSHOT"),
                    "the secret crossed in plain text");
        } catch (java.net.SocketException reset) {
            // closed with a reset: nothing crossed either
        }
        // a certificate the cluster's CA did not sign: the handshake fails
        ClusterConfig stranger = TestCluster.config(ports, tls("stranger"));
        assertThrows(IOException.class, () -> SideChannel.ask(stranger, 2, 1, KIND, 5_000, 2 << 20));
        assertEquals(1, n1.sideDesk().served(), "only the member's request was answered");
        assertTrue(n1.tlsHandshakeFailures() >= 2, "handshake failures: " + n1.tlsHandshakeFailures());
    }

    /** Nodes 1 and 2 at 127.0.0.2 and .3 over TLS, this process presenting {@code store}'s certificate. */
    private static ClusterConfig onTwoHosts(int[] ports, String store) {
        StringBuilder text = new StringBuilder("node.1 = 127.0.0.2:" + ports[0] + "\nnode.2 = 127.0.0.3:" + ports[1]
                + "\nring.0.acceptors = 1,2\nring.all = 0\n");
        for (String line : tls(store)) {
            text.append(line).append('\n');
        }
        return ClusterConfig.parse(text.toString(), "test cluster");
    }

    @Test
    void withHostNameVerificationEachSideMustHoldACertificateForItsNodesHost() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        NettyTransport n1 = serving(onTwoHosts(ports, "host2"), 1, secret(1000));
        // node 2's own certificate: answered
        assertArrayEquals(secret(1000), SideChannel.ask(onTwoHosts(ports, "host3"), 2, 1, KIND, 10_000, 4096));
        // node 1's certificate, of the same CA, asking as node 2: cut off after the hello's check
        IOException impostor = assertThrows(IOException.class,
                () -> SideChannel.ask(onTwoHosts(ports, "host2"), 2, 1, KIND, 10_000, 4096));
        assertFalse(impostor instanceof SideChannel.Refused, "an impostor is told nothing: " + impostor.getMessage());
        assertEquals(1, n1.sideDesk().served(), "only node 2's own request was answered");
        assertTrue(n1.tlsHandshakeFailures() >= 1, "the refusal was not counted");

        // and the asker checks the peer it dials: a node 1 with node 2's certificate gets no request
        int[] others = TestCluster.freePorts(2);
        NettyTransport wrong = serving(onTwoHosts(others, "host3"), 1, secret(1000));
        IOException dialled = assertThrows(IOException.class,
                () -> SideChannel.ask(onTwoHosts(others, "host3"), 2, 1, KIND, 10_000, 4096));
        assertTrue(dialled instanceof javax.net.ssl.SSLException, "not a failed handshake: " + dialled);
        assertEquals(0, wrong.sideDesk().served());
    }

    @Test
    void askersBeyondTheWaitingLimitAreToldTheNodeIsBusy() throws Exception {
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger entered = new java.util.concurrent.atomic.AtomicInteger();
        NettyTransport n1 = new NettyTransport(config, 1, MAX_FRAME);
        started.add(n1);
        n1.start((from, message) -> { });
        n1.serveSideRequests((from, kind) -> {
            entered.incrementAndGet();
            release.await(); // the first request holds the desk
            return secret(64);
        });
        int limit = SideDesk.MAX_WAITING;
        java.util.concurrent.ExecutorService askers = java.util.concurrent.Executors.newFixedThreadPool(limit + 1);
        try {
            List<java.util.concurrent.Future<byte[]>> answers = new ArrayList<>();
            answers.add(askers.submit(() -> SideChannel.ask(config, 2, 1, KIND, 30_000, 4096)));
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (entered.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            for (int i = 0; i < limit; i++) {
                answers.add(askers.submit(() -> SideChannel.ask(config, 2, 1, KIND, 30_000, 4096)));
            }
            while (n1.sideDesk().waiting() < limit && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(limit, n1.sideDesk().waiting(), "requests waiting");
            SideChannel.Refused busy = assertThrows(SideChannel.Refused.class,
                    () -> SideChannel.ask(config, 2, 1, KIND, 10_000, 4096));
            assertTrue(busy.getMessage().contains("busy"), busy.getMessage());
            release.countDown();
            for (java.util.concurrent.Future<byte[]> a : answers) {
                assertArrayEquals(secret(64), a.get(30, java.util.concurrent.TimeUnit.SECONDS));
            }
            assertEquals(limit + 1, n1.sideDesk().served());
            assertEquals(1, n1.sideDesk().refused());
        } finally {
            release.countDown();
            askers.shutdownNow();
        }
    }
}
