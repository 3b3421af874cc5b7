package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.internal.protocol.Message.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary form of {@link Message}: big-endian, a type byte first, lengths before variable
 * parts. Decoding validates everything (values included) before the protocol sees the message.
 */
final class MessageCodec {
    static final byte HEARTBEAT = 1;
    static final byte PROPOSE = 2;
    static final byte ORDERED = 3;
    static final byte PHASE1A = 4;
    static final byte PHASE1B = 5;
    static final byte ACCEPT = 6;
    static final byte DECISION = 7;
    static final byte NACK = 8;
    static final byte FETCH = 9;
    static final byte LEARNED = 10;
    static final byte SKIP_REQUEST = 11;
    static final byte CHECKPOINTED = 12;
    static final byte DIRECT = 13;
    static final byte PROPOSES = 14;

    private MessageCodec() {
    }

    /**
     * The wire form of {@code m} in an array of exactly its size: sized first, then written once,
     * so that a message (an Accept carries a whole batch) is copied once, not grown and trimmed.
     */
    static byte[] encode(Message m) {
        byte[] out = new byte[encodedSize(m)];
        ByteBuffer s = ByteBuffer.wrap(out);
        if (m instanceof Heartbeat h) {
            s.put(HEARTBEAT).putInt(h.rings().size());
            for (RingSummary r : h.rings()) {
                s.putInt(r.ring()).putLong(r.promisedBallot()).putLong(r.firstUndecided()).putLong(r.highestDecided());
            }
        } else if (m instanceof Propose p) {
            s.put(PROPOSE).putInt(p.ring()).put((byte) (p.forwarded() ? 1 : 0));
            RingValue.writeProposal(s, p.proposal());
        } else if (m instanceof Proposes ps) {
            s.put(PROPOSES).putInt(ps.proposes().size());
            for (Propose p : ps.proposes()) {
                s.putInt(p.ring()).put((byte) (p.forwarded() ? 1 : 0));
                RingValue.writeProposal(s, p.proposal());
            }
        } else if (m instanceof Ordered o) {
            s.put(ORDERED).putInt(o.ring()).putLong(o.incarnation()).putInt(o.seqs().length);
            for (long q : o.seqs()) {
                s.putLong(q);
            }
        } else if (m instanceof Phase1a p) {
            s.put(PHASE1A).putInt(p.ring()).putLong(p.ballot()).putLong(p.fromInstance());
        } else if (m instanceof Phase1b p) {
            s.put(PHASE1B).putInt(p.ring()).putLong(p.ballot()).putLong(p.fromInstance()).putLong(p.lowestInstance())
                    .putLong(p.highestInstance()).putLong(p.nextFrom()).put((byte) (p.notAPromise() ? 1 : 0));
            votes(s, p.accepted());
        } else if (m instanceof Accept a) {
            s.put(ACCEPT).putInt(a.ring()).putLong(a.ballot()).putLong(a.instance()).putInt(a.route().length);
            for (int n : a.route()) {
                s.putInt(n);
            }
            s.putInt(a.acceptorHops()).putInt(a.hop()).putInt(a.votes()).put((byte) (a.decided() ? 1 : 0))
                    .putInt(a.value().length).put(a.value());
        } else if (m instanceof Decision d) {
            s.put(DECISION).putInt(d.ring()).putLong(d.ballot()).putLong(d.instance());
        } else if (m instanceof Nack n) {
            s.put(NACK).putInt(n.ring()).putLong(n.promisedBallot());
        } else if (m instanceof Fetch f) {
            s.put(FETCH).putInt(f.ring()).putLong(f.fromInstance()).putInt(f.maxCount());
        } else if (m instanceof Learned l) {
            s.put(LEARNED).putInt(l.ring()).putLong(l.lowestInstance()).putLong(l.highestDecided());
            votes(s, l.decided());
        } else if (m instanceof SkipRequest r) {
            s.put(SKIP_REQUEST).putInt(r.ring()).putLong(r.instance()).putLong(r.slot()).putLong(r.targetSlot());
        } else if (m instanceof Checkpointed c) {
            s.put(CHECKPOINTED).putInt(c.ring()).putLong(c.instance());
        } else if (m instanceof Direct d) {
            s.put(DIRECT).put(d.payload());
        } else {
            throw new AssertionError("no wire form for " + m);
        }
        if (s.hasRemaining()) {
            throw new AssertionError("encodedSize of " + m.getClass().getSimpleName() + " is " + out.length
                    + " but only " + s.position() + " bytes were written");
        }
        return out;
    }

    /**
     * The wire form of {@code a} without its value: {@link #encode} of {@code a} is this followed
     * by {@code a.value()}.
     */
    static byte[] encodeAcceptHead(Accept a) {
        int size = encodedSize(a) - a.value().length;
        ByteBuffer s = ByteBuffer.allocate(size);
        s.put(ACCEPT).putInt(a.ring()).putLong(a.ballot()).putLong(a.instance()).putInt(a.route().length);
        for (int n : a.route()) {
            s.putInt(n);
        }
        s.putInt(a.acceptorHops()).putInt(a.hop()).putInt(a.votes()).put((byte) (a.decided() ? 1 : 0))
                .putInt(a.value().length);
        return s.array();
    }

    /** The exact length of {@link #encode}'s result. */
    static int encodedSize(Message m) {
        if (m instanceof Heartbeat h) {
            return 1 + 4 + h.rings().size() * (4 + 8 + 8 + 8);
        } else if (m instanceof Propose p) {
            return 1 + 4 + 1 + p.proposal().encodedSize();
        } else if (m instanceof Proposes ps) {
            int size = 1 + 4;
            for (Propose p : ps.proposes()) {
                size += 4 + 1 + p.proposal().encodedSize();
            }
            return size;
        } else if (m instanceof Ordered o) {
            return 1 + 4 + 8 + 4 + 8 * o.seqs().length;
        } else if (m instanceof Phase1a) {
            return 1 + 4 + 8 + 8;
        } else if (m instanceof Phase1b p) {
            return 1 + 4 + 8 * 5 + 1 + votesSize(p.accepted());
        } else if (m instanceof Accept a) {
            return 1 + 4 + 8 + 8 + 4 + 4 * a.route().length + 4 + 4 + 4 + 1 + 4 + a.value().length;
        } else if (m instanceof Decision) {
            return 1 + 4 + 8 + 8;
        } else if (m instanceof Nack) {
            return 1 + 4 + 8;
        } else if (m instanceof Fetch) {
            return 1 + 4 + 8 + 4;
        } else if (m instanceof Learned l) {
            return 1 + 4 + 8 + 8 + votesSize(l.decided());
        } else if (m instanceof SkipRequest) {
            return 1 + 4 + 8 + 8 + 8;
        } else if (m instanceof Checkpointed) {
            return 1 + 4 + 8;
        } else if (m instanceof Direct d) {
            return 1 + d.payload().length;
        }
        throw new AssertionError("no wire form for " + m);
    }

    private static int votesSize(List<Vote> votes) {
        int size = 4;
        for (Vote v : votes) {
            size += 8 + 8 + 1 + 4 + v.value().length;
        }
        return size;
    }

    private static void votes(ByteBuffer s, List<Vote> votes) {
        s.putInt(votes.size());
        for (Vote v : votes) {
            s.putLong(v.instance()).putLong(v.ballot()).put((byte) (v.decided() ? 1 : 0)).putInt(v.value().length)
                    .put(v.value());
        }
    }

    static Message decode(ByteBuffer in) {
        WireReader r = new WireReader(in.slice());
        byte type = r.u8("message type");
        Message m = switch (type) {
            case HEARTBEAT -> {
                int n = r.count("heartbeat rings", 28);
                List<RingSummary> rings = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    rings.add(new RingSummary(ring(r), r.i64("promise"), r.i64("first undecided"), r.i64("highest decided")));
                }
                yield new Heartbeat(rings);
            }
            case PROPOSE -> {
                int ring = ring(r);
                boolean forwarded = r.bool("forwarded");
                yield new Propose(ring, RingValue.readProposal(r), forwarded);
            }
            case PROPOSES -> {
                // ring (4) + forwarded (1) + the smallest proposal (36 + one group)
                int n = r.count("proposes", 4 + 1 + 40);
                if (n == 0) {
                    throw new MalformedMessageException("empty proposes");
                }
                List<Propose> ps = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int ring = ring(r);
                    boolean forwarded = r.bool("forwarded");
                    ps.add(new Propose(ring, RingValue.readProposal(r), forwarded));
                }
                yield new Proposes(ps);
            }
            case ORDERED -> new Ordered(ring(r), r.i64("incarnation"), r.longs("seqs"));
            case PHASE1A -> new Phase1a(ring(r), r.i64("ballot"), instance(r));
            case PHASE1B -> {
                int ring = ring(r);
                long ballot = r.i64("ballot");
                long from = instance(r);
                long lowest = instance(r);
                long highest = r.i64("highest instance");
                long next = instance(r);
                boolean notAPromise = r.bool("not a promise");
                yield new Phase1b(ring, ballot, from, lowest, highest, next, votes(r), notAPromise);
            }
            case ACCEPT -> {
                int ring = ring(r);
                long ballot = r.i64("ballot");
                long instance = instance(r);
                int[] route = r.ints("route");
                int acceptorHops = r.i32("acceptor hops");
                int hop = r.i32("hop");
                int votes = r.i32("votes");
                boolean decided = r.bool("decided");
                byte[] value = r.bytes("value");
                if (route.length == 0 || acceptorHops < 0 || acceptorHops > route.length || hop < 0
                        || hop >= route.length || votes < 0) {
                    throw new MalformedMessageException("accept with inconsistent route: " + route.length
                            + " nodes, " + acceptorHops + " acceptors, hop " + hop + ", votes " + votes);
                }
                RingValue.validate(value);
                yield new Accept(ring, ballot, instance, route, acceptorHops, hop, votes, decided, value);
            }
            case DECISION -> new Decision(ring(r), r.i64("ballot"), instance(r));
            case NACK -> new Nack(ring(r), r.i64("ballot"));
            case FETCH -> {
                int ring = ring(r);
                long from = instance(r);
                int max = r.i32("max count");
                if (max < 1) {
                    throw new MalformedMessageException("fetch of " + max + " instances");
                }
                yield new Fetch(ring, from, max);
            }
            case LEARNED -> new Learned(ring(r), r.i64("lowest instance"), r.i64("highest decided"), votes(r));
            case SKIP_REQUEST -> new SkipRequest(ring(r), instance(r), r.nonNegative(r.i64("slot"), "slot"),
                    r.nonNegative(r.i64("target slot"), "target slot"));
            case CHECKPOINTED -> new Checkpointed(ring(r), instance(r));
            case DIRECT -> {
                ByteBuffer rest = in.slice();
                byte[] payload = new byte[rest.remaining() - 1];
                rest.position(1);
                rest.get(payload);
                yield new Direct(payload);
            }
            default -> throw new MalformedMessageException("unknown message type " + type);
        };
        if (!(m instanceof Direct)) {
            r.end("message type " + type);
        }
        return m;
    }

    private static int ring(WireReader r) {
        int ring = r.i32("ring");
        if (ring < 0 || ring >= io.eyrie.multicast.Position.MAX_RINGS) {
            throw new MalformedMessageException("ring id out of range: " + ring);
        }
        return ring;
    }

    private static long instance(WireReader r) {
        return r.nonNegative(r.i64("instance"), "instance");
    }

    private static List<Vote> votes(WireReader r) {
        int n = r.count("votes", 21);
        List<Vote> votes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long instance = instance(r);
            long ballot = r.i64("vote ballot");
            boolean decided = r.bool("vote decided");
            byte[] value = r.bytes("vote value");
            RingValue.validate(value);
            votes.add(new Vote(instance, ballot, decided, value));
        }
        return votes;
    }
}
