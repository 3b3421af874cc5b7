package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import org.apache.jute.Record;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.WhoAmIResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Identities belong to the connection, not the session (ADR 070), as in ZooKeeper: a client that reconnects
 * to its session with the session's id and password has the new connection's {@code ip} identity and
 * nothing it proved on the old one until it proves it again. The same raw byte-level script runs against
 * ZooKeeper 3.9.5 and a two-partition Volery and both must print the same lines; then a real Java client,
 * which proves its identities again on every connection, keeps its access across a node it was connected
 * to going away.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReconnectIdentityTest {
    @TempDir
    Path dir;

    static final List<String> EXPECTED = List.of(
            "first connection addAuth 0",
            "first connection create 0",
            "first connection whoAmI [digest:bob, ip:127.0.0.1]",
            "reconnect from 127.0.0.2 whoAmI [ip:127.0.0.2]",
            "reconnect get the bob-only node -102",
            "reconnect addAuth 0",
            "reconnect get the bob-only node 0 s",
            "reconnect whoAmI [digest:bob, ip:127.0.0.2]",
            "wrong password refused",
            "back from 127.0.0.1 whoAmI [ip:127.0.0.1]",
            "done");

    @Test
    void aReconnectWithTheSessionPasswordCarriesNoIdentity() throws Exception {
        List<String> oracle;
        io.volery.server.backtoback.EmbeddedZooKeeper zookeeper = Clients.listeningZooKeeper(java.nio.file.Files.createDirectories(dir.resolve("zk")));
        try {
            String[] hostPort = zookeeper.connectString().split(":");
            oracle = script(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
        } finally {
            zookeeper.stop();
        }
        assertEquals(EXPECTED, oracle, "ZooKeeper's answers");
        List<String> volery;
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 0, 2000)) {
            String[] hostPort = cluster.connectString().split(",")[0].split(":");
            volery = script(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
        }
        assertEquals(oracle, volery, "Volery's answers against ZooKeeper's");
    }

    private static List<String> script(InetSocketAddress server) throws Exception {
        List<String> out = new ArrayList<>();
        long session;
        byte[] password;
        String path = "/ri-secret";
        try (RawZkConnection first = new RawZkConnection(server, 10_000)) {
            session = first.sessionId;
            password = first.password();
            out.add("first connection addAuth " + first.call(-4, OpCode.auth,
                    new AuthPacket(0, "digest", "bob:pw".getBytes(StandardCharsets.UTF_8)), null).getErr());
            out.add("first connection create " + first.call(1, OpCode.create,
                    new CreateRequest(path, "s".getBytes(StandardCharsets.UTF_8),
                            new ArrayList<>(ZooDefs.Ids.CREATOR_ALL_ACL), CreateMode.PERSISTENT.toFlag()),
                    new CreateResponse()).getErr());
            out.add("first connection whoAmI " + whoAmI(first, 2));
        }
        // the same session from another address, with its password alone
        try (RawZkConnection again = new RawZkConnection(server, 10_000, InetAddress.getByName("127.0.0.2"), session,
                password)) {
            out.add("reconnect from 127.0.0.2 whoAmI " + whoAmI(again, 3));
            out.add("reconnect get the bob-only node " + get(again, 4, path));
            out.add("reconnect addAuth " + again.call(-4, OpCode.auth,
                    new AuthPacket(0, "digest", "bob:pw".getBytes(StandardCharsets.UTF_8)), null).getErr());
            out.add("reconnect get the bob-only node " + get(again, 5, path));
            out.add("reconnect whoAmI " + whoAmI(again, 6));
            byte[] wrong = password.clone();
            wrong[0] ^= 1;
            try (RawZkConnection thief = new RawZkConnection(server, 10_000, null, session, wrong)) {
                out.add("wrong password accepted");
            } catch (IOException refused) {
                out.add("wrong password refused");
            }
            // (ZooKeeper closes the session's connection at any reconnect attempt, password right or not)
        }
        try (RawZkConnection last = new RawZkConnection(server, 10_000, null, session, password)) {
            out.add("back from 127.0.0.1 whoAmI " + whoAmI(last, 7));
            last.call(8, OpCode.closeSession, null, null);
        }
        out.add("done");
        return out;
    }

    private static String whoAmI(RawZkConnection c, int xid) throws IOException {
        WhoAmIResponse r = new WhoAmIResponse();
        ReplyHeader h = c.call(xid, OpCode.whoAmI, null, r);
        if (h.getErr() != 0) {
            return "error " + h.getErr();
        }
        List<String> ids = new ArrayList<>();
        r.getClientInfo().forEach(i -> ids.add(i.getAuthScheme() + ":" + i.getUser()));
        return ids.toString();
    }

    private static String get(RawZkConnection c, int xid, String path) throws IOException {
        GetDataResponse r = new GetDataResponse();
        ReplyHeader h = c.call(xid, OpCode.getData, new GetDataRequest(path, false), r);
        return h.getErr() == 0 ? "0 " + new String(r.getData(), StandardCharsets.UTF_8) : String.valueOf(h.getErr());
    }

    /**
     * A Java client proves its identities again on each connection: after the node it was connected to
     * closes, it reconnects to another and still reads what only it may, with the same identities.
     */
    @Test
    void aJavaClientKeepsItsAccessAcrossAReconnect() throws Exception {
        try (VoleryCluster cluster = new VoleryCluster(1, 3, 0, 2000)) {
            ZooKeeper zk = Clients.zooKeeper(cluster.connectString(), 20_000, null);
            try {
                zk.addAuthInfo("digest", "bob:pw".getBytes(StandardCharsets.UTF_8));
                zk.create("/ri-java", "j".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.CREATOR_ALL_ACL,
                        CreateMode.PERSISTENT);
                List<String> before = SaslScript.whoAmI(zk).lines().toList();
                String connectedTo = remote(zk);
                VoleryNode node = cluster.nodes().stream()
                        .filter(n -> connectedTo.endsWith(":" + n.clientAddress().getPort()))
                        .findFirst().orElseThrow(() -> new AssertionError("connected to no node: " + connectedTo));
                node.close();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                String now = connectedTo;
                while ((now == null || now.equals(connectedTo) || !zk.getState().isConnected())
                        && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    now = remote(zk);
                }
                assertNotEquals(connectedTo, now, "the client moved to another node");
                assertEquals("j", new String(zk.getData("/ri-java", false, null), StandardCharsets.UTF_8));
                assertEquals(before, SaslScript.whoAmI(zk).lines().toList(), "the same identities after the reconnect");
            } finally {
                zk.close();
            }
        }
    }

    /** The server address the client is connected to, from its description ("remoteserver:/host:port"). */
    private static String remote(ZooKeeper zk) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("remoteserver:(\\S+)").matcher(zk.toString());
        return m.find() && !m.group(1).equals("null") ? m.group(1) : null;
    }
}
