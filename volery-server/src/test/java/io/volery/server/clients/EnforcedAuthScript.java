package io.volery.server.clients;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.volery.server.clients.SaslScript.acl;
import static io.volery.server.clients.SaslScript.outcome;
import static io.volery.server.clients.SaslScript.say;
import static io.volery.server.clients.SaslScript.whoAmI;

/**
 * A scripted session of ZooKeeper 3.9.5 Java clients against a server that enforces authentication
 * (ZooKeeper's {@code zookeeper.enforce.auth.*} or {@code sessionRequireClientSASLAuth}), in a JVM of its
 * own like {@link SaslScript}, for {@link EnforcedAuthTest} to compare ZooKeeper and Volery. Arguments:
 * the connect string, a path prefix, and {@code digest} (digest enforced) or {@code sasl} (SASL required;
 * the JAAS file has {@code Bob} and {@code Wrong} sections).
 */
public final class EnforcedAuthScript {

    private EnforcedAuthScript() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String p = args[1];
        if (args[2].equals("digest")) {
            digest(connect, p);
        } else {
            sasl(connect, p);
        }
        say("done");
    }

    /** A client that never uses SASL, its session events in {@code events}. */
    private static ZooKeeper open(String connect, BlockingQueue<Watcher.Event.KeeperState> events) throws Exception {
        return new ZooKeeper(connect, 4_000, e -> {
            if (e.getType() == Watcher.Event.EventType.None) {
                events.add(e.getState());
            }
        }, SaslScript.config(null));
    }

    private static void digest(String connect, String p) throws Exception {
        BlockingQueue<Watcher.Event.KeeperState> plainEvents = new LinkedBlockingQueue<>();
        ZooKeeper plain = open(connect, plainEvents);
        SaslScript.await(plainEvents, Watcher.Event.KeeperState.SyncConnected, "plain");
        long session = plain.getSessionId();
        say("plain exists / " + outcome(() -> plain.exists("/", false) != null));
        // the server closed the connection; the client connects again, to the same session
        say("plain after the refusal " + SaslScript.await(plainEvents, Watcher.Event.KeeperState.Disconnected, "plain")
                + " then " + SaslScript.await(plainEvents, Watcher.Event.KeeperState.SyncConnected, "plain"));
        say("plain same session " + (plain.getSessionId() == session));
        plain.addAuthInfo("digest", "dave:pw".getBytes(StandardCharsets.UTF_8));
        say("plain create after addAuth " + outcome(() -> plain.create(p + "a", "a".getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT)));
        say("acl of it " + acl(plain, p + "a"));
        say("plain whoAmI " + whoAmI(plain));

        // authentication sent before the connection is up goes first, so nothing is refused
        BlockingQueue<Watcher.Event.KeeperState> earlyEvents = new LinkedBlockingQueue<>();
        ZooKeeper early = open(connect, earlyEvents);
        early.addAuthInfo("digest", "erin:pw".getBytes(StandardCharsets.UTF_8));
        SaslScript.await(earlyEvents, Watcher.Event.KeeperState.SyncConnected, "early");
        say("early ephemeral " + outcome(() -> early.create(p + "e", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL)));
        say("early sees " + outcome(() -> {
            List<String> mine = new ArrayList<>();
            for (String c : early.getChildren("/", false)) {
                if (("/" + c).startsWith(p)) {
                    mine.add(c);
                }
            }
            mine.sort(null);
            return mine;
        }));
        say("early get dave's " + outcome(() -> early.getData(p + "a", false, null)));

        // a client that only waits: its first ping is refused and the connection closed
        BlockingQueue<Watcher.Event.KeeperState> idleEvents = new LinkedBlockingQueue<>();
        ZooKeeper idle = open(connect, idleEvents);
        SaslScript.await(idleEvents, Watcher.Event.KeeperState.SyncConnected, "idle");
        say("idle " + SaslScript.await(idleEvents, Watcher.Event.KeeperState.Disconnected, "idle"));
        idle.close();

        early.close();
        say("dave sees the ephemeral after its owner closed " + outcome(() -> plain.exists(p + "e", false)));
        plain.close();
    }

    private static void sasl(String connect, String p) throws Exception {
        ZooKeeper bob = SaslScript.connect(connect, "Bob", "bob");
        say("bob create " + outcome(() -> bob.create(p + "s", "s".getBytes(StandardCharsets.UTF_8),
                ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)));
        say("bob whoAmI " + whoAmI(bob));

        BlockingQueue<Watcher.Event.KeeperState> events = new LinkedBlockingQueue<>();
        ZooKeeper plain = open(connect, events);
        SaslScript.await(events, Watcher.Event.KeeperState.SyncConnected, "plain");
        say("plain get " + outcome(() -> plain.getData(p + "s", false, null)));
        plain.close();

        // a digest identity is not the SASL one the server requires
        BlockingQueue<Watcher.Event.KeeperState> digestEvents = new LinkedBlockingQueue<>();
        ZooKeeper digest = open(connect, digestEvents);
        digest.addAuthInfo("digest", "dave:pw".getBytes(StandardCharsets.UTF_8));
        SaslScript.await(digestEvents, Watcher.Event.KeeperState.SyncConnected, "digest");
        say("digest get " + outcome(() -> digest.getData(p + "s", false, null)));
        digest.close();

        ZooKeeper wrong = SaslScript.connect(connect, "Wrong", "wrong");
        say("wrong get " + outcome(() -> wrong.getData(p + "s", false, null)));
        wrong.close();

        say("bob get " + outcome(() -> bob.getData(p + "s", false, null)));
        bob.close();
    }
}
