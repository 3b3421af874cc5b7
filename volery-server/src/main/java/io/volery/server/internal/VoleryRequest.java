package io.volery.server.internal;

/**
 * What a Volery front end multicasts to the partitions: a ZooKeeper request (its jute frame, so
 * every replica decodes the same bytes) or a session-management command. A plain class with
 * arrays only, so the Eyrie codec (Kryo) encodes it compactly and deterministically.
 */
public final class VoleryRequest {
    public static final byte ZK = 1;
    public static final byte CREATE_SESSION = 2;
    public static final byte RECONNECT = 3;
    public static final byte TOUCH = 4;
    public static final byte TICK = 5;

    public byte kind;
    /** The session issuing a ZK request, or the session created/reconnected. */
    public long sessionId;
    /** The ZK request's whole frame (header and body) for {@link #ZK}. */
    public byte[] frame;
    /** The front end's clock when it sent the request; replicas make it monotone. */
    public long timeMillis;
    /** The node whose front end holds the session. */
    public int frontEnd;
    /** CREATE_SESSION: the requested timeout; RECONNECT: idem. */
    public int timeoutMillis;
    /** CREATE_SESSION / RECONNECT: the session password. */
    public byte[] passwd;
    /** CREATE_SESSION / RECONNECT: the client's address, for the ip scheme. TOUCH: unused. */
    public String clientAddress;
    /**
     * CREATE_SESSION / RECONNECT: the subject DN of the client's TLS certificate (ADR 060), or null; the
     * session gets the x509 identity (and super, for the x509 super user).
     */
    public String x509Identity;
    /** TOUCH: the sessions heard from. */
    public long[] sessions;
    /** ZK: the request's number among its session's requests at its front end, in sending order. */
    public long seq;
    /**
     * ZK: the {@link #seq} of the session's request this one was pipelined behind (same single
     * partition, not answered yet when this one was sent), which must run first; 0 for none.
     */
    public long after;
    /**
     * ZK: {@link #frame} decoded, where the front end already holds it: the oracle reads its paths
     * without decoding the frame again. Transient: it does not travel (replicas decode the frame).
     */
    transient io.volery.server.frontend.ZkRequest decoded;

    public VoleryRequest() {
    }

    /** ZK: the request the frame holds (decoded once per process and kept). */
    io.volery.server.frontend.ZkRequest zkRequest() throws io.volery.server.frontend.ZkCodec.MalformedRequestException {
        if (decoded == null) {
            decoded = io.volery.server.frontend.ZkCodec.decodeRequest(frame);
        }
        return decoded;
    }

    public static VoleryRequest zk(long sessionId, byte[] frame, long timeMillis, int frontEnd) {
        VoleryRequest r = new VoleryRequest();
        r.kind = ZK;
        r.sessionId = sessionId;
        r.frame = frame;
        r.timeMillis = timeMillis;
        r.frontEnd = frontEnd;
        return r;
    }

    /** A ZK request whose frame the caller already decoded into {@code request}. */
    public static VoleryRequest zk(long sessionId, io.volery.server.frontend.ZkRequest request, long timeMillis,
                                   int frontEnd) {
        VoleryRequest r = zk(sessionId, request.frame(), timeMillis, frontEnd);
        r.decoded = request;
        return r;
    }

    @Override
    public String toString() {
        String what = "";
        if (kind == ZK && frame != null) {
            try {
                io.volery.server.frontend.ZkRequest q = zkRequest();
                what = " op=" + q.opCode() + (q.body() == null ? "" : " path=" + pathOf(q.body())) + " seq=" + seq;
            } catch (io.volery.server.frontend.ZkCodec.MalformedRequestException | RuntimeException e) {
                what = " (malformed)";
            }
        }
        return "VoleryRequest[kind=" + kind + " session=0x" + Long.toHexString(sessionId) + what
                + (frame == null ? "" : " bytes=" + frame.length) + "]";
    }

    private static String pathOf(org.apache.jute.Record body) {
        try {
            return Scope.pathOf(body);
        } catch (RuntimeException e) {
            return "?";
        }
    }
}
