package io.volery.server.clients;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.volery.server.clients.SaslScript.acl;
import static io.volery.server.clients.SaslScript.outcome;
import static io.volery.server.clients.SaslScript.say;
import static io.volery.server.clients.SaslScript.whoAmI;

/**
 * A scripted session of ZooKeeper 3.9.5 Java clients that authenticate by Kerberos (SASL GSSAPI), in a JVM
 * of its own ({@code -Djava.security.auth.login.config} names a JAAS file with a section per client,
 * {@code -Djava.security.krb5.conf} the test KDC), so that {@link KerberosSaslTest} can run it against
 * ZooKeeper and Volery and compare what it prints. Arguments: the connect string, a path prefix, the
 * server's principal, and optionally a mode: "names" (only who each client is) or "mixed" (a Kerberos and
 * a DIGEST-MD5 client, for a server that takes both).
 */
public final class KerberosScript {
    static final String BOB = "bob@" + TestKdc.REALM;
    static final String ALICE = "alice@" + TestKdc.REALM;
    static final String ADMIN = "admin/ops.example.com@" + TestKdc.REALM;

    private KerberosScript() {
    }

    public static void main(String[] args) throws Exception {
        String connect = args[0];
        String p = args[1];
        String server = args[2];
        String mode = args.length > 3 ? args[3] : "";
        if (mode.equals("names")) {
            for (String who : List.of("Bob", "Admin")) {
                ZooKeeper z = connect(connect, who, server);
                say(who.toLowerCase() + " whoAmI " + whoAmI(z));
                z.close();
            }
            say("done");
            return;
        }
        if (mode.equals("mixed")) {
            ZooKeeper bob = connect(connect, "Bob", server);
            say("bob whoAmI " + whoAmI(bob));
            ZooKeeper digest = connect(connect, "Digest", server);
            say("digest whoAmI " + whoAmI(digest));
            say("bob create " + outcome(() -> bob.create(p + "mixed", new byte[0],
                    acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", BOB)), new ACL(ZooDefs.Perms.READ, new Id("sasl", "dora"))),
                    CreateMode.PERSISTENT)));
            say("digest get " + outcome(() -> digest.getData(p + "mixed", false, null).length));
            say("digest set " + outcome(() -> digest.setData(p + "mixed", new byte[1], -1).getVersion()));
            say("bob set " + outcome(() -> bob.setData(p + "mixed", new byte[1], -1).getVersion()));
            bob.close();
            digest.close();
            say("done");
            return;
        }
        ZooKeeper bob = connect(connect, "Bob", server);
        say("bob whoAmI " + whoAmI(bob));
        List<ACL> bobOnly = acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", BOB)));
        say("bob create " + outcome(() -> bob.create(p + "a", "a".getBytes(StandardCharsets.UTF_8), bobOnly,
                CreateMode.PERSISTENT)));
        say("bob create with auth " + outcome(() -> bob.create(p + "auth", new byte[0], ZooDefs.Ids.CREATOR_ALL_ACL,
                CreateMode.PERSISTENT)));
        say("acl of the auth node " + acl(bob, p + "auth"));
        say("bob create shared " + outcome(() -> bob.create(p + "shared", "s".getBytes(StandardCharsets.UTF_8),
                acl(new ACL(ZooDefs.Perms.ALL, new Id("sasl", BOB)), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)),
                CreateMode.PERSISTENT)));
        say("bob get own " + outcome(() -> bob.getData(p + "a", false, null)));

        ZooKeeper alice = connect(connect, "Alice", server);
        say("alice whoAmI " + whoAmI(alice));
        say("alice get bob's " + outcome(() -> alice.getData(p + "a", false, null)));
        say("alice get shared " + outcome(() -> alice.getData(p + "shared", false, null)));
        say("alice set shared " + outcome(() -> alice.setData(p + "shared", new byte[1], -1).getVersion()));

        ZooKeeper admin = connect(connect, "Admin", server);
        say("admin whoAmI " + whoAmI(admin));
        say("admin get bob's " + outcome(() -> admin.getData(p + "a", false, null)));
        say("admin set acl " + outcome(() -> admin.setACL(p + "a", ZooDefs.Ids.OPEN_ACL_UNSAFE, -1).getAversion()));
        say("alice get bob's after " + outcome(() -> alice.getData(p + "a", false, null)));

        // bob's own key, but a ticket for a service principal this server has no key of
        ZooKeeper misdirected = connect(connect, "Bob", "zookeeper/elsewhere@" + TestKdc.REALM, "misdirected");
        say("misdirected get shared " + outcome(() -> misdirected.getData(p + "shared", false, null)));
        misdirected.close();
        // a DIGEST-MD5 client, against a server with Kerberos alone
        ZooKeeper digest = connect(connect, "Digest", server, "digest");
        say("digest get shared " + outcome(() -> digest.getData(p + "shared", false, null)));
        digest.close();

        say("bob get after all " + outcome(() -> bob.getData(p + "shared", false, null)));
        for (ZooKeeper z : List.of(bob, alice, admin)) {
            z.close();
        }
        say("done");
    }

    private static ZooKeeper connect(String connect, String section, String server) throws Exception {
        return connect(connect, section, server, section.toLowerCase());
    }

    /**
     * A client of the JAAS section {@code section} asking for a ticket to {@code server}, once the connection
     * and its SASL negotiation ended; prints how the negotiation ended.
     */
    private static ZooKeeper connect(String connect, String section, String server, String who) throws Exception {
        ZKClientConfig config = SaslScript.config(section);
        config.setProperty(ZKClientConfig.ZOOKEEPER_SERVER_PRINCIPAL, server);
        return SaslScript.connect(connect, config, true, who);
    }
}
