package io.volery.server.frontend;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.ConnectRequest;
import org.apache.zookeeper.proto.ConnectResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One client connection: the handshake, then requests in, replies and notifications out.
 *
 * <p>Replies leave in the order the requests arrived (clients check xids), whatever order the
 * service completes them in. Notifications are written as soon as they are queued, so one that
 * is queued before a reply completes reaches the client first. Pings and authentication are
 * answered here; everything else goes to the {@link ZkService}.
 */
public final class ZkConnectionHandler extends SimpleChannelInboundHandler<ByteBuf> implements ClientConnection {
    private static final Logger log = LoggerFactory.getLogger(ZkConnectionHandler.class);
    /** ZooKeeper's keeper state SyncConnected, carried by every notification. */
    private static final int STATE_SYNC_CONNECTED = 3;
    /** Error codes answered by the front end itself. */
    private static final int ERR_AUTH_FAILED = -115;
    private static final int ERR_UNIMPLEMENTED = -6;
    private static final int ERR_MARSHALLING = -5;
    /** SessionClosedRequireAuth: a request before the connection authenticated with an enforced scheme. */
    private static final int ERR_REQUIRE_AUTH = -124;

    private final ZkService service;
    /** The subject DN of the client's certificate, once its TLS handshake is done; null otherwise. */
    private volatile String x509Identity;
    private final FrontEndStats stats;
    private final ReadThrottle throttle;
    /** SASL authentication (DIGEST-MD5 users, a Kerberos login), or null when SASL is not configured. */
    private final SaslAuthentication sasl;
    /** The schemes a connection must authenticate with before its requests are served (ADR 052). */
    private final AuthEnforcement enforcement;
    /** The schemes this connection holds identities of (event loop only): ip, then addAuth's and SASL's. */
    private final java.util.Set<String> heldSchemes = new java.util.HashSet<>();
    /** This connection's SASL negotiation (event loop only); null until the client starts one. */
    private javax.security.sasl.SaslServer saslServer;
    /** A completed reply scheduled a drain on the event loop that has not run yet (one wakeup serves many). */
    private final java.util.concurrent.atomic.AtomicBoolean drainScheduled = new java.util.concurrent.atomic.AtomicBoolean();
    /** Between the connect request and the service's answer: nothing else may be read. */
    private boolean awaitingSession;
    /** The connection's identities in the order proven, each once (ZooKeeper keeps a set). */
    private final CopyOnWriteArrayList<Id> authInfo = new CopyOnWriteArrayList<>();
    private final ArrayDeque<Queued> inOrder = new ArrayDeque<>();

    /**
     * A reply to come, the request bytes behind it, and whether it is the service's reply to a
     * submitted request (then written through {@link ZkService#writeReply}).
     */
    private record Queued(CompletableFuture<ZkReply> reply, int bytes, boolean submitted) {
    }
    /** Bytes of requests read and not yet answered (event loop only). */
    private long unansweredBytes;
    /** The connection closed: its bytes were released from the throttle then. */
    private boolean inactive;
    private volatile long sessionId;
    private volatile Channel channel;
    private boolean handshakeDone;
    private boolean closing;
    private final ClientTls tls;

    public ZkConnectionHandler(ZkService service, FrontEndStats stats) {
        this(service, stats, new ReadThrottle());
    }

    public ZkConnectionHandler(ZkService service, FrontEndStats stats, ReadThrottle throttle) {
        this(service, stats, throttle, null);
    }

    /** @param sasl SASL authentication (DIGEST-MD5, GSSAPI), or null for a server without SASL */
    public ZkConnectionHandler(ZkService service, FrontEndStats stats, ReadThrottle throttle, SaslAuthentication sasl) {
        this(service, stats, throttle, sasl, AuthEnforcement.OFF);
    }

    /**
     * @param sasl        SASL authentication (DIGEST-MD5, GSSAPI), or null for a server without SASL
     * @param enforcement the schemes a connection must authenticate with before anything else
     */
    public ZkConnectionHandler(ZkService service, FrontEndStats stats, ReadThrottle throttle, SaslAuthentication sasl,
                               AuthEnforcement enforcement) {
        this(service, stats, throttle, sasl, enforcement, null);
    }

    /** @param tls the client port's TLS settings, for the checks after a handshake; null without TLS */
    public ZkConnectionHandler(ZkService service, FrontEndStats stats, ReadThrottle throttle, SaslAuthentication sasl,
                               AuthEnforcement enforcement, ClientTls tls) {
        this.tls = tls;
        this.service = service;
        this.stats = stats;
        this.throttle = throttle;
        this.sasl = sasl;
        this.enforcement = java.util.Objects.requireNonNull(enforcement, "enforcement");
        this.audit = service.audit();
    }

    /** The service's audit log (ADR 071), read once: null when auditing is off. */
    private final io.volery.server.audit.AuditLog audit;

    /** The throttle's condition may have changed: (un)pause reading, on this connection's event loop. */
    void readStateChanged() {
        Channel c = channel;
        if (c != null) {
            c.eventLoop().execute(this::applyReadState);
        }
    }

    private void applyReadState() {
        Channel c = channel;
        if (c == null) {
            return;
        }
        boolean read = !closing && !awaitingSession && !throttle.holdsBack(unansweredBytes);
        if (c.config().isAutoRead() != read) {
            c.config().setAutoRead(read);
            if (!read && !closing && !awaitingSession) {
                throttle.countPause();
            }
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        InetSocketAddress remote = remoteAddress();
        if (remote != null) {
            authInfo.addIfAbsent(new Id("ip", remote.getAddress().getHostAddress()));
            heldSchemes.add("ip");
        }
        stats.connectionOpened();
        throttle.register(this);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stats.connectionClosed();
        throttle.unregister(this);
        throttle.answered(unansweredBytes); // requests of a closed connection are no longer waited for here
        unansweredBytes = 0;
        inactive = true;
        disposeSasl();
        if (handshakeDone) {
            service.disconnected(this);
        }
        ctx.fireChannelInactive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
        byte[] bytes = ByteBufUtil.getBytes(frame);
        stats.bytesReceived(bytes.length + 4);
        if (closing) {
            return;
        }
        try {
            if (!handshakeDone) {
                handshake(ctx, ZkCodec.decodeConnect(bytes));
                return;
            }
            request(ctx, ZkCodec.decodeRequest(bytes), bytes.length);
        } catch (ZkCodec.MalformedBodyException e) {
            // ZooKeeper answers a body it cannot read with MarshallingError and keeps serving.
            log.info("session=0x{} from {}: {}", Long.toHexString(sessionId), remoteAddress(), e.getMessage());
            stats.malformed();
            enqueue(ctx, CompletableFuture.completedFuture(ZkReply.error(e.xid(), service.ping(this), ERR_MARSHALLING)));
        } catch (ZkCodec.MalformedRequestException e) {
            // ZooKeeper drops a connection it cannot parse; the session is left to its timeout.
            log.warn("closing connection from {} session=0x{}: {}", remoteAddress(), Long.toHexString(sessionId), e.getMessage());
            stats.malformed();
            closing = true;
            ctx.close();
        }
    }

    private void handshake(ChannelHandlerContext ctx, ConnectRequest req) {
        // Stop reading until the session is settled, as ZooKeeper does: requests must not race it.
        awaitingSession = true;
        applyReadState();
        handshakeDone = true;
        // Over TLS the handshake is done before any frame: the certificate it verified names the client (ADR 060),
        // and the identity goes to the partitions with the session, so no request runs before it.
        io.netty.handler.ssl.SslHandler ssl = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
        if (ssl != null) {
            String dn = ClientTls.clientIdentity(ssl.engine().getSession());
            if (dn != null) {
                x509Identity = dn;
                heldSchemes.add("x509");
                authInfo.addIfAbsent(new Id("x509", dn));
            }
        }
        service.connect(req, this).whenComplete((outcome, err) -> ctx.executor().execute(() -> {
            if (err != null) {
                log.warn("connect from {} failed: {}", remoteAddress(), err.toString());
                ctx.close();
                return;
            }
            ConnectResponse rsp = new ConnectResponse(0, outcome.accepted() ? outcome.timeoutMillis() : 0,
                    outcome.accepted() ? outcome.sessionId() : 0, outcome.passwd(), false);
            if (outcome.accepted()) {
                sessionId = outcome.sessionId();
            }
            writeFrame(ctx, ZkCodec.encodeConnectResponse(rsp));
            ctx.flush();
            awaitingSession = false;
            if (outcome.accepted()) {
                applyReadState();
            } else {
                log.info("session 0x{} from {} is expired or invalid; closing", Long.toHexString(req.getSessionId()),
                        remoteAddress());
                closing = true;
                ctx.close();
            }
        }));
    }

    private void request(ChannelHandlerContext ctx, ZkRequest r, int bytes) {
        stats.request(r.opCode());
        if (r.opCode() != OpCodes.AUTH && r.opCode() != OpCodes.SASL && !enforcement.admits(heldSchemes)) {
            refuseUnauthenticated(ctx, r);
            return;
        }
        switch (r.opCode()) {
            case OpCodes.PING -> {
                // Clients match ping replies by their special xid, so they need not wait behind
                // slow requests; answering at once keeps sessions alive under load.
                long zxid = service.ping(this);
                writeFrame(ctx, ZkCodec.encodeReply(ZkReply.ok(OpCodes.XID_PING, zxid, null)));
                ctx.flush();
            }
            case OpCodes.AUTH -> auth(ctx, r);
            case OpCodes.SASL -> sasl(ctx, r);
            case OpCodes.CREATE_SESSION -> {
                // Inside a session ZooKeeper takes this for a createSession transaction it cannot
                // parse: MarshallingError, and the connection stays.
                enqueue(ctx, CompletableFuture.completedFuture(ZkReply.error(r.xid(), service.ping(this), ERR_MARSHALLING)));
            }
            default -> {
                if (ZkCodec.bodyOf(r.opCode()) == null && !isBodiless(r.opCode())) {
                    // Unknown operation: ZooKeeper answers Unimplemented and drops the connection.
                    enqueue(ctx, CompletableFuture.completedFuture(ZkReply.error(r.xid(), 0, ERR_UNIMPLEMENTED)));
                    closeAfterReplies(ctx);
                    return;
                }
                CompletableFuture<ZkReply> f;
                try {
                    f = service.submit(this, r);
                } catch (RuntimeException e) {
                    log.error("service failed on {} session=0x{}", r, Long.toHexString(sessionId), e);
                    f = CompletableFuture.failedFuture(e);
                }
                if (audit != null && io.volery.server.audit.RequestAudit.audits(r.opCode())) {
                    // the identities the request was sent with, as ZooKeeper takes them at the request
                    List<Id> ids = List.copyOf(authInfo);
                    long session = sessionId;
                    InetSocketAddress remote = remoteAddress();
                    String ip = remote == null ? null : remote.getAddress().getHostAddress();
                    f.whenComplete((rep, err) -> {
                        if (rep != null) {
                            io.volery.server.audit.RequestAudit.log(audit, session, ip, ids, r, rep);
                        }
                    });
                }
                enqueue(ctx, f, bytes, true);
                if (r.opCode() == OpCodes.CLOSE_SESSION) {
                    closeAfterReplies(ctx);
                }
            }
        }
    }

    /**
     * ZooKeeper's answer to any request but addAuth and SASL from a connection that holds no identity of
     * an enforced scheme: SessionClosedRequireAuth with no body, then the connection closes (the session
     * is left to expire; a client that reconnects and authenticates first may still use it).
     */
    private void refuseUnauthenticated(ChannelHandlerContext ctx, ZkRequest r) {
        log.warn("session 0x{} from {}: {} before authenticating by any of {} (holds {}); closing the connection",
                Long.toHexString(sessionId), remoteAddress(), r.opCode(), enforcement.schemes(), heldSchemes);
        int xid = r.opCode() == OpCodes.PING ? OpCodes.XID_PING : r.xid();
        enqueue(ctx, CompletableFuture.completedFuture(ZkReply.error(xid, 0, ERR_REQUIRE_AUTH)));
        closeAfterReplies(ctx);
    }

    private static boolean isBodiless(int op) {
        return op == OpCodes.MULTI || op == OpCodes.MULTI_READ || op == OpCodes.CLOSE_SESSION
                || op == OpCodes.WHO_AM_I;
    }

    /**
     * Authentication is part of the replicated session (ACLs are checked in the partitions), so the
     * service records it; a failure answers AuthFailed and then closes, as ZooKeeper does.
     */
    private void auth(ChannelHandlerContext ctx, ZkRequest r) {
        // held from now on, as ZooKeeper, which authenticates inline, holds it for the next request; if the
        // partitions refuse it the connection closes
        AuthPacket packet = (AuthPacket) r.body();
        heldSchemes.add(packet.getScheme());
        if ("digest".equals(packet.getScheme()) && packet.getAuth() != null) {
            // the connection's identity from now on, as ZooKeeper adds it inline (cons, the audit log): the user
            // (up to the first colon) and the SHA-1 of the whole "user:password"
            String userPassword = new String(packet.getAuth(), StandardCharsets.UTF_8);
            int colon = userPassword.indexOf(':');
            String user = colon < 0 ? userPassword : userPassword.substring(0, colon);
            authInfo.addIfAbsent(new Id("digest", user + ":" + sha1Base64(userPassword)));
        }
        CompletableFuture<ZkReply> f = service.submit(this, r);
        enqueue(ctx, f, 0, true);
        f.whenComplete((rep, err) -> ctx.executor().execute(() -> {
            if (err != null || rep == null || rep.err() != 0) {
                log.warn("auth failed for scheme '{}' from {}", ((AuthPacket) r.body()).getScheme(), remoteAddress());
                closeAfterReplies(ctx);
            }
        }));
    }

    /**
     * One step of a SASL negotiation (ZooKeeper's clients start it right after connecting and send
     * nothing else until it ends). While incomplete, the server's challenge goes back at once. Once the
     * client proved who it is, the identity is ordered to every partition like an addAuth, in the
     * session's order, and the last answer (DIGEST-MD5's rspauth) waits for it, so that no request the
     * client sends after the negotiation runs without the identity. A failed negotiation is answered
     * AuthFailed and the connection closes, as in ZooKeeper. A server without SASL answers with no
     * token and keeps the connection, as ZooKeeper does when it has no JAAS server section.
     */
    private void sasl(ChannelHandlerContext ctx, ZkRequest r) {
        org.apache.zookeeper.proto.GetSASLRequest q = (org.apache.zookeeper.proto.GetSASLRequest) r.body();
        if (sasl == null) {
            enqueue(ctx, CompletableFuture.completedFuture(
                    ZkReply.ok(r.xid(), 0, new org.apache.zookeeper.proto.SetSASLResponse(null))));
            return;
        }
        byte[] challenge;
        String identity = null;
        try {
            byte[] token = q.getToken() == null ? new byte[0] : q.getToken();
            if (saslServer == null || saslServer.isComplete()) {
                saslServer = sasl.newServer(token);
            }
            challenge = saslServer.evaluateResponse(token);
            if (saslServer.isComplete()) {
                identity = saslServer.getAuthorizationID();
                disposeSasl();
            }
        } catch (javax.security.sasl.SaslException | RuntimeException e) {
            // the cause says why (GSSAPI: "GSS initiate failed" caused by a wrong key, another service's ticket...)
            log.warn("SASL authentication failed from {} (session 0x{}): {}{}", remoteAddress(), Long.toHexString(sessionId),
                    e.getMessage(), e.getCause() == null ? "" : " (" + e.getCause().getMessage() + ")");
            disposeSasl();
            // a server that requires SASL says so (ZooKeeper's SessionClosedRequireAuth), others AuthFailed
            enqueue(ctx, CompletableFuture.completedFuture(saslFailed(r.xid(), 0,
                    enforcement.requiresSasl() ? ERR_REQUIRE_AUTH : ERR_AUTH_FAILED)));
            closeAfterReplies(ctx);
            return;
        }
        org.apache.zookeeper.proto.SetSASLResponse answer = new org.apache.zookeeper.proto.SetSASLResponse(challenge);
        if (identity == null) {
            enqueue(ctx, CompletableFuture.completedFuture(ZkReply.ok(r.xid(), 0, answer)));
            return;
        }
        log.info("session 0x{} from {} authenticated by SASL as '{}'", Long.toHexString(sessionId), remoteAddress(), identity);
        heldSchemes.add("sasl");
        authInfo.addIfAbsent(new Id("sasl", identity));
        // the request the replicas run: the identity in a SASL frame, which no client frame reaches them as
        org.apache.zookeeper.proto.GetSASLRequest ordered =
                new org.apache.zookeeper.proto.GetSASLRequest(identity.getBytes(StandardCharsets.UTF_8));
        ZkRequest established = ZkRequest.of(r.xid(), OpCodes.SASL, ordered)
                .withFrame(ZkCodec.encodeRequest(r.xid(), OpCodes.SASL, ordered));
        String who = identity;
        CompletableFuture<ZkReply> f = service.submit(this, established).thenApply(rep -> {
            if (rep == null || rep.err() != 0) {
                log.warn("session 0x{}: the partitions refused SASL identity '{}' (err {})", Long.toHexString(sessionId),
                        who, rep == null ? "none" : rep.err());
                ctx.executor().execute(() -> closeAfterReplies(ctx));
                return saslFailed(r.xid(), rep == null ? 0 : rep.zxid(), rep == null ? ERR_AUTH_FAILED : rep.err());
            }
            return ZkReply.ok(r.xid(), rep.zxid(), answer);
        });
        enqueue(ctx, f, 0, true);
    }

    /** Lets go of the negotiation's state (a GSSAPI server holds a security context). */
    private void disposeSasl() {
        if (saslServer != null) {
            try {
                saslServer.dispose();
            } catch (javax.security.sasl.SaslException e) {
                log.debug("disposing a SASL server: {}", e.getMessage());
            }
            saslServer = null;
        }
    }

    /**
     * A failed SASL step's answer: the error, and still an (empty) SASL response after it, since a
     * ZooKeeper client reads one from every answer while it negotiates (without it, it takes the
     * answer for a broken connection and reconnects, and negotiates again, forever).
     */
    private static ZkReply saslFailed(int xid, long zxid, int err) {
        return new ZkReply(xid, zxid, err, new org.apache.zookeeper.proto.SetSASLResponse(null), false, List.of(), null);
    }

    /** The digest scheme's id: {@code user:base64(sha1(user:password))}. */
    public static String digestId(String user, String password) {
        return user + ":" + sha1Base64(user + ":" + password);
    }

    private static String sha1Base64(String text) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    private void enqueue(ChannelHandlerContext ctx, CompletableFuture<ZkReply> f) {
        enqueue(ctx, f, 0, false);
    }

    /**
     * Queues a reply to come in order; {@code bytes} of request count against the read bounds until it is
     * written; {@code submitted}: the service's reply to a submitted request (written through the service).
     */
    private void enqueue(ChannelHandlerContext ctx, CompletableFuture<ZkReply> f, int bytes, boolean submitted) {
        inOrder.add(new Queued(f, bytes, submitted));
        if (bytes > 0) {
            unansweredBytes += bytes;
            throttle.read(bytes);
            if (throttle.holdsBack(unansweredBytes)) {
                applyReadState();
            }
        }
        f.whenComplete((rep, err) -> {
            if (ctx.executor().inEventLoop()) {
                drain(ctx);
            } else if (drainScheduled.compareAndSet(false, true)) {
                ctx.executor().execute(() -> {
                    drainScheduled.set(false);
                    drain(ctx);
                });
            }
        });
    }

    /** Writes the completed replies at the head of the queue, in submission order. */
    private void drain(ChannelHandlerContext ctx) {
        if (draining) {
            // A write can run queued tasks that drain again; the outer loop finishes the job.
            return;
        }
        draining = true;
        try {
            drainNow(ctx);
        } finally {
            draining = false;
        }
        if (inOrder.isEmpty() && closeWhenDrained) {
            ctx.close();
        }
    }

    private boolean draining;

    private void drainNow(ChannelHandlerContext ctx) {
        boolean wrote = false;
        long answered = 0;
        while (!inOrder.isEmpty() && inOrder.peek().reply().isDone()) {
            Queued q = inOrder.poll();
            CompletableFuture<ZkReply> f = q.reply();
            answered += q.bytes();
            boolean submitted = q.submitted();
            ZkReply reply;
            try {
                reply = f.join();
            } catch (RuntimeException e) {
                log.error("request of session 0x{} failed inside the service", Long.toHexString(sessionId), e);
                // A failure inside the service has no ZooKeeper code of its own: close like a lost server.
                closing = true;
                ctx.close();
                break;
            }
            if (reply == null) {
                continue;
            }
            if (submitted) {
                service.writeReply(this, reply.zxid(), () -> write(ctx, reply));
            } else {
                write(ctx, reply);
            }
            wrote = true;
        }
        if (answered > 0 && !inactive) {
            unansweredBytes -= answered;
            throttle.answered(answered);
            if (!closing && channel != null && !channel.config().isAutoRead()) {
                applyReadState();
            }
        }
        if (wrote) {
            ctx.flush();
        }
    }

    private void write(ChannelHandlerContext ctx, ZkReply reply) {
        if (reply.encoded() != null) {
            writeEncoded(ctx, reply);
        } else {
            writeFrame(ctx, ZkCodec.encodeReply(reply));
        }
    }

    private boolean closeWhenDrained;

    private void closeAfterReplies(ChannelHandlerContext ctx) {
        closing = true;
        closeWhenDrained = true;
        applyReadState();
        drain(ctx);
    }

    /** A reply a replica encoded (with xid 0): framed with this request's xid, copied once into the buffer. */
    private void writeEncoded(ChannelHandlerContext ctx, ZkReply reply) {
        byte[] body = reply.encoded();
        ByteBuf buf = ctx.alloc().buffer(4 + body.length);
        buf.writeInt(body.length).writeInt(reply.xid()).writeBytes(body, 4, body.length - 4);
        stats.bytesSent(4 + body.length);
        ctx.write(buf);
    }

    private void writeFrame(ChannelHandlerContext ctx, byte[] body) {
        ByteBuf buf = ctx.alloc().buffer(4 + body.length);
        buf.writeInt(body.length).writeBytes(body);
        stats.bytesSent(4 + body.length);
        ctx.write(buf);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof io.netty.handler.ssl.SslHandshakeCompletionEvent e && e.isSuccess() && tls != null) {
            io.netty.handler.ssl.SslHandler ssl = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
            String mismatch = ssl == null ? null : tls.clientHostMismatch(ssl.engine().getSession(), ctx.channel().remoteAddress());
            if (mismatch != null) {
                // ssl.clientHostnameVerification (ADR 065): as a failed handshake, nothing of the connection is read
                stats.tlsHandshakeFailed();
                log.warn("TLS client {} refused: its certificate does not name the address it connects from: {}",
                        remoteAddress(), mismatch);
                closing = true;
                ctx.close();
                return;
            }
        }
        if (evt instanceof io.netty.handler.ssl.SslHandshakeCompletionEvent e && !e.isSuccess()) {
            if (io.eyrie.multicast.TlsHandshakes.abandoned(e.cause())) {
                // closed or silent before a verdict (ADR 094): a health check's or a scanner's connection, not a failure
                stats.tlsHandshakeAbandoned();
                log.debug("TLS handshake with {} abandoned: {}", remoteAddress(), e.cause().toString());
            } else {
                // ZooKeeper closes a connection whose handshake failed (no certificate, an untrusted one, no common
                // protocol); so does the TLS handler, and the client sees the connection lost
                stats.tlsHandshakeFailed();
                log.warn("TLS handshake with {} failed: {}", remoteAddress(), e.cause() == null ? "?" : e.cause().getMessage());
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public boolean secure() {
        Channel c = channel;
        return c != null && c.pipeline().get(io.netty.handler.ssl.SslHandler.class) != null;
    }

    @Override
    public String x509Identity() {
        return x509Identity;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("connection from {} failed: {}", remoteAddress(), cause.toString());
        ctx.close();
    }

    // ClientConnection

    @Override
    public long sessionId() {
        return sessionId;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        Channel c = channel;
        return c != null && c.remoteAddress() instanceof InetSocketAddress a ? a : null;
    }

    @Override
    public List<Id> authInfo() {
        return List.copyOf(authInfo);
    }

    @Override
    public void notify(long zxid, int eventType, String path) {
        Channel c = channel;
        if (c == null) {
            return;
        }
        byte[] body = ZkCodec.encodeNotification(zxid, eventType, STATE_SYNC_CONNECTED, path);
        ByteBuf buf = Unpooled.buffer(4 + body.length);
        buf.writeInt(body.length).writeBytes(body);
        stats.notification();
        // Written through the event loop, so it is ordered before any reply drained after this call.
        c.writeAndFlush(buf);
    }

    @Override
    public void inOrder(Runnable task) {
        Channel c = channel;
        ChannelHandlerContext ctx = c == null ? null : c.pipeline().context(this);
        if (ctx == null) {
            return; // closed: nothing more is written
        }
        c.eventLoop().execute(() -> {
            task.run();
            ctx.flush();
        });
    }

    @Override
    public void close(String reason) {
        Channel c = channel;
        if (c != null) {
            log.info("closing connection from {} session=0x{}: {}", remoteAddress(), Long.toHexString(sessionId), reason);
            c.close();
        }
    }
}
