package io.volery.server.clients;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scripted session of ZooKeeper 3.9.5 Java clients that authenticate by SASL DIGEST-MD5, run in a JVM
 * of its own (the JAAS login configuration is JVM-wide: {@code -Djava.security.auth.login.config} names a
 * file with one section per user) so that {@link SaslDigestTest} can run the same script against
 * ZooKeeper and Volery and compare what it prints. Arguments: the connect string and a path prefix.
 */
public final class SaslScript {

    // ArrayLists: the client's ACL check asks whether a list contains null, which List.of answers with an exception
    private static final List<ACL> BOB_ONLY = acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "bob")));

    private SaslScript() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String p = args[1];
        if (args.length > 2 && args[2].equals("server-without-sasl")) {
            // a client set up for SASL, against a server that has none
            ZooKeeper bob = connect(connect, "Bob", "bob");
            say("bob exists / " + outcome(() -> bob.exists("/", false) != null));
            bob.close();
            ZooKeeper plain = connect(connect, null, "plain");
            say("plain exists / " + outcome(() -> plain.exists("/", false) != null));
            plain.close();
            say("done");
            return;
        }
        ZooKeeper bob = connect(connect, "Bob", "bob");
        say("bob whoAmI " + whoAmI(bob));
        say("bob create " + outcome(() -> bob.create(p + "a", "a".getBytes(StandardCharsets.UTF_8), BOB_ONLY,
                CreateMode.PERSISTENT)));
        say("bob create with auth " + outcome(() -> bob.create(p + "auth", new byte[0], ZooDefs.Ids.CREATOR_ALL_ACL,
                CreateMode.PERSISTENT)));
        say("acl of the auth node " + acl(bob, p + "auth"));
        List<ACL> bobWritesAnyoneReads = acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "bob")),
                new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
        say("bob create shared " + outcome(() -> bob.create(p + "shared", "s".getBytes(StandardCharsets.UTF_8),
                bobWritesAnyoneReads, CreateMode.PERSISTENT)));
        say("bob get own " + outcome(() -> new String(bob.getData(p + "a", false, null), StandardCharsets.UTF_8)));
        say("bob malformed principal " + outcome(() -> bob.create(p + "bad", new byte[0],
                acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "x@y@z"))), CreateMode.PERSISTENT)));
        say("bob kerberos principal " + outcome(() -> bob.create(p + "krb", new byte[0],
                acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", "svc/host.example@EXAMPLE"))), CreateMode.PERSISTENT)));
        say("bob multi " + outcome(() -> bob.multi(List.of(
                Op.create(p + "m1", new byte[0], BOB_ONLY, CreateMode.PERSISTENT),
                Op.create(p + "m2", new byte[0], BOB_ONLY, CreateMode.EPHEMERAL))).size()));

        ZooKeeper alice = connect(connect, "Alice", "alice");
        say("alice whoAmI " + whoAmI(alice));
        say("alice get bob's " + outcome(() -> alice.getData(p + "a", false, null)));
        say("alice get shared " + outcome(() -> new String(alice.getData(p + "shared", false, null), StandardCharsets.UTF_8)));
        say("alice set shared " + outcome(() -> alice.setData(p + "shared", new byte[1], -1).getVersion()));
        say("alice delete bob's ephemeral child " + outcome(() -> {
            alice.delete(p + "m2", -1);
            return "deleted";
        }));
        say("alice adds digest " + outcome(() -> {
            alice.addAuthInfo("digest", "carol:pw".getBytes(StandardCharsets.UTF_8));
            return whoAmI(alice);
        }));
        say("alice create with auth, two ids " + outcome(() -> alice.create(p + "two", new byte[0],
                ZooDefs.Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT)));
        say("acl of the two-id node " + acl(alice, p + "two"));

        ZooKeeper admin = connect(connect, "Admin", "admin");
        say("admin whoAmI " + whoAmI(admin));
        say("admin get bob's " + outcome(() -> new String(admin.getData(p + "a", false, null), StandardCharsets.UTF_8)));
        say("admin set acl " + outcome(() -> admin.setACL(p + "a", ZooDefs.Ids.OPEN_ACL_UNSAFE, -1).getAversion()));
        say("alice get bob's after " + outcome(() -> new String(alice.getData(p + "a", false, null), StandardCharsets.UTF_8)));

        ZooKeeper plain = connect(connect, null, "plain");
        say("plain whoAmI " + whoAmI(plain));
        say("plain get shared " + outcome(() -> new String(plain.getData(p + "shared", false, null), StandardCharsets.UTF_8)));
        say("plain set shared " + outcome(() -> plain.setData(p + "shared", new byte[1], -1).getVersion()));

        for (String who : List.of("Wrong", "Nobody")) {
            ZooKeeper z = connect(connect, who, who.toLowerCase());
            say(who.toLowerCase() + " get shared " + outcome(() -> z.getData(p + "shared", false, null).length));
            z.close();
        }
        // a client may not claim a SASL identity with addAuth
        BlockingQueue<Watcher.Event.KeeperState> claimed = new LinkedBlockingQueue<>();
        ZooKeeper claimer = new ZooKeeper(connect, 10_000, e -> claimed.add(e.getState()), config(null));
        await(claimed, Watcher.Event.KeeperState.SyncConnected, "claimer");
        claimer.addAuthInfo("sasl", "bob".getBytes(StandardCharsets.UTF_8));
        say("addAuth sasl bob " + await(claimed, Watcher.Event.KeeperState.AuthFailed, "claimer"));
        claimer.close();

        say("bob get after all " + outcome(() -> new String(bob.getData(p + "shared", false, null), StandardCharsets.UTF_8)));
        for (ZooKeeper z : List.of(bob, alice, admin, plain)) {
            z.close();
        }
        say("done");
    }

    static List<ACL> acl(ACL... entries) {
        return new ArrayList<>(List.of(entries));
    }

    static ZKClientConfig config(String loginContext) {
        ZKClientConfig c = new ZKClientConfig();
        if (loginContext == null) {
            c.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
        } else {
            c.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "true");
            c.setProperty(ZKClientConfig.LOGIN_CONTEXT_NAME_KEY, loginContext);
        }
        return c;
    }

    /**
     * A client of the JAAS section {@code loginContext} (null: SASL off), once the connection and its SASL
     * negotiation ended; prints how the negotiation ended.
     */
    static ZooKeeper connect(String connect, String loginContext, String who) throws Exception {
        return connect(connect, config(loginContext), loginContext != null, who);
    }

    /** The same with a client configuration of the caller's; {@code sasl}: it negotiates SASL. */
    static ZooKeeper connect(String connect, ZKClientConfig config, boolean sasl, String who) throws Exception {
        BlockingQueue<Watcher.Event.KeeperState> states = new LinkedBlockingQueue<>();
        ZooKeeper z = new ZooKeeper(connect, 10_000, e -> {
            if (e.getType() == Watcher.Event.EventType.None) {
                states.add(e.getState());
            }
        }, config);
        await(states, Watcher.Event.KeeperState.SyncConnected, who);
        if (sasl) {
            Watcher.Event.KeeperState end = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (end == null && System.nanoTime() < deadline) {
                Watcher.Event.KeeperState s = states.poll(100, TimeUnit.MILLISECONDS);
                if (s == Watcher.Event.KeeperState.SaslAuthenticated || s == Watcher.Event.KeeperState.AuthFailed) {
                    end = s;
                }
            }
            say(who + " sasl " + end);
        }
        return z;
    }

    static String await(BlockingQueue<Watcher.Event.KeeperState> states, Watcher.Event.KeeperState wanted,
                                String who) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Watcher.Event.KeeperState s = states.poll(100, TimeUnit.MILLISECONDS);
            if (s == wanted) {
                return s.toString();
            }
        }
        throw new IllegalStateException(who + " never saw " + wanted);
    }

    static String whoAmI(ZooKeeper z) throws Exception {
        List<String> ids = new ArrayList<>();
        z.whoAmI().forEach(i -> ids.add(i.getAuthScheme() + ":" + i.getUser()));
        ids.sort(null);
        return ids.toString();
    }

    static String acl(ZooKeeper z, String path) {
        return outcome(() -> {
            List<String> out = new ArrayList<>();
            z.getACL(path, null).forEach(a -> out.add(a.getId().getScheme() + ":" + a.getId().getId() + "=" + a.getPerms()));
            return out.toString();
        });
    }

    interface Step {
        Object run() throws Exception;
    }

    static String outcome(Step s) {
        try {
            Object o = s.run();
            return "ok " + (o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : o);
        } catch (KeeperException e) {
            return e.code().name();
        } catch (Exception e) {
            e.printStackTrace(); // on standard error, which the test shows when the outputs differ
            return e.getClass().getSimpleName();
        }
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
