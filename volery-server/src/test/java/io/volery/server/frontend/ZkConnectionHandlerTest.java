package io.volery.server.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;
import org.apache.zookeeper.proto.WatcherEvent;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The connection handler's wire behaviour, on an EmbeddedChannel, with a scripted service. */
class ZkConnectionHandlerTest {

    /** A service whose replies the test completes by hand, to show reply ordering. */
    static final class ScriptedService implements ZkService {
        final List<ZkRequest> submitted = new ArrayList<>();
        final List<CompletableFuture<ZkReply>> replies = new ArrayList<>();
        boolean accept = true;

        @Override
        public void writeReply(ClientConnection connection, long zxid, Runnable write) {
            write.run();
        }

        @Override
        public CompletableFuture<ConnectOutcome> connect(ConnectRequest request, ClientConnection connection) {
            return CompletableFuture.completedFuture(accept
                    ? new ConnectOutcome(true, 0x1234L, Math.min(request.getTimeOut(), 20_000), new byte[16])
                    : ConnectOutcome.rejected());
        }

        @Override
        public CompletableFuture<ZkReply> submit(ClientConnection connection, ZkRequest request) {
            submitted.add(request);
            CompletableFuture<ZkReply> f = new CompletableFuture<>();
            replies.add(f);
            return f;
        }

        @Override
        public long ping(ClientConnection connection) {
            return 77;
        }

        @Override
        public void disconnected(ClientConnection connection) {
        }
    }

    final ScriptedService service = new ScriptedService();
    final EmbeddedChannel ch = new EmbeddedChannel(new ZkFrameDecoder(1024 * 1024),
            new ZkConnectionHandler(service, new FrontEndStats()));

    static ByteBuf frame(Record... records) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        BinaryOutputArchive a = BinaryOutputArchive.getArchive(b);
        for (Record r : records) {
            r.serialize(a, "r");
        }
        byte[] body = b.toByteArray();
        return Unpooled.buffer().writeInt(body.length).writeBytes(body);
    }

    BinaryInputArchive nextFrame() {
        ch.runPendingTasks();
        ByteBuf out = ch.readOutbound();
        if (out == null) {
            return null;
        }
        int len = out.readInt();
        assertEquals(len, out.readableBytes(), "one whole frame per write");
        byte[] bytes = new byte[len];
        out.readBytes(bytes);
        out.release();
        return BinaryInputArchive.getArchive(new ByteArrayInputStream(bytes));
    }

    void connect() throws IOException {
        ch.writeInbound(frame(new ConnectRequest(0, 0, 30_000, 0, new byte[16], false)));
        BinaryInputArchive in = nextFrame();
        ConnectResponse rsp = new ConnectResponse();
        rsp.deserialize(in, "r");
        assertEquals(0x1234L, rsp.getSessionId());
        assertEquals(20_000, rsp.getTimeOut());
    }

    @Test
    void repliesLeaveInRequestOrderWhateverOrderTheServiceCompletesThem() throws IOException {
        connect();
        ch.writeInbound(frame(new RequestHeader(1, OpCodes.GET_DATA), new GetDataRequest("/a", false)));
        ch.writeInbound(frame(new RequestHeader(2, OpCodes.GET_DATA), new GetDataRequest("/b", false)));
        assertEquals(2, service.submitted.size());
        service.replies.get(1).complete(ZkReply.ok(2, 10, new GetDataResponse(new byte[] {2}, new Stat())));
        assertNull(nextFrame(), "xid 2 must wait for xid 1");
        service.replies.get(0).complete(ZkReply.error(1, 9, -101));
        ReplyHeader h = new ReplyHeader();
        h.deserialize(nextFrame(), "h");
        assertEquals(1, h.getXid());
        assertEquals(-101, h.getErr());
        BinaryInputArchive second = nextFrame();
        h.deserialize(second, "h");
        assertEquals(2, h.getXid());
        GetDataResponse body = new GetDataResponse();
        body.deserialize(second, "b");
        assertArrayEquals(new byte[] {2}, body.getData());
    }

    @Test
    void pingIsAnsweredAtOnceEvenBehindASlowRequest() throws IOException {
        connect();
        ch.writeInbound(frame(new RequestHeader(1, OpCodes.GET_DATA), new GetDataRequest("/a", false)));
        ch.writeInbound(frame(new RequestHeader(OpCodes.XID_PING, OpCodes.PING)));
        ReplyHeader h = new ReplyHeader();
        h.deserialize(nextFrame(), "h");
        assertEquals(OpCodes.XID_PING, h.getXid());
        assertEquals(77, h.getZxid());
    }

    @Test
    void notificationCarriesTheTriggeringZxidAndPrecedesLaterReplies() throws IOException {
        connect();
        ch.writeInbound(frame(new RequestHeader(1, OpCodes.GET_DATA), new GetDataRequest("/a", true)));
        ZkConnectionHandler conn = ch.pipeline().get(ZkConnectionHandler.class);
        conn.notify(42, 3, "/a");
        service.replies.get(0).complete(ZkReply.ok(1, 43, new GetDataResponse(new byte[0], new Stat())));
        BinaryInputArchive first = nextFrame();
        ReplyHeader h = new ReplyHeader();
        h.deserialize(first, "h");
        assertEquals(OpCodes.XID_NOTIFICATION, h.getXid());
        assertEquals(42, h.getZxid());
        WatcherEvent e = new WatcherEvent();
        e.deserialize(first, "e");
        assertEquals(3, e.getType());
        assertEquals(3, e.getState(), "SyncConnected");
        assertEquals("/a", e.getPath());
        h.deserialize(nextFrame(), "h");
        assertEquals(1, h.getXid());
    }

    @Test
    void unknownOpcodeGetsUnimplementedThenTheConnectionCloses() throws IOException {
        connect();
        ch.writeInbound(frame(new RequestHeader(5, 77)));
        ReplyHeader h = new ReplyHeader();
        h.deserialize(nextFrame(), "h");
        assertEquals(5, h.getXid());
        assertEquals(-6, h.getErr(), "Unimplemented");
        assertFalse(ch.isOpen());
        assertTrue(service.submitted.isEmpty(), "nothing reaches the service");
    }

    @Test
    void frameOverJuteMaxbufferClosesWithoutAnswer() throws IOException {
        connect();
        ch.writeInbound(Unpooled.buffer().writeInt(1024 * 1024 + 1).writeBytes(new byte[100]));
        assertNull(nextFrame());
        assertFalse(ch.isOpen());
    }

    @Test
    void malformedBodyGetsMarshallingErrorAndTheConnectionStays() throws IOException {
        connect();
        // getData whose path length claims more bytes than the frame holds (real ZooKeeper: -5, kept)
        ch.writeInbound(Unpooled.buffer().writeInt(12).writeInt(9).writeInt(OpCodes.GET_DATA).writeInt(1000));
        ReplyHeader h = new ReplyHeader();
        h.deserialize(nextFrame(), "h");
        assertEquals(9, h.getXid(), "the malformed request's xid");
        assertEquals(-5, h.getErr(), "MarshallingError");
        assertTrue(ch.isOpen(), "the connection stays open");
        assertTrue(service.submitted.isEmpty(), "nothing reaches the service");
    }

    @Test
    void truncatedHeaderClosesTheConnection() throws IOException {
        connect();
        ch.writeInbound(Unpooled.buffer().writeInt(3).writeBytes(new byte[]{0, 0, 1}));
        assertNull(nextFrame());
        assertFalse(ch.isOpen());
    }

    @Test
    void rejectedSessionGetsZeroTimeoutAndIsClosed() throws IOException {
        service.accept = false;
        ch.writeInbound(frame(new ConnectRequest(0, 0, 30_000, 0x99L, new byte[16], false)));
        ConnectResponse rsp = new ConnectResponse();
        rsp.deserialize(nextFrame(), "r");
        assertEquals(0, rsp.getTimeOut(), "a zero timeout tells the client its session expired");
        assertEquals(0, rsp.getSessionId());
        assertFalse(ch.isOpen());
    }

    @Test
    void authGoesToTheServiceAndAFailureClosesTheConnectionAfterItsReply() throws IOException {
        connect();
        ch.writeInbound(frame(new RequestHeader(OpCodes.XID_AUTH, OpCodes.AUTH),
                new org.apache.zookeeper.proto.AuthPacket(0, "kerberos", new byte[0])));
        assertEquals(OpCodes.AUTH, service.submitted.get(0).opCode());
        service.replies.get(0).complete(ZkReply.error(OpCodes.XID_AUTH, 0, -115));
        ReplyHeader h = new ReplyHeader();
        h.deserialize(nextFrame(), "h");
        assertEquals(OpCodes.XID_AUTH, h.getXid());
        assertEquals(-115, h.getErr(), "AuthFailed");
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
    }
}
