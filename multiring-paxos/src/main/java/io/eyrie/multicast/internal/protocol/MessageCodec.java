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

    private MessageCodec() {
    }

    static byte[] encode(Message m) {
        Sink s = new Sink(64);
        if (m instanceof Heartbeat h) {
            s.u8(HEARTBEAT).i32(h.rings().size());
            for (RingSummary r : h.rings()) {
                s.i32(r.ring()).i64(r.promisedBallot()).i64(r.firstUndecided()).i64(r.highestDecided());
            }
        } else if (m instanceof Propose p) {
            s.u8(PROPOSE).i32(p.ring());
            Proposal q = p.proposal();
            ByteBuffer b = ByteBuffer.allocate(q.encodedSize());
            RingValue.writeProposal(b, q);
            s.raw(b.array());
        } else if (m instanceof Ordered o) {
            s.u8(ORDERED).i32(o.ring()).i64(o.incarnation()).i32(o.seqs().length);
            for (long q : o.seqs()) {
                s.i64(q);
            }
        } else if (m instanceof Phase1a p) {
            s.u8(PHASE1A).i32(p.ring()).i64(p.ballot()).i64(p.fromInstance());
        } else if (m instanceof Phase1b p) {
            s.u8(PHASE1B).i32(p.ring()).i64(p.ballot()).i64(p.lowestInstance()).i64(p.highestInstance());
            votes(s, p.accepted());
        } else if (m instanceof Accept a) {
            s.u8(ACCEPT).i32(a.ring()).i64(a.ballot()).i64(a.instance()).i32(a.route().length);
            for (int n : a.route()) {
                s.i32(n);
            }
            s.i32(a.acceptorHops()).i32(a.hop()).i32(a.votes()).u8(a.decided() ? 1 : 0).bytes(a.value());
        } else if (m instanceof Decision d) {
            s.u8(DECISION).i32(d.ring()).i64(d.ballot()).i64(d.instance());
        } else if (m instanceof Nack n) {
            s.u8(NACK).i32(n.ring()).i64(n.promisedBallot());
        } else if (m instanceof Fetch f) {
            s.u8(FETCH).i32(f.ring()).i64(f.fromInstance()).i32(f.maxCount());
        } else if (m instanceof Learned l) {
            s.u8(LEARNED).i32(l.ring()).i64(l.lowestInstance());
            votes(s, l.decided());
        } else if (m instanceof SkipRequest r) {
            s.u8(SKIP_REQUEST).i32(r.ring()).i64(r.instance()).i64(r.slot()).i64(r.targetSlot());
        } else if (m instanceof Checkpointed c) {
            s.u8(CHECKPOINTED).i32(c.ring()).i64(c.instance());
        } else if (m instanceof Direct d) {
            s.u8(DIRECT).raw(d.payload());
        } else {
            throw new AssertionError("no wire form for " + m);
        }
        return s.toArray();
    }

    private static void votes(Sink s, List<Vote> votes) {
        s.i32(votes.size());
        for (Vote v : votes) {
            s.i64(v.instance()).i64(v.ballot()).u8(v.decided() ? 1 : 0).bytes(v.value());
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
            case PROPOSE -> new Propose(ring(r), RingValue.readProposal(r));
            case ORDERED -> new Ordered(ring(r), r.i64("incarnation"), r.longs("seqs"));
            case PHASE1A -> new Phase1a(ring(r), r.i64("ballot"), instance(r));
            case PHASE1B -> new Phase1b(ring(r), r.i64("ballot"), instance(r), r.i64("highest instance"), votes(r));
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
                RingValue.decode(value);
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
            case LEARNED -> new Learned(ring(r), r.i64("lowest instance"), votes(r));
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
            RingValue.decode(value);
            votes.add(new Vote(instance, ballot, decided, value));
        }
        return votes;
    }

    /** A growable big-endian byte sink. */
    private static final class Sink {
        private ByteBuffer b;

        Sink(int initial) {
            b = ByteBuffer.allocate(initial);
        }

        private void room(int n) {
            if (b.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n));
                b.flip();
                bigger.put(b);
                b = bigger;
            }
        }

        Sink u8(int v) {
            room(1);
            b.put((byte) v);
            return this;
        }

        Sink i32(int v) {
            room(4);
            b.putInt(v);
            return this;
        }

        Sink i64(long v) {
            room(8);
            b.putLong(v);
            return this;
        }

        Sink bytes(byte[] v) {
            i32(v.length);
            return raw(v);
        }

        Sink raw(byte[] v) {
            room(v.length);
            b.put(v);
            return this;
        }

        byte[] toArray() {
            byte[] out = new byte[b.position()];
            b.flip();
            b.get(out);
            return out;
        }
    }
}
