package io.volery.server.clients;

import io.volery.server.VoleryCluster;
import io.volery.server.VoleryNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.admin.ZooKeeperAdmin;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper's audit log (ADR 071): the same session of a real Java client (creates of every kind, failures,
 * setData, setACL, multis that succeed and fail, a reconfig, deletes, an ephemeral removed by the session's
 * end) against ZooKeeper 3.9.5 with {@code zookeeper.audit.enable=true} and a two-partition Volery with
 * {@code audit.enable}; both must write the same audit lines, sessions aside.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AuditLogTest {
    @TempDir
    Path dir;

    static final String USER = System.getProperty("user.name");
    static final List<String> EXPECTED = List.of(
            "user=" + USER + "\toperation=serverStart\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au\tznode_type=persistent\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au/s-0000000000\tznode_type=persistent_sequential\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au/e\tznode_type=ephemeral\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au/c\tznode_type=container\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au\tznode_type=persistent\tresult=failure",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=setData\tznode=/au\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=setData\tznode=/nope\tresult=failure",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=setAcl\tznode=/au\tacl=digest:bob:ikIaKsbtGweaHnb/jKn7OHqbunM=:cdrwaworld:anyone:r\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au/m1\tznode_type=persistent\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=setData\tznode=/au\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=delete\tznode=/au/m1\tresult=success",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=multiOperation\tresult=failure",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=create\tznode=/au/q-0000000004\tresult=success",
            "session=S2\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=reconfig\tresult=failure",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=delete\tznode=/au\tresult=failure",
            "session=S1\tuser=bob,127.0.0.1\tip=127.0.0.1\toperation=delete\tznode=/au/s-0000000000\tresult=success",
            "session=S1\tuser=" + USER + "\toperation=ephemeralZNodeDeletionOnSessionCloseOrExpire\tznode=/au/e\tresult=success");

    @Test
    void sameAuditLinesAsZooKeeper() throws Exception {
        Path jaas = dir.resolve("jaas.conf");
        Files.writeString(jaas, SaslZooKeeper.serverSection(Map.of("nobody", "unused")));
        List<String> oracle;
        Path zkDir = dir.resolve("zk");
        try (SaslZooKeeper zookeeper = SaslZooKeeper.start(zkDir, jaas, "-Dzookeeper.audit.enable=true",
                "-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper.audit=info")) {
            script(zookeeper.connectString());
            oracle = awaitLines(() -> zooKeeperAuditLines(zkDir.resolve("zookeeper.log")), EXPECTED.size());
        }
        assertEquals(EXPECTED, oracle, "ZooKeeper's audit lines");

        AtomicInteger n = new AtomicInteger();
        List<String> volery;
        List<String> lastLines = new ArrayList<>();
        try (VoleryCluster cluster = new VoleryCluster(2, 1, 2000, c -> c,
                o -> o.withAuditLog(dir.resolve("volery-audit-" + n.incrementAndGet() + ".log")))) {
            VoleryNode first = cluster.nodes().get(0);
            script("127.0.0.1:" + first.clientAddress().getPort());
            volery = awaitLines(() -> voleryLines(cluster, first), EXPECTED.size());
            cluster.nodes().forEach(node -> lastLines.add(node.audit().file().toString()));
        }
        assertEquals(oracle, volery, "Volery's audit lines against ZooKeeper's");
        for (String file : lastLines) {
            List<String> lines = Files.readAllLines(Path.of(file));
            assertTrue(lines.get(lines.size() - 1).endsWith(" INFO user=" + USER + "\toperation=serverStop\tresult=invoked"),
                    "a node's last line says it stopped: " + lines);
        }
    }

    /** The client's session: every kind of change the audit log covers, successful or not. */
    private static void script(String connect) throws Exception {
        ZooKeeper zk = Clients.zooKeeper(connect, 10_000, null);
        try {
            zk.addAuthInfo("digest", "bob:pw".getBytes(StandardCharsets.UTF_8));
            byte[] none = new byte[0];
            zk.create("/au", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            zk.create("/au/s-", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL);
            zk.create("/au/e", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            zk.create("/au/c", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
            expectFailure(() -> zk.create("/au", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
            zk.getData("/au", false, null); // reads are not audited
            zk.setData("/au", "x".getBytes(StandardCharsets.UTF_8), -1);
            expectFailure(() -> zk.setData("/nope", none, -1));
            List<ACL> acl = new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest",
                    io.volery.server.frontend.ZkConnectionHandler.digestId("bob", "pw"))), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
            zk.setACL("/au", acl, -1);
            zk.multi(List.of(Op.create("/au/m1", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                    Op.setData("/au", none, -1), Op.delete("/au/m1", -1), Op.check("/au", -1)));
            expectFailure(() -> zk.multi(List.of(Op.create("/au/m2", none, ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT), Op.delete("/nope", -1))));
            zk.multi(List.of(Op.create("/au/q-", none, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL)));
            // a reconfig, from an admin client's session of its own (refused: dynamic reconfiguration is off)
            ZooKeeperAdmin admin = new ZooKeeperAdmin(connect, 10_000, e -> { });
            try {
                admin.addAuthInfo("digest", "bob:pw".getBytes(StandardCharsets.UTF_8));
                expectFailure(() -> admin.reconfigure("server.9=127.0.0.9:2888:3888;2181", null, null, -1, null));
            } finally {
                admin.close();
            }
            expectFailure(() -> {
                zk.delete("/au", -1);
                return null;
            });
            zk.delete("/au/s-0000000000", -1);
        } finally {
            zk.close(); // the ephemeral goes with the session
        }
    }

    interface Step {
        Object run() throws Exception;
    }

    private static void expectFailure(Step s) {
        try {
            s.run();
        } catch (Exception expected) {
            // a KeeperException, whose audit line is what the test looks at
        }
    }

    interface Lines {
        List<String> read() throws Exception;
    }

    /** The lines, once there are {@code count} of them (the logs are written a moment after the replies). */
    private static List<String> awaitLines(Lines lines, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> now = lines.read();
        while (now.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(100);
            now = lines.read();
        }
        return now;
    }

    private static final Pattern SESSION = Pattern.compile("session=0x[0-9a-f]+");

    /** Session ids become S1, S2... in the order they first appear. */
    private static List<String> sessionsNamed(List<String> lines) {
        Map<String, String> names = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            Matcher m = SESSION.matcher(l);
            StringBuilder b = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(b, "session=" + names.computeIfAbsent(m.group(), k -> "S" + (names.size() + 1)));
            }
            m.appendTail(b);
            out.add(b.toString());
        }
        return out;
    }

    /** The audit lines of a ZooKeeper log (its Slf4jAuditLogger's messages). */
    private static List<String> zooKeeperAuditLines(Path log) throws Exception {
        List<String> lines = new ArrayList<>();
        for (String l : Files.readAllLines(log)) {
            int at = l.indexOf("Slf4jAuditLogger - ");
            if (at >= 0) {
                lines.add(l.substring(at + "Slf4jAuditLogger - ".length()));
            }
        }
        return sessionsNamed(lines);
    }

    /** The client's node's audit lines, then the other nodes' (the ephemeral's removal may be there), stops aside. */
    private static List<String> voleryLines(VoleryCluster cluster, VoleryNode first) throws Exception {
        List<String> lines = new ArrayList<>(text(first.audit().file(), true));
        for (VoleryNode node : cluster.nodes()) {
            if (node != first) {
                lines.addAll(text(node.audit().file(), false));
            }
        }
        return sessionsNamed(lines);
    }

    /** An audit file's events without time and level; {@code withStart}: its serverStart line kept. */
    private static List<String> text(Path file, boolean withStart) throws Exception {
        List<String> out = new ArrayList<>();
        for (String l : Files.readAllLines(file)) {
            String event = l.substring(l.indexOf(' ', l.indexOf(' ') + 1) + 1);
            if (event.contains("operation=serverStop") || (!withStart && event.contains("operation=serverStart"))) {
                continue;
            }
            out.add(event);
        }
        return out;
    }
}
