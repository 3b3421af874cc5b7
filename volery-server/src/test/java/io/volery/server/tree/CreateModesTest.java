package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Create modes, sequential names and the node kinds they make. */
class CreateModesTest {

    private TreeFixture f;
    private long s;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        s = f.session();
        f.created(s, "/p", CreateMode.PERSISTENT);
    }

    @Test
    void sequentialSuffixCountsChildCreationsNotCversion() {
        f.created(s, "/p/a", CreateMode.PERSISTENT);
        expect(ErrorCode.OK, f.run(new Command.Delete(s, "/p/a", -1)), "delete /p/a");
        f.created(s, "/p/b", CreateMode.PERSISTENT);
        assertEquals(3, f.stat("/p").cversion(), "cversion counts both creations and the deletion");
        assertEquals("/p/s-0000000002", f.created(s, "/p/s-", CreateMode.PERSISTENT_SEQUENTIAL),
                "the suffix is the number of children created so far (2), ZooKeeper 3.9.5 observed");
    }

    @Test
    void sequentialSuffixIsTenDigitsZeroPaddedAndSharedByAllModes() {
        assertEquals("/p/x0000000000", f.created(s, "/p/x", CreateMode.PERSISTENT_SEQUENTIAL));
        assertEquals("/p/x0000000001", f.created(s, "/p/x", CreateMode.EPHEMERAL_SEQUENTIAL));
        Result ttl = f.run(new Command.Create(s, "/p/x", new byte[0], Acl.OPEN,
                CreateMode.PERSISTENT_SEQUENTIAL_WITH_TTL, 5000));
        assertEquals("/p/x0000000002", ttl.reply(Reply.Created.class).path());
    }

    @Test
    void topLevelSequentialNamesStartFromTheRootsCreationCount() {
        assertEquals("/s0000000001", f.created(s, "/s", CreateMode.PERSISTENT_SEQUENTIAL),
                "/p was the root's first creation (/zookeeper is built in and does not count)");
    }

    @Test
    void ephemeralNodeIsOwnedBySessionAndCannotHaveChildren() {
        f.created(s, "/p/e", CreateMode.EPHEMERAL);
        assertEquals(s, f.stat("/p/e").ephemeralOwner());
        expect(ErrorCode.NOCHILDRENFOREPHEMERALS, f.create(s, "/p/e/c", CreateMode.PERSISTENT),
                "ephemerals cannot have children");
        expect(ErrorCode.NONODE, f.create(s, "/p/e/c/d", CreateMode.PERSISTENT), "missing parent first");
    }

    @Test
    void containersAndTtlNodesReportNoEphemeralOwner() {
        f.created(s, "/p/c", CreateMode.CONTAINER);
        f.run(new Command.Create(s, "/p/t", new byte[0], Acl.OPEN, CreateMode.PERSISTENT_WITH_TTL, 1000));
        assertEquals(0, f.stat("/p/c").ephemeralOwner());
        assertEquals(0, f.stat("/p/t").ephemeralOwner());
    }

    @Test
    void ttlMustBePositiveAndWithinFortyBitsAndOnlyForTtlModes() {
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.Create(s, "/p/t", new byte[0], Acl.OPEN,
                CreateMode.PERSISTENT_WITH_TTL, 0)), "ttl 0");
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.Create(s, "/p/t", new byte[0], Acl.OPEN,
                CreateMode.PERSISTENT_WITH_TTL, ZnodeTree.MAX_TTL_MS + 1)), "ttl over 2^40-1");
        expect(ErrorCode.BADARGUMENTS, f.run(new Command.Create(s, "/p/t", new byte[0], Acl.OPEN,
                CreateMode.PERSISTENT, 100)), "ttl on a persistent node");
    }

    @Test
    void ttlNodesNeedExtendedTypes() {
        TreeFixture plain = new TreeFixture(TreeConfig.defaults().withExtendedTypes(false));
        long s2 = plain.session();
        expect(ErrorCode.UNIMPLEMENTED, plain.run(new Command.Create(s2, "/t", new byte[0], Acl.OPEN,
                CreateMode.PERSISTENT_WITH_TTL, 100)), "TTL without zookeeper.extendedTypesEnabled");
    }

    @Test
    void createOfExistingNodeIsNodeExistsAndMissingParentIsNoNode() {
        expect(ErrorCode.NODEEXISTS, f.create(s, "/p", CreateMode.PERSISTENT), "exists");
        expect(ErrorCode.NONODE, f.create(s, "/q/r", CreateMode.PERSISTENT), "no parent");
    }

    @Test
    void dataOverTheConfiguredLimitIsRefusedAsTheConnectionWouldBe() {
        TreeFixture small = new TreeFixture(TreeConfig.defaults().withMaxDataBytes(4));
        long s2 = small.session();
        expect(ErrorCode.OK, small.createWithData(s2, "/ok", "1234"), "4 bytes fit");
        expect(ErrorCode.CONNECTIONLOSS, small.createWithData(s2, "/big", "12345"), "5 bytes do not");
        expect(ErrorCode.CONNECTIONLOSS, small.run(new Command.SetData(s2, "/ok", new byte[5], -1)), "setData too");
    }

    @Test
    void createReturnsTheNewNodesStat() {
        Result r = f.run(new Command.Create(s, "/p/d", TreeFixture.bytes("abc"), List.of(new Acl(Perms.ALL, Id.ANYONE)),
                CreateMode.PERSISTENT));
        Stat st = r.reply(Reply.Created.class).stat();
        assertEquals(f.zxid, st.czxid());
        assertEquals(3, st.dataLength());
        assertEquals(0, st.version());
    }
}
