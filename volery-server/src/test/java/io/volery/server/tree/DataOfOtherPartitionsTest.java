package io.volery.server.tree;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.volery.server.tree.TreeFixture.bytes;
import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Under hash partitioning every partition lists every node but reads and writes a node's data only in its owner
 * (ADR 092): a copy elsewhere answers the create with the same reply, counts the node, and keeps no data.
 */
class DataOfOtherPartitionsTest {

    private static final java.util.function.Predicate<String> MINE = p -> p.endsWith("-mine") || p.startsWith("/mine");

    @Test
    void aCopyAnswersTheCreateAsTheOwnerDoesAndKeepsNoData() {
        TreeFixture whole = new TreeFixture();
        TreeFixture share = new TreeFixture();
        share.tree.holdDataOnlyOf(MINE);
        long s = 0;
        for (TreeFixture f : List.of(whole, share)) {
            s = f.session();
            f.createWithData(s, "/mine", "owned");
            for (String path : List.of("/a", "/a/b-mine", "/a/c")) {
                Result w = f.createWithData(s, path, "0123456789");
                expect(ErrorCode.OK, w, "create " + path);
            }
            expect(ErrorCode.OK, f.run(new Command.Create(s, "/a/seq-", bytes("xyz"), Acl.OPEN,
                    CreateMode.EPHEMERAL_SEQUENTIAL)), "an ephemeral sequential create");
        }
        for (String path : List.of("/mine", "/a", "/a/b-mine", "/a/c", "/a/seq-0000000002")) {
            assertEquals(whole.stat(path).czxid(), share.stat(path).czxid(), path);
            assertEquals(whole.stat(path).numChildren(), share.stat(path).numChildren(), path);
        }
        assertArrayEquals(bytes("owned"), share.tree.data("/mine"), "the owner keeps its nodes' data");
        assertArrayEquals(bytes("0123456789"), share.tree.data("/a/b-mine"));
        assertNull(share.tree.data("/a"), "a copy of another partition's node keeps no data");
        assertNull(share.tree.data("/a/c"));
        assertNull(share.tree.data("/a/seq-0000000002"));
        assertEquals(whole.tree.approximateDataSize() - 10 - 10 - 3, share.tree.approximateDataSize(),
                "the data size counts the data kept: the copies' paths, not their data");
        // the create's reply is the same wherever it is answered: its Stat's dataLength included
        for (TreeFixture f : List.of(whole, share)) {
            Result r = f.createWithData(s, "/a/d", "0123");
            assertEquals(4, r.reply(Reply.Created.class).stat().dataLength(), "create2's Stat");
        }
        // a quota's nodes keep their text in every partition: each holds its share of the stats (ADR 089)
        for (TreeFixture f : List.of(whole, share)) {
            f.createWithData(s, "/zookeeper/quota/a", "");
            f.createWithData(s, "/zookeeper/quota/a/zookeeper_limits", "count=-1,bytes=-1");
            f.createWithData(s, "/zookeeper/quota/a/zookeeper_stats", "count=0,bytes=0");
        }
        assertArrayEquals(bytes("count=-1,bytes=-1"), share.tree.data("/zookeeper/quota/a/zookeeper_limits"));
        assertEquals(new String(whole.tree.data("/zookeeper/quota/a/zookeeper_stats")).replaceAll("bytes=\\d+", ""),
                new String(share.tree.data("/zookeeper/quota/a/zookeeper_stats")).replaceAll("bytes=\\d+", ""),
                "the stats node's count, with the share's bytes");
    }
}
