package io.eyrie.multicast.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Properties of FrameDecoder over arbitrary input split at arbitrary points. */
class FrameDecoderPropertyTest {

    private static final int MAX = 512;

    @Provide
    Arbitrary<byte[]> garbage() {
        // Plain random bytes mostly fail the magic check; the other two shapes start with the real
        // magic so that the length check and the CRC check are exercised as well.
        Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(2048);
        Arbitrary<byte[]> magicThenNoise = random.map(b -> Frames.concat(new byte[] {0x45, 0x59, 0x52, 0x46}, b));
        Arbitrary<byte[]> plausibleHeaderThenNoise = Combinators.combine(
                Arbitraries.integers().between(0, MAX + 100), Arbitraries.integers(), random)
                .as((length, crc, rest) -> Frames.concat(Frames.header(FrameFormat.MAGIC, length, crc), rest));
        return Arbitraries.oneOf(random, magicThenNoise, plausibleHeaderThenNoise);
    }

    @Provide
    Arbitrary<List<byte[]>> payloads() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(MAX).list().ofMaxSize(20);
    }

    @Property(tries = 300)
    void arbitraryGarbageEitherClosesTheConnectionOrWaits(@ForAll("garbage") byte[] input,
                                                          @ForAll @Size(max = 8) List<@IntRange(min = 1, max = 64) Integer> cuts) {
        Fed fed = feedInChunks(input, cuts);
        if (fed.openAfterwards) {
            assertEquals(0, fed.counters.snapshot().framesRejected(), "an open connection had no rejection");
        } else {
            assertEquals(1, fed.counters.snapshot().framesRejected(), "a closed connection was rejected exactly once");
        }
        // Every payload that came out (possible only if the garbage holds a valid frame) is within limits.
        for (byte[] p : fed.payloads) {
            assertTrue(p.length <= MAX, "payload of " + p.length + " bytes above the maximum " + MAX);
        }
    }

    @Property(tries = 300)
    void validFramesRoundTripWhateverTheSplitAndWhateverGarbageFollows(
            @ForAll("payloads") List<byte[]> payloads,
            @ForAll @Size(max = 16) List<@IntRange(min = 1, max = 700) Integer> cuts,
            @ForAll("garbage") byte[] trailer) {
        byte[][] frames = payloads.stream().map(Frames::frame).toArray(byte[][]::new);
        byte[] wire = Frames.concat(Frames.concat(frames), trailer);
        Fed fed = feedInChunks(wire, cuts);
        assertTrue(fed.payloads.size() >= payloads.size(), "expected at least the " + payloads.size()
                + " valid frames, got " + fed.payloads.size());
        for (int i = 0; i < payloads.size(); i++) {
            assertArrayEquals(payloads.get(i), fed.payloads.get(i), "payload " + i);
        }
        if (trailer.length == 0) {
            assertTrue(fed.openAfterwards, "valid frames alone keep the connection open");
            assertEquals(payloads.size(), fed.payloads.size(), "valid frames alone decode to exactly themselves");
        }
    }

    private record Fed(boolean openAfterwards, TransportCounters counters, List<byte[]> payloads) {
    }

    /** Feeds {@code input} in chunks whose sizes cycle through {@code cuts}; anything thrown fails the property. */
    private static Fed feedInChunks(byte[] input, List<Integer> cuts) {
        TransportCounters counters = new TransportCounters();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX, new ConnectionRejector(counters, 1)));
        List<byte[]> out = new ArrayList<>();
        int at = 0;
        int i = 0;
        while (at < input.length && ch.isOpen()) {
            int n = cuts.isEmpty() ? input.length : Math.min(cuts.get(i++ % cuts.size()), input.length - at);
            ch.writeInbound(Unpooled.wrappedBuffer(input, at, n));
            at += n;
            ByteBuf b;
            while ((b = ch.readInbound()) != null) {
                out.add(Frames.bytes(b));
            }
        }
        boolean open = ch.isOpen();
        ch.finishAndReleaseAll();
        return new Fed(open, counters, out);
    }
}
