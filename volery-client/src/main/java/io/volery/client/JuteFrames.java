package io.volery.client;

import org.apache.jute.BinaryInputArchive;
import org.apache.jute.BinaryOutputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.proto.ReplyHeader;
import org.apache.zookeeper.proto.RequestHeader;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * ZooKeeper's jute framing as the replicas read and write it: a request is a {@link RequestHeader}
 * followed by its record, exactly the bytes a front end forwards; a reply is a {@link ReplyHeader}
 * followed, when its err is 0, by the response record. Replicas decode the same bytes the ZooKeeper
 * client would have sent, so the native client's results are the front end's, byte for byte.
 */
final class JuteFrames {

    private JuteFrames() {
    }

    /** A request frame; {@code body} is null for bodiless operations (closeSession, whoAmI). */
    static byte[] request(int xid, int opCode, Record body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        BinaryOutputArchive out = BinaryOutputArchive.getArchive(bytes);
        try {
            new RequestHeader(xid, opCode).serialize(out, "header");
            if (body != null) {
                body.serialize(out, "request");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode request of operation " + opCode, e);
        }
        return bytes.toByteArray();
    }

    /** A decoded reply: its header, and {@code response} filled in when the header's err is 0. */
    record Reply(long zxid, int err) {
    }

    /**
     * Reads the reply header and, when it reports success and {@code response} is not null, the
     * response into {@code response}.
     */
    static Reply reply(byte[] encoded, Record response) {
        BinaryInputArchive in = BinaryInputArchive.getArchive(new ByteArrayInputStream(encoded));
        ReplyHeader h = new ReplyHeader();
        try {
            h.deserialize(in, "header");
            if (h.getErr() == 0 && response != null) {
                response.deserialize(in, "response");
            }
        } catch (IOException e) {
            throw new IllegalStateException("a replica sent a reply the client cannot read: " + e.getMessage(), e);
        }
        return new Reply(h.getZxid(), h.getErr());
    }
}
