package io.eyrie.multicast.internal.transport;

import com.sun.net.httpserver.HttpServer;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.DevCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's {@code ssl.quorum.crl} and {@code ssl.quorum.ocsp} between nodes (ADR 067) on real sockets: the
 * CA's revocation list is served over HTTP at the distribution point the nodes' certificates name, and an OCSP
 * responder ({@code openssl ocsp}) at the address their authority information access names; with either
 * setting a node whose certificate is revoked gets nothing through either way while the others exchange
 * messages; without them, it is a member.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PeerTlsRevocationTest {
    private static final String PASSWORD = "eyrie-test";
    private static final long REFUSED_MILLIS = 3_000;

    @TempDir
    static Path dir;
    static DevCertificates certificates;
    static HttpServer crlServer;
    static final AtomicInteger crlFetches = new AtomicInteger();
    static Process ocspResponder;

    private final List<NettyTransport> started = new ArrayList<>();

    @BeforeAll
    static void caWithARevocationList() throws Exception {
        crlServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        Path crl = dir.resolve("ca.crl");
        crlServer.createContext("/ca.crl", exchange -> {
            crlFetches.incrementAndGet();
            byte[] body = Files.readAllBytes(crl);
            exchange.getResponseHeaders().add("Content-Type", "application/pkix-crl");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        crlServer.start();
        String uri = "http://127.0.0.1:" + crlServer.getAddress().getPort() + "/ca.crl";
        certificates = DevCertificates.create(dir.resolve("ca"), PASSWORD);
        certificates.signed("good", "CN=good node", "dns:localhost,ip:127.0.0.1", uri);
        certificates.signed("revoked", "CN=revoked node", "dns:localhost,ip:127.0.0.1", uri);
        certificates.revoke("revoked");
        certificates.writeCrl(crl);
        int ocspPort = io.eyrie.multicast.LoopbackPorts.free();
        String ocsp = "http://127.0.0.1:" + ocspPort;
        certificates.signed("ocsp-good", "CN=good node", "dns:localhost,ip:127.0.0.1", null, ocsp);
        certificates.signed("ocsp-revoked", "CN=revoked node", "dns:localhost,ip:127.0.0.1", null, ocsp);
        certificates.valid("ocsp-good");
        certificates.revoke("ocsp-revoked");
        ocspResponder = certificates.ocspResponder(ocspPort);
    }

    @AfterAll
    static void stopServing() {
        crlServer.stop(0);
        if (ocspResponder != null) {
            ocspResponder.descendants().forEach(ProcessHandle::destroyForcibly); // its -multi workers
            ocspResponder.destroyForcibly();
        }
    }

    @AfterEach
    void closeAll() {
        started.forEach(NettyTransport::close);
    }

    private NettyTransport start(ClusterConfig config, int id, Inbox inbox) {
        NettyTransport t = new NettyTransport(config, id, 64 * 1024, TransportOptions.defaults().withReconnectMillis(20, 200));
        started.add(t);
        t.start(inbox);
        return t;
    }

    private static ClusterConfig config(int[] ports, String store, String... extra) {
        List<String> lines = new ArrayList<>(List.of(TestCluster.tls(certificates, store, PASSWORD)));
        lines.addAll(List.of(extra));
        return TestCluster.config(ports, lines.toArray(String[]::new));
    }

    @Test
    void aNodeWhoseCertificateIsOnTheRevocationListGetsNothingThroughEitherWay() throws Exception {
        revokedNodeIsCutOff("good", "revoked", "ssl.quorum.crl = true");
        assertTrue(crlFetches.get() >= 1, "the revocation list was never fetched");
    }

    @Test
    void aNodeTheOcspResponderSaysIsRevokedGetsNothingThroughEitherWay() throws Exception {
        revokedNodeIsCutOff("ocsp-good", "ocsp-revoked", "ssl.quorum.ocsp = true");
    }

    private void revokedNodeIsCutOff(String good, String revoked, String setting) throws Exception {
        int[] ports = TestCluster.freePorts(3);
        Inbox one = new Inbox();
        Inbox three = new Inbox();
        NettyTransport n1 = start(config(ports, good, setting), 1, one);
        NettyTransport n2 = start(config(ports, good, setting), 2, new Inbox());
        NettyTransport n3 = start(config(ports, revoked, setting), 3, three);
        for (int seq = 0; seq < 20; seq++) {
            n3.send(1, Inbox.message(seq, 16));
            n1.send(3, Inbox.message(seq, 16));
            n2.send(1, Inbox.message(seq, 16));
            Thread.sleep(REFUSED_MILLIS / 20);
        }
        one.awaitCount(2, 20, Duration.ofSeconds(10));
        assertEquals(Inbox.range(0, 20), one.from(2));
        assertEquals(List.of(), one.from(3), "node 1 took messages from a node whose certificate is revoked");
        assertEquals(List.of(), three.from(1), "node 1 sent to a node whose certificate is revoked");
        assertTrue(n1.tlsHandshakeFailures() >= 2, "refusals counted at node 1: " + n1.tlsHandshakeFailures());
    }

    @Test
    void withoutTheSettingTheRevokedCertificateIsStillAMember() throws Exception {
        int[] ports = TestCluster.freePorts(2);
        Inbox one = new Inbox();
        start(config(ports, "good"), 1, one);
        NettyTransport n2 = start(config(ports, "revoked"), 2, new Inbox());
        for (int seq = 0; seq < 20; seq++) {
            n2.send(1, Inbox.message(seq, 16));
        }
        one.awaitCount(2, 20, Duration.ofSeconds(20));
        assertEquals(Inbox.range(0, 20), one.from(2));
    }
}
