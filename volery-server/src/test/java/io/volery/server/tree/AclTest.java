package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.bytes;
import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ACL schemes (world, auth, digest, ip), permission bits per operation, super and InvalidACL. */
class AclTest {

    private static final String SUPER_DIGEST = AclPolicy.digestId("super:secret");
    private TreeFixture f;
    private long alice;
    private long bob;

    @BeforeEach
    void setUp() {
        f = new TreeFixture(TreeConfig.defaults().withSuperDigest(SUPER_DIGEST));
        alice = f.session();
        bob = f.session();
        f.run(new Command.AddAuth(alice, "digest", bytes("alice:pw")));
    }

    private Result createWithAcl(long s, String path, List<Acl> acl) {
        return f.run(new Command.Create(s, path, new byte[0], acl, CreateMode.PERSISTENT));
    }

    @Test
    void digestIdIsUserColonBase64OfSha1() {
        // the super digest of ZooKeeper's admin guide, and `printf alice:pw | openssl sha1 -binary | base64`
        assertEquals("super:D/InIHSb7yEEbrWz8b9l71RjZJU=", AclPolicy.digestId("super:test"));
        assertEquals("alice:V55/p2T0OpjQ+low3NVAH4aLvm0=", AclPolicy.digestId("alice:pw"));
        Reply.Identities who = f.run(new Command.WhoAmI(alice)).reply(Reply.Identities.class);
        assertEquals(java.util.Set.of(new Id("ip", "127.0.0.1"), new Id("digest", AclPolicy.digestId("alice:pw"))),
                java.util.Set.copyOf(who.ids()));
    }

    @Test
    void identitiesAreListedInZooKeepersHashSetOrder() {
        // a ConcurrentHashMap-backed set of jute Ids in ZooKeeper 3.9.5 iterates ip:127.0.0.1,
        // digest user0:pw, digest user1:pw (added in this order) as user1, ip, user0
        TreeFixture t = new TreeFixture();
        long s = t.session();
        t.run(new Command.AddAuth(s, "digest", bytes("user0:pw")));
        t.run(new Command.AddAuth(s, "digest", bytes("user1:pw")));
        List<String> order = t.run(new Command.WhoAmI(s)).reply(Reply.Identities.class).ids().stream()
                .map(id -> id.scheme().equals("digest") ? id.id().split(":")[0] : id.scheme()).toList();
        assertEquals(List.of("user1", "ip", "user0"), order);
    }

    @Test
    void emptyAclOrAuthWithoutIdentityIsInvalidAcl() {
        expect(ErrorCode.INVALIDACL, createWithAcl(alice, "/x", List.of()), "empty ACL list");
        expect(ErrorCode.INVALIDACL, createWithAcl(bob, "/x", Acl.CREATOR_ALL), "auth with only an ip identity");
        expect(ErrorCode.INVALIDACL, createWithAcl(alice, "/x", List.of(new Acl(Perms.ALL, new Id("world", "bob")))),
                "world only knows anyone");
        expect(ErrorCode.INVALIDACL, createWithAcl(alice, "/x", List.of(new Acl(Perms.ALL, new Id("foo", "x")))),
                "unknown scheme");
        expect(ErrorCode.INVALIDACL, createWithAcl(alice, "/x", List.of(new Acl(Perms.ALL, new Id("ip", "1.2.3")))),
                "malformed ip");
        expect(ErrorCode.INVALIDACL, f.run(new Command.SetAcl(alice, "/zookeeper", List.of(), -1)), "setACL too");
    }

    @Test
    void authSchemeExpandsToTheCreatorsDigestIdentity() {
        expect(ErrorCode.OK, createWithAcl(alice, "/mine", Acl.CREATOR_ALL), "alice has a digest identity");
        Reply.Acls acls = f.run(new Command.GetAcl(alice, "/mine")).reply(Reply.Acls.class);
        assertEquals(List.of(new Acl(Perms.ALL, new Id("digest", AclPolicy.digestId("alice:pw")))), acls.acl());
        expect(ErrorCode.NOAUTH, f.run(new Command.GetData(bob, "/mine", false)), "bob may not read");
        expect(ErrorCode.NOAUTH, f.run(new Command.SetData(bob, "/mine", new byte[0], -1)), "nor write");
        expect(ErrorCode.NOAUTH, f.create(bob, "/mine/c", CreateMode.PERSISTENT), "nor create children");
        expect(ErrorCode.NOAUTH, f.run(new Command.SetAcl(bob, "/mine", Acl.OPEN, -1)), "nor administer");
        expect(ErrorCode.OK, f.run(new Command.GetData(alice, "/mine", false)), "alice may");
    }

    @Test
    void existsOnAnExistingNodeNeedsRead() {
        createWithAcl(alice, "/w", List.of(new Acl(Perms.WRITE, Id.ANYONE)));
        expect(ErrorCode.NOAUTH, f.run(new Command.Exists(bob, "/w", false)), "exists needs READ");
        expect(ErrorCode.NONODE, f.run(new Command.Exists(bob, "/nothing", false)), "missing node: NoNode");
        expect(ErrorCode.NOAUTH, f.run(new Command.GetChildren(bob, "/w", false, false)), "getChildren needs READ");
        expect(ErrorCode.NOAUTH, f.run(new Command.GetAcl(bob, "/w")), "getACL needs READ or ADMIN");
        expect(ErrorCode.OK, f.run(new Command.SetData(bob, "/w", new byte[0], -1)), "WRITE is granted");
    }

    @Test
    void getAclWithAdminButNoReadShowsDigestsRedacted() {
        String digest = AclPolicy.digestId("carol:pw");
        createWithAcl(alice, "/a", List.of(new Acl(Perms.ADMIN, Id.ANYONE), new Acl(Perms.READ, new Id("digest", digest))));
        Reply.Acls shown = f.run(new Command.GetAcl(bob, "/a")).reply(Reply.Acls.class);
        assertEquals(new Id("digest", digest), shown.acl().get(1).id(), "ADMIN without READ sees the hash");
        createWithAcl(alice, "/r", List.of(new Acl(Perms.READ, Id.ANYONE), new Acl(Perms.READ, new Id("digest", digest))));
        Reply.Acls redacted = f.run(new Command.GetAcl(bob, "/r")).reply(Reply.Acls.class);
        assertEquals(new Id("digest", "carol:x"), redacted.acl().get(1).id(), "READ without ADMIN: hash hidden");
    }

    @Test
    void deleteNeedsDeleteOnTheParentNotTheNode() {
        createWithAcl(alice, "/p", List.of(new Acl(Perms.ALL & ~Perms.DELETE, Id.ANYONE)));
        createWithAcl(alice, "/p/c", List.of(new Acl(Perms.READ, Id.ANYONE)));
        expect(ErrorCode.NOAUTH, f.run(new Command.Delete(bob, "/p/c", -1)), "parent lacks DELETE");
        createWithAcl(alice, "/q", Acl.OPEN);
        createWithAcl(alice, "/q/c", List.of(new Acl(Perms.READ, Id.ANYONE)));
        expect(ErrorCode.OK, f.run(new Command.Delete(bob, "/q/c", -1)), "the node's own ACL does not matter");
    }

    @Test
    void ipSchemeMatchesAddressesAndPrefixes() {
        createWithAcl(alice, "/ip", List.of(new Acl(Perms.READ, new Id("ip", "127.0.0.0/8"))));
        createWithAcl(alice, "/other", List.of(new Acl(Perms.READ, new Id("ip", "10.0.0.1"))));
        expect(ErrorCode.OK, f.run(new Command.GetData(bob, "/ip", false)), "127.0.0.1 is in 127/8");
        expect(ErrorCode.NOAUTH, f.run(new Command.GetData(bob, "/other", false)), "127.0.0.1 is not 10.0.0.1");
        assertTrue(AclPolicy.IpMatch.matches("fe80::1", "fe80::/16"));
    }

    @Test
    void superBypassesEveryCheck() {
        createWithAcl(alice, "/locked", Acl.CREATOR_ALL);
        long root = f.session();
        f.run(new Command.AddAuth(root, "digest", bytes("super:secret")));
        expect(ErrorCode.OK, f.run(new Command.GetData(root, "/locked", false)), "super reads");
        expect(ErrorCode.OK, f.run(new Command.Delete(root, "/locked", -1)), "super deletes");
        assertTrue(f.run(new Command.WhoAmI(root)).reply(Reply.Identities.class).ids().contains(new Id("super", "")));
    }

    @Test
    void unknownAuthSchemeFails() {
        expect(ErrorCode.AUTHFAILED, f.run(new Command.AddAuth(bob, "kerberos", bytes("x"))), "only digest is known");
    }

    @Test
    void saslSchemeIsUnknownWithoutSasl() {
        // as in a ZooKeeper without its SASL provider
        expect(ErrorCode.INVALIDACL, createWithAcl(alice, "/x", List.of(new Acl(Perms.ALL, new Id("sasl", "bob")))),
                "no sasl scheme");
        expect(ErrorCode.AUTHFAILED, f.run(new Command.SaslIdentity(bob, "bob")), "no SASL identities");
        expect(ErrorCode.AUTHFAILED, f.run(new Command.AddAuth(bob, "sasl", bytes("bob"))), "addAuth cannot claim one");
    }

    @Test
    void saslIdentitiesAclsAndSuperUsers() {
        TreeFixture t = new TreeFixture(TreeConfig.defaults().withSasl(java.util.Set.of("admin")));
        long bobby = t.session();
        long other = t.session();
        long admin = t.session();
        long superNamed = t.session();
        expect(ErrorCode.OK, t.run(new Command.SaslIdentity(bobby, "bob")), "bob authenticated");
        expect(ErrorCode.OK, t.run(new Command.SaslIdentity(admin, "admin")), "admin authenticated");
        expect(ErrorCode.OK, t.run(new Command.SaslIdentity(superNamed, "super")), "a user named super");
        expect(ErrorCode.AUTHFAILED, t.run(new Command.AddAuth(other, "sasl", bytes("bob"))),
                "a client cannot claim a SASL identity with addAuth");
        assertTrue(t.run(new Command.WhoAmI(bobby)).reply(Reply.Identities.class).ids().contains(new Id("sasl", "bob")));
        assertTrue(t.run(new Command.WhoAmI(admin)).reply(Reply.Identities.class).ids().contains(new Id("super", "")),
                "a configured SASL super user is super");
        List<Acl> bobOnly = List.of(new Acl(Perms.ALL, new Id("sasl", "bob")));
        expect(ErrorCode.OK, t.run(new Command.Create(bobby, "/b", new byte[0], bobOnly, CreateMode.PERSISTENT)), "sasl ACL");
        expect(ErrorCode.OK, t.run(new Command.GetData(bobby, "/b", false)), "bob reads his node");
        expect(ErrorCode.NOAUTH, t.run(new Command.GetData(other, "/b", false)), "others may not");
        expect(ErrorCode.OK, t.run(new Command.GetData(admin, "/b", false)), "the super user may");
        expect(ErrorCode.OK, t.run(new Command.GetData(superNamed, "/b", false)),
                "ZooKeeper's SASL provider matches an identity named super against every sasl entry");
        expect(ErrorCode.OK, t.run(new Command.Create(bobby, "/c", new byte[0], Acl.CREATOR_ALL, CreateMode.PERSISTENT)),
                "auth expands to the SASL identity");
        assertEquals(bobOnly, t.run(new Command.GetAcl(bobby, "/c")).reply(Reply.Acls.class).acl());
        expect(ErrorCode.INVALIDACL, t.run(new Command.Create(bobby, "/d", new byte[0],
                List.of(new Acl(Perms.ALL, new Id("sasl", "x@y@z"))), CreateMode.PERSISTENT)), "not a principal");
        expect(ErrorCode.OK, t.run(new Command.Create(bobby, "/e", new byte[0],
                List.of(new Acl(Perms.ALL, new Id("sasl", "svc/host@REALM"))), CreateMode.PERSISTENT)), "a principal");
    }
}
