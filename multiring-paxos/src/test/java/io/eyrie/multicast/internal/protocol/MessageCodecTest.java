package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.internal.protocol.Message.*;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageCodecTest {

    static List<Message> samples() {
        Proposal p = new Proposal(3, 7, 42, 40, new int[] {1, 2}, new byte[] {9, 8, 7});
        byte[] batch = RingValue.encodeBatch(List.of(p, new Proposal(1, 1, 0, 0, new int[] {2}, new byte[0])));
        byte[] skip = RingValue.encodeSkip(17);
        return List.of(
                new Heartbeat(List.of(new RingSummary(0, 65537, 10, 12), new RingSummary(2, 0, 0, -1))),
                new Heartbeat(List.of()),
                new Propose(1, p, false),
                new Propose(1, p, true),
                new Proposes(List.of(new Propose(1, p, false), new Propose(0, new Proposal(3, 7, 43, 40, new int[] {5},
                        new byte[0]), true))),
                new Ordered(1, 7, new long[] {1, 5, 9}),
                new Phase1a(2, 131074, 100),
                new Phase1b(2, 131074, 100, 5, 120, 121, List.of(new Vote(100, 65537, false, batch), new Vote(101, 65537, true, skip))),
                new Phase1b(2, 131072, 0, 0, 3, Long.MAX_VALUE, List.of(new Vote(3, 65537, false, skip)), true),
                new Accept(1, 65537, 77, new int[] {1, 2, 3, 4}, 3, 2, 2, true, batch),
                new Decision(1, 65537, 77),
                new Nack(0, 196610),
                new Fetch(1, 33, 64),
                new Learned(1, 0, 33, List.of(new Vote(33, 65537, true, skip))),
                new SkipRequest(2, 8, 30, 45),
                new Checkpointed(0, 1000),
                new Direct(new byte[] {1, 2, 3, 4, 5}),
                new Direct(new byte[0]));
    }

    @Test
    void everyMessage_roundTripsToTheSameBytes() {
        for (Message m : samples()) {
            byte[] wire = MessageCodec.encode(m);
            Message back = MessageCodec.decode(ByteBuffer.wrap(wire));
            assertEquals(m.getClass(), back.getClass());
            assertArrayEquals(wire, MessageCodec.encode(back), "re-encoding " + m.getClass().getSimpleName() + " changed it");
        }
    }

    @Test
    void anAcceptsHeadFollowedByItsValue_isTheWholeAccept() {
        for (Message m : samples()) {
            if (m instanceof Accept a) {
                byte[] head = MessageCodec.encodeAcceptHead(a);
                byte[] joined = Arrays.copyOf(head, head.length + a.value().length);
                System.arraycopy(a.value(), 0, joined, head.length, a.value().length);
                assertArrayEquals(MessageCodec.encode(a), joined, "head + value of " + a);
            }
        }
    }

    @Test
    void truncatedMessages_areRejectedAsMalformed() {
        for (Message m : samples()) {
            byte[] wire = MessageCodec.encode(m);
            int from = m instanceof Direct ? 1 : 0; // a direct message is any bytes after its type
            for (int len = 0; len < wire.length; len++) {
                if (len < from) {
                    continue;
                }
                byte[] cut = Arrays.copyOf(wire, len);
                if (m instanceof Direct && len >= 1) {
                    continue;
                }
                assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(cut)),
                        m.getClass().getSimpleName() + " cut to " + len + " of " + wire.length + " bytes");
            }
        }
    }

    @Test
    void trailingBytes_unknownTypes_andBadValues_areRejected() {
        byte[] wire = MessageCodec.encode(new Decision(1, 2, 3));
        byte[] longer = Arrays.copyOf(wire, wire.length + 1);
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(longer)));
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(new byte[] {99})));
        byte[] badValue = MessageCodec.encode(new Accept(1, 1, 1, new int[] {1}, 1, 0, 0, false, new byte[] {5, 0}));
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(badValue)));
        byte[] badHop = MessageCodec.encode(new Accept(1, 1, 1, new int[] {1}, 1, 3, 0, false, RingValue.encodeSkip(0)));
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(ByteBuffer.wrap(badHop)));
    }

    @Test
    void bogusLengths_doNotAllocate() {
        // A Learned message claiming 2^31-1 votes, and a Propose claiming a 2 GB payload.
        ByteBuffer b = ByteBuffer.allocate(21).put(MessageCodec.LEARNED).putInt(1).putLong(0).putLong(0);
        byte[] learned = Arrays.copyOf(b.array(), 21 + 4);
        ByteBuffer.wrap(learned, 21, 4).putInt(Integer.MAX_VALUE);
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> MessageCodec.decode(ByteBuffer.wrap(learned)));
        assertTrue(e.getMessage().contains("count"), e.getMessage());
        ByteBuffer q = ByteBuffer.allocate(64).put(MessageCodec.PROPOSE).putInt(1).put((byte) 0).putInt(3).putLong(1).putLong(0).putLong(0)
                .putInt(1).putInt(1).putInt(Integer.MAX_VALUE);
        q.flip();
        assertThrows(MalformedMessageException.class, () -> MessageCodec.decode(q));
    }

    @Test
    void randomBytes_neverThrowAnythingButMalformedMessage() {
        SplittableRandom rnd = new SplittableRandom(20261122);
        List<byte[]> seeds = samples().stream().map(MessageCodec::encode).toList();
        for (int i = 0; i < 20_000; i++) {
            byte[] wire;
            if (rnd.nextBoolean()) {
                wire = new byte[rnd.nextInt(64)];
                rnd.nextBytes(wire);
                if (wire.length > 0) {
                    wire[0] = (byte) (1 + rnd.nextInt(13));
                }
            } else {
                wire = seeds.get(rnd.nextInt(seeds.size())).clone();
                int flips = 1 + rnd.nextInt(3);
                for (int f = 0; f < flips && wire.length > 0; f++) {
                    wire[rnd.nextInt(wire.length)] = (byte) rnd.nextInt(256);
                }
            }
            try {
                MessageCodec.decode(ByteBuffer.wrap(wire));
            } catch (MalformedMessageException expected) {
                // fine: rejected cleanly
            } catch (RuntimeException other) {
                throw new AssertionError("input " + Arrays.toString(wire) + " threw " + other, other);
            }
        }
    }
}
