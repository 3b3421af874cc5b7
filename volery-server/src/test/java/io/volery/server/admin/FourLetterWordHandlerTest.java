package io.volery.server.admin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The detector in front of the frame decoder, fed the way TCP may cut a stream. */
class FourLetterWordHandlerTest {

    private static EmbeddedChannel channel() {
        return new EmbeddedChannel(new FourLetterWordHandler(new FourLetterWords(null, Set.of("ruok")), Runnable::run));
    }

    @Test
    void aWordSplitAcrossReadsIsAnsweredAndTheConnectionClosed() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("ru"));
        assertNull(ch.readOutbound(), "no answer before four bytes arrived");
        ch.writeInbound(ascii("ok"));
        ByteBuf answer = ch.readOutbound();
        assertEquals("imok", answer.toString(StandardCharsets.UTF_8));
        answer.release();
        assertFalse(ch.isOpen(), "ZooKeeper closes after a four-letter word");
        assertNull(ch.readInbound(), "nothing goes on to the frame decoder");
    }

    @Test
    void aZooKeeperFrameGoesOnWholeAndInOrderEvenWhenItArrivesByteByByte() {
        EmbeddedChannel ch = channel();
        byte[] frame = new byte[4 + 45];
        frame[3] = 45; // a connect request's length, then its body
        for (int i = 4; i < frame.length; i++) {
            frame[i] = (byte) i;
        }
        for (byte b : frame) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readInbound()) != null) {
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            passed.writeBytes(bytes);
            b.release();
        }
        assertArrayEquals(frame, passed.toByteArray(), "the bytes the frame decoder would see");
        assertNull(ch.pipeline().get(FourLetterWordHandler.class), "the detector stepped aside");
        assertNull(ch.readOutbound(), "no answer to a ZooKeeper client");
    }

    @Test
    void aKnownWordThatIsNotEnabledGetsZooKeepersRefusal() {
        EmbeddedChannel ch = channel();
        ch.writeInbound(ascii("stat"));
        ByteBuf answer = ch.readOutbound();
        assertEquals("stat is not executed because it is not in the whitelist.\n", answer.toString(StandardCharsets.UTF_8));
        answer.release();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
