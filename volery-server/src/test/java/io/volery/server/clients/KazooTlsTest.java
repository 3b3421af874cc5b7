package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.frontend.ClientTls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * kazoo 2.11 (Python's ssl module, PEM files) over TLS with client certificates (ADR 060): the same script
 * (clients/kazoo_tls.py) against a real ZooKeeper 3.9.5 with a secure client port ({@link TlsZooKeeper}) and
 * against a two-partition Volery with the same stores and super user; both must print the same lines, which
 * are also the expected ones. The Python twin of {@link TlsClientPortTest}.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KazooTlsTest {
    @TempDir
    static Path dir;

    static final List<String> EXPECTED = List.of(
            "alice connects True",
            "alice creates with an x509 ACL ok a",
            "alice reads it ok a",
            "alice creates with an auth ACL ok b",
            "its ACL ok [x509:" + TlsFiles.ALICE + "=31]",
            "bob reads it NoAuthError",
            "no certificate reads it NoAuthError",
            "admin writes it ok version 1",
            "admin reads it ok admin",
            "plaintext port reads it NoAuthError",
            "plaintext client on the TLS port KazooTimeoutError",
            "admin deletes ok True ok True",
            "done");

    @Test
    void sameKazooTlsSessionOnZooKeeperAndVolery() throws Exception {
        Path python = KazooVenv.python("kazoo", "kazoo==2.11.*");
        TlsFiles tls = TlsFiles.create(dir.resolve("tls"));
        for (String who : List.of("alice", "bob", "admin")) {
            tls.exportPem(who);
        }
        Path script = dir.resolve("kazoo_tls.py");
        try (var in = KazooTlsTest.class.getResourceAsStream("/clients/kazoo_tls.py")) {
            Files.write(script, in.readAllBytes());
        }
        Outcome oracle;
        try (TlsZooKeeper zookeeper = TlsZooKeeper.start(dir.resolve("zookeeper"), tls, "want", false)) {
            oracle = ExternalProcess.run(List.of(python.toString(), script.toString(), zookeeper.secureConnect(),
                    zookeeper.plainConnect(), "/kazoo-tls-zk-", tls.dir.toString()), 100);
        }
        assertEquals(0, oracle.exit(), "the script against ZooKeeper; its output:\n" + oracle.output());
        Outcome volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000, o -> o.withTls(
                TlsClientPortTest.voleryTls(tls, ClientTls.Auth.WANT, false), new InetSocketAddress("127.0.0.1", 0)))) {
            VoleryNode node = cluster.nodes().get(1);
            volery = ExternalProcess.run(List.of(python.toString(), script.toString(), hostPort(node.secureClientAddress()),
                    hostPort(node.clientAddress()), "/kazoo-tls-volery-", tls.dir.toString()), 100);
        }
        assertEquals(0, volery.exit(), "the script against Volery; its output:\n" + volery.output());
        assertEquals(oracle.stdout().lines().toList(), volery.stdout().lines().toList(),
                "kazoo over TLS on Volery differs from ZooKeeper; Volery's output:\n" + volery.output()
                        + "\nZooKeeper's:\n" + oracle.output());
        assertEquals(EXPECTED, oracle.stdout().lines().toList(), "ZooKeeper's session; its output:\n" + oracle.output());
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }
}
