package io.volery.server.frontend;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.MultiHeader;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.ConnectRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The request decoder under hostile input: random bytes and mutations of well-formed frames. It may
 * refuse a frame only with {@link ZkCodec.MalformedRequestException}; anything else (a runtime
 * exception, an Error, a hang) would take a connection thread down.
 */
public class ZkCodecFuzzProperties {
    /** Values that make jute lengths and counts interesting. */
    private static final int[] NASTY_INTS = {0, 1, -1, -2, 0x7fffffff, 0x80000000, 0xfffff, 0x100000, 1 << 30, 255, 65536};

    /** Well-formed frames of every operation with a body, and multis, each with xid = its index + 1. */
    public static List<byte[]> wellFormed() {
        List<ACL> acl = List.of(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone")),
                new ACL(ZooDefs.Perms.READ, new Id("digest", "u:abc=")));
        List<byte[]> frames = new ArrayList<>();
        frames.add(frame(OpCodes.CREATE, new CreateRequest("/a/b", "data".getBytes(), acl, 3)));
        frames.add(frame(OpCodes.CREATE2, new CreateRequest("/a", new byte[0], acl, 0)));
        frames.add(frame(OpCodes.CREATE_TTL, new CreateTTLRequest("/t", new byte[3], acl, 5, 1000)));
        frames.add(frame(OpCodes.DELETE, new DeleteRequest("/a/b", 4)));
        frames.add(frame(OpCodes.EXISTS, new ExistsRequest("/a", true)));
        frames.add(frame(OpCodes.GET_DATA, new GetDataRequest("/a", false)));
        frames.add(frame(OpCodes.SET_DATA, new SetDataRequest("/a", new byte[40], -1)));
        frames.add(frame(OpCodes.SET_ACL, new SetACLRequest("/a", acl, 2)));
        frames.add(frame(OpCodes.GET_CHILDREN2, new GetChildren2Request("/", true)));
        frames.add(frame(OpCodes.CHECK, new CheckVersionRequest("/a", 1)));
        frames.add(frame(OpCodes.AUTH, new AuthPacket(0, "digest", "u:p".getBytes())));
        frames.add(frame(OpCodes.ADD_WATCH, new AddWatchRequest("/a", 1)));
        frames.add(frame(OpCodes.SET_WATCHES2, new SetWatches2(7, List.of("/a"), List.of("/b"), List.of(), List.of("/c"), List.of())));
        frames.add(frame(OpCodes.MULTI,
                new MultiHeader(OpCodes.CREATE, false, -1), new CreateRequest("/m", new byte[1], acl, 0),
                new MultiHeader(OpCodes.SET_DATA, false, -1), new SetDataRequest("/m", new byte[2], 0),
                new MultiHeader(OpCodes.CHECK, false, -1), new CheckVersionRequest("/m", 1),
                new MultiHeader(OpCodes.DELETE, false, -1), new DeleteRequest("/m", -1),
                new MultiHeader(-1, true, -1)));
        frames.add(frame(OpCodes.MULTI_READ,
                new MultiHeader(OpCodes.GET_DATA, false, -1), new GetDataRequest("/a", false),
                new MultiHeader(OpCodes.GET_CHILDREN, false, -1), new GetDataRequest("/", false),
                new MultiHeader(-1, true, -1)));
        frames.add(frame(OpCodes.CLOSE_SESSION));
        frames.add(frame(OpCodes.WHO_AM_I));
        return frames;
    }

    private static byte[] frame(int op, Record... body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryOutputArchive a = BinaryOutputArchive.getArchive(bytes);
            new RequestHeader(op == OpCodes.AUTH ? OpCodes.XID_AUTH : 17, op).serialize(a, "header");
            for (Record r : body) {
                r.serialize(a, "r");
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One to four random edits: byte flips, nasty ints, truncation, appended garbage, splices. */
    public static byte[] mutate(byte[] original, List<byte[]> others, Random rnd) {
        byte[] b = original.clone();
        int edits = 1 + rnd.nextInt(4);
        for (int i = 0; i < edits; i++) {
            switch (rnd.nextInt(6)) {
                case 0 -> {
                    if (b.length > 0) {
                        b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                    }
                }
                case 1 -> {
                    if (b.length >= 4) {
                        ByteBuffer.wrap(b).putInt(rnd.nextInt(b.length - 3), NASTY_INTS[rnd.nextInt(NASTY_INTS.length)]);
                    }
                }
                case 2 -> b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
                case 3 -> {
                    byte[] tail = new byte[1 + rnd.nextInt(16)];
                    rnd.nextBytes(tail);
                    byte[] longer = java.util.Arrays.copyOf(b, b.length + tail.length);
                    System.arraycopy(tail, 0, longer, b.length, tail.length);
                    b = longer;
                }
                case 4 -> {
                    byte[] other = others.get(rnd.nextInt(others.size()));
                    int cut = rnd.nextInt(b.length + 1);
                    int from = rnd.nextInt(other.length + 1);
                    byte[] spliced = java.util.Arrays.copyOf(b, cut + other.length - from);
                    System.arraycopy(other, from, spliced, cut, other.length - from);
                    b = spliced;
                }
                default -> {
                    if (b.length >= 8) {
                        // another operation code in the header, keeping the body
                        ByteBuffer.wrap(b).putInt(4, rnd.nextInt(130) - 15);
                    }
                }
            }
        }
        return b;
    }

    @Provide
    Arbitrary<byte[]> hostileFrames() {
        List<byte[]> templates = wellFormed();
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(96);
        Arbitrary<byte[]> mutated = Combinators.combine(Arbitraries.integers().between(0, templates.size() - 1),
                Arbitraries.longs()).as((i, seed) -> mutate(templates.get(i), templates, new Random(seed)));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(1, random), net.jqwik.api.Tuple.of(4, mutated));
    }

    @Property(tries = 4000)
    void theDecoderRejectsOnlyWithMalformedRequest(@ForAll("hostileFrames") byte[] frame) {
        try {
            ZkRequest r = ZkCodec.decodeRequest(frame);
            assertNotNull(r, "decodeRequest returned null instead of a request or MalformedRequestException");
        } catch (ZkCodec.MalformedRequestException expected) {
            // the front end answers or closes the connection; nothing else breaks
        } catch (Throwable other) {
            throw new AssertionError("decodeRequest threw " + other + " for " + java.util.HexFormat.of().formatHex(frame), other);
        }
    }

    @Property(tries = 1000)
    void theHandshakeDecoderRejectsOnlyWithMalformedRequest(@ForAll long seed) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new ConnectRequest(0, 0, 30_000, 0, new byte[16], false).serialize(BinaryOutputArchive.getArchive(bytes), "c");
        byte[] connect = mutate(bytes.toByteArray(), wellFormed(), new Random(seed));
        try {
            ZkCodec.decodeConnect(connect);
        } catch (ZkCodec.MalformedRequestException expected) {
            // closed without a session
        } catch (Throwable other) {
            throw new AssertionError("decodeConnect threw " + other + " for " + java.util.HexFormat.of().formatHex(connect), other);
        }
    }

    @Property(tries = 50)
    void wellFormedFramesDecodeToTheirOperation(@ForAll("templateIndex") int i) throws Exception {
        byte[] f = wellFormed().get(i);
        ZkRequest r = ZkCodec.decodeRequest(f);
        assertEquals(ByteBuffer.wrap(f).getInt(4), r.opCode(), "operation code");
        assertEquals(ByteBuffer.wrap(f).getInt(0), r.xid(), "xid");
    }

    @Provide
    Arbitrary<Integer> templateIndex() {
        return Arbitraries.integers().between(0, wellFormed().size() - 1);
    }
}
