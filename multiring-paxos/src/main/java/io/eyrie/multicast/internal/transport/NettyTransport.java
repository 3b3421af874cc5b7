package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The default {@link Transport}: TCP through Netty (epoll when available, NIO otherwise).
 *
 * <p>The node listens on its own {@code host:port} from the cluster file. It dials a peer on the
 * first message for it and keeps that one-way connection up, redialling with a capped exponential
 * delay. {@link #send} never blocks: it copies the message into the peer's bounded queue, or drops
 * and counts it when the queue is full (the peer is slow, down or unreachable). Messages a node
 * sends to itself are delivered on a transport thread, not inside {@code send}.
 *
 * <p>{@code onConnection} reports two views of a peer separately: our outbound connection to it
 * ("up" once dialled and said hello on, "down" when lost), and its inbound connections to us ("up"
 * when the first completes a hello, "down" when the last closes). Inbound messages
 * and events arrive on transport threads, possibly several at once for different peers; per
 * connection they arrive in order.
 *
 * <p>{@link #stats()}: framesSent counts messages handed to a socket (including those to oneself);
 * a message in the socket when its connection breaks is neither delivered nor counted as dropped.
 * framesDropped counts refused sends and messages still queued at {@link #close()}. framesRejected
 * counts connections closed for bad input. The hello is not counted.
 */
public final class NettyTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);

    /** The cluster file's current version: replaced by {@link #readdress} (ADR 102). */
    private volatile ClusterConfig config;
    private final int nodeId;
    private final int maxFrameBytes;
    private final TransportOptions options;
    private final TransportCounters counters = new TransportCounters();
    private final ConnectionRejector rejector;
    private volatile long fingerprint;
    /** Fingerprints of the versions of the cluster file this node ran with before reloads, newest last (ADR 102). */
    private volatile long[] earlierFingerprints = new long[0];
    /** Kept at most: a node whose file is this many versions behind is refused. */
    static final int EARLIER_FINGERPRINTS_KEPT = 8;
    // Made at start; readdress makes new links with them.
    private Bootstrap dialer;
    private InboundSessions sessions;
    private final Set<Channel> inboundChannels = ConcurrentHashMap.newKeySet();
    private final SideDesk sideDesk;

    // Written once by start(), then read by any sender: volatile publishes the finished array.
    private volatile Link[] links;
    private volatile boolean closed;
    private EventLoopGroup group;
    private Loop protocolLoop;
    private boolean started;
    private Channel serverChannel;
    private SocketFlavor flavor;
    private java.util.concurrent.ScheduledExecutorService storeWatch;

    /**
     * @param maxFrameBytes the largest message payload this node sends or accepts; every node of a
     *                      cluster must use the same value, or larger messages are refused
     */
    public NettyTransport(ClusterConfig config, int nodeId, int maxFrameBytes) {
        this(config, nodeId, maxFrameBytes, TransportOptions.defaults());
    }

    public NettyTransport(ClusterConfig config, int nodeId, int maxFrameBytes, TransportOptions options) {
        config.node(nodeId); // fails with a message naming the known nodes
        if (maxFrameBytes < Hello.PAYLOAD_BYTES || maxFrameBytes > FrameFormat.MAX_PAYLOAD_BYTES_LIMIT) {
            throw new IllegalArgumentException("maxFrameBytes must be in [" + Hello.PAYLOAD_BYTES + ", "
                    + FrameFormat.MAX_PAYLOAD_BYTES_LIMIT + "], got " + maxFrameBytes);
        }
        this.config = config;
        this.nodeId = nodeId;
        this.maxFrameBytes = maxFrameBytes;
        this.options = options;
        this.rejector = new ConnectionRejector(counters, nodeId);
        this.fingerprint = ClusterFingerprint.of(config);
        this.sideDesk = new SideDesk(nodeId, config.peerTls() != null, clusterHosts(config));
        sideDesk.resolveWith(() -> clusterHosts(this.config));
    }

    /** The addresses the cluster file's hosts resolve to here (names that do not resolve are left out). */
    private static Set<java.net.InetAddress> clusterHosts(ClusterConfig config) {
        Set<java.net.InetAddress> hosts = new java.util.HashSet<>();
        for (ClusterConfig.Node n : config.nodes().values()) {
            try {
                hosts.addAll(java.util.Arrays.asList(java.net.InetAddress.getAllByName(n.host())));
            } catch (java.net.UnknownHostException e) {
                // a node whose name does not resolve here cannot connect from it either
            }
        }
        return hosts;
    }

    /**
     * With TLS host name verification (ADR 065): a peer's certificate must name the host the cluster file
     * gives the node id it claims; a refusal counts as a failed handshake. Null otherwise.
     */
    private HandshakeAcceptor.IdentityCheck identityCheck() {
        io.eyrie.multicast.PeerTls tls = config.peerTls();
        if (tls == null || !tls.verifiesHostnames()) {
            return null;
        }
        return (channel, claimed) -> {
            io.netty.handler.ssl.SslHandler handler = channel.pipeline().get(io.netty.handler.ssl.SslHandler.class);
            String host = config.node(claimed).host();
            String mismatch = handler == null ? "the connection is not TLS"
                    : tls.hostMismatch(handler.engine().getSession(), host);
            if (mismatch == null) {
                return null;
            }
            counters.tlsHandshakeFailed();
            return "the certificate of the peer claiming node " + claimed + " (at " + host
                    + " in the cluster file) does not name that host: " + mismatch
                    + " (ssl.quorum.hostnameVerification)";
        };
    }

    @Override
    public boolean serveSideRequests(io.eyrie.multicast.SideChannel.Server server) {
        sideDesk.serveWith(server);
        return true;
    }

    /** Side requests answered and refused (ADR 063). */
    public SideDesk sideDesk() {
        return sideDesk;
    }

    /** The event loops, made on first need (the protocol's loop is asked for before start). */
    private void ensureGroup() {
        if (group == null) {
            flavor = SocketFlavor.choose(options.preferNative());
            group = flavor.newGroup(options.ioThreads(), new DefaultThreadFactory("eyrie-transport-" + nodeId, true));
            EventLoop first = group.next();
            protocolLoop = new Loop() {
                @Override
                public boolean inLoop() {
                    return first.inEventLoop();
                }

                @Override
                public void execute(Runnable task) {
                    first.execute(task);
                }

                @Override
                public java.util.concurrent.Future<?> schedule(Runnable task, long delayMillis) {
                    return first.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
                }
            };
        }
    }

    /**
     * The first of the transport's event loops. With one I/O thread every connection is on it; with
     * more, messages read on the others are handed to it.
     */
    @Override
    public synchronized Loop protocolLoop() {
        if (closed) {
            throw new IllegalStateException("transport of node " + nodeId + " is closed");
        }
        ensureGroup();
        return protocolLoop;
    }

    /** TLS handshakes with peers that failed, either direction (ADR 061); 0 without TLS. */
    public long tlsHandshakeFailures() {
        return counters.tlsHandshakeFailures();
    }

    /** TLS handshakes with peers abandoned before a verdict (closed or silent, ADR 094): not counted as failures. */
    public long tlsHandshakesAbandoned() {
        return counters.tlsHandshakesAbandoned();
    }

    @Override
    public synchronized void start(InboundHandler handler) {
        Objects.requireNonNull(handler, "handler");
        if (started) {
            throw new IllegalStateException("transport of node " + nodeId + " already started");
        }
        if (closed) {
            throw new IllegalStateException("transport of node " + nodeId + " is closed");
        }
        started = true;
        ensureGroup();
        if (config.peerTls() != null && config.peerTls().reloadsFiles()) {
            storeWatch = config.peerTls().stores().watch(); // sslQuorumReloadCertFiles (ADR 066)
        }
        sessions = new InboundSessions(nodeId, counters, handler);
        WriteBufferWaterMark waterMark = new WriteBufferWaterMark(options.writeBufferLowBytes(), options.writeBufferHighBytes());

        dialer = new Bootstrap()
                .channel(flavor.channelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, options.connectTimeoutMillis())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark);
        Hello hello = new Hello(nodeId, fingerprint);
        int maxId = config.nodes().keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        Link[] byId = new Link[maxId + 1];
        for (ClusterConfig.Node peer : config.nodes().values()) {
            byId[peer.id()] = peer.id() == nodeId
                    ? new LoopbackLink(nodeId, group.next(), options, counters, sessions)
                    : new PeerLink(nodeId, peer.id(), peer.host(), peer.port(), group.next(),
                    dialer, hello, options, counters, sessions, config.peerTls());
        }
        // Before binding: a handler may answer the very first inbound message.
        links = byId;

        ClusterConfig.Node self = config.node(nodeId);
        ServerBootstrap server = new ServerBootstrap()
                .group(group)
                .channel(flavor.serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // lets the kernel eventually reap a connection whose peer host vanished without a FIN
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        inboundChannels.add(ch);
                        ch.closeFuture().addListener(f -> inboundChannels.remove(ch));
                        if (config.peerTls() != null) {
                            // the peer must present a certificate the cluster's trust store accepts (ADR 061)
                            ch.pipeline().addLast("tls", config.peerTls().acceptingHandler(ch.alloc()));
                            ch.pipeline().addLast("tlsFailures", new TlsFailureCounter(counters, nodeId, "from"));
                        }
                        ch.pipeline().addLast("frameDecoder", new FrameDecoder(maxFrameBytes, rejector));
                        ch.pipeline().addLast("handshake", new HandshakeAcceptor(nodeId, fingerprint,
                                id -> config.nodes().containsKey(id), options.helloTimeoutMillis(), rejector, sessions,
                                sideDesk, identityCheck()).acceptingEarlier(NettyTransport.this::earlierFingerprint));
                    }
                });
        ChannelFuture bound = server.bind(self.host(), self.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly();
            group = null;
            closed = true;
            throw new IllegalStateException("node " + nodeId + " cannot listen on " + self.host() + ":" + self.port()
                    + ": " + bound.cause().getMessage() + " (is another process using that address?)", bound.cause());
        }
        serverChannel = bound.channel();

        io.eyrie.multicast.PeerTls tls = config.peerTls();
        LOG.info("node={} transport listening on {} ({}, {} io threads, max frame {} bytes, {})", nodeId,
                serverChannel.localAddress(), flavor, options.ioThreads(), maxFrameBytes, tls == null ? "plain TCP"
                        : "TLS between nodes, host names " + (tls.verifiesHostnames() ? "verified" : "not verified")
                        + (tls.trustRevocation() == io.eyrie.multicast.TlsStore.Revocation.NONE ? ""
                        : ", revocation checked: " + tls.trustRevocation()));
    }

    private boolean earlierFingerprint(long f) {
        for (long e : earlierFingerprints) {
            if (e == f) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes up a new version of the cluster file in which other nodes may have moved (ADR 102): a peer whose
     * address changed is dialled at its new one from now on (what was queued for its old address is dropped; the
     * protocol sends again what it needs), every link says the new file's hello on its next connection, and hellos
     * made with the versions this node ran with before are still accepted, for nodes that have not read the new
     * one yet. The caller checks that nothing else changed; this node's own address cannot (it listens there).
     *
     * @return the ids of the peers now dialled at another address
     * @throws IllegalArgumentException when the file names other nodes, or moves this one
     */
    @Override
    public synchronized java.util.List<Integer> readdress(ClusterConfig next) {
        ClusterConfig previous = config;
        if (!next.nodes().keySet().equals(previous.nodes().keySet())) {
            throw new IllegalArgumentException("the nodes changed from " + previous.nodes().keySet() + " to "
                    + next.nodes().keySet() + ": adding or removing a node needs every node restarted");
        }
        ClusterConfig.Node self = previous.node(nodeId);
        if (!sameAddress(self, next.node(nodeId))) {
            throw new IllegalArgumentException("node " + nodeId + " itself moves from " + self.host() + ":"
                    + self.port() + " to " + next.node(nodeId).host() + ":" + next.node(nodeId).port()
                    + ": restart it to move it");
        }
        long nextFingerprint = ClusterFingerprint.of(next);
        java.util.List<Integer> moved = new java.util.ArrayList<>();
        for (ClusterConfig.Node n : next.nodes().values()) {
            if (!sameAddress(n, previous.node(n.id()))) {
                moved.add(n.id());
            }
        }
        // the TLS stores (and their watch) stay those the transport started with
        ClusterConfig taken = next.withPeerTls(previous.peerTls());
        if (nextFingerprint != fingerprint) {
            long[] kept = java.util.Arrays.copyOf(earlierFingerprints, earlierFingerprints.length + 1);
            kept[kept.length - 1] = fingerprint;
            if (kept.length > EARLIER_FINGERPRINTS_KEPT) {
                kept = java.util.Arrays.copyOfRange(kept, kept.length - EARLIER_FINGERPRINTS_KEPT, kept.length);
            }
            earlierFingerprints = kept;
            fingerprint = nextFingerprint;
        }
        config = taken;
        sideDesk.clusterHosts(clusterHosts(taken));
        Link[] current = links;
        if (current == null || closed) {
            return moved; // not started: start makes the links from the new file
        }
        Hello hello = new Hello(nodeId, nextFingerprint);
        Link[] byId = current.clone();
        java.util.List<Link> retired = new java.util.ArrayList<>();
        for (ClusterConfig.Node peer : taken.nodes().values()) {
            if (peer.id() == nodeId) {
                continue;
            }
            if (moved.contains(peer.id())) {
                retired.add(byId[peer.id()]);
                byId[peer.id()] = new PeerLink(nodeId, peer.id(), peer.host(), peer.port(), group.next(), dialer, hello,
                        options, counters, sessions, taken.peerTls());
                LOG.info("node={} dials peer={} at {}:{} from now on (the cluster file moved it)", nodeId, peer.id(),
                        peer.host(), peer.port());
            } else if (byId[peer.id()] instanceof PeerLink p) {
                p.hello(hello);
            }
        }
        links = byId;
        retired.forEach(Link::close);
        return moved;
    }

    private static boolean sameAddress(ClusterConfig.Node a, ClusterConfig.Node b) {
        return a.host().equals(b.host()) && a.port() == b.port();
    }

    @Override
    public boolean send(int toNodeId, ByteBuffer message) {
        Link[] byId = links;
        int length = message.remaining();
        if (closed || byId == null || toNodeId < 0 || toNodeId >= byId.length || byId[toNodeId] == null
                || length > maxFrameBytes) {
            counters.frameDropped();
            return false;
        }
        // A plain array: cheap to allocate on any thread, and freed by the GC wherever it ends up.
        byte[] copy = new byte[length];
        message.duplicate().get(copy);
        if (!byId[toNodeId].send(OutboundPayload.of(copy))) {
            counters.frameDropped();
            return false;
        }
        return true;
    }

    @Override
    public boolean sendOwned(int toNodeId, byte[] message) {
        return queue(toNodeId, OutboundPayload.of(message));
    }

    @Override
    public boolean sendOwned(int toNodeId, byte[] head, byte[] tail) {
        return queue(toNodeId, new OutboundPayload(head, tail));
    }

    private boolean queue(int toNodeId, OutboundPayload message) {
        Link[] byId = links;
        if (closed || byId == null || toNodeId < 0 || toNodeId >= byId.length || byId[toNodeId] == null
                || message.length() > maxFrameBytes || !byId[toNodeId].send(message)) {
            counters.frameDropped();
            return false;
        }
        return true;
    }

    @Override
    public boolean peerRefuses(int nodeId) {
        Link[] byId = links;
        return byId != null && nodeId >= 0 && nodeId < byId.length && byId[nodeId] instanceof PeerLink p && p.refused();
    }

    @Override
    public long socketWrites() {
        return counters.flushes();
    }

    @Override
    public TransportStats stats() {
        return counters.snapshot();
    }

    /** Counters beyond {@link #stats()}, such as socket flushes. */
    public TransportCounters counters() {
        return counters;
    }

    /** The port this node listens on (the configured one, or the one the OS chose for port 0). */
    public synchronized int boundPort() {
        if (serverChannel == null) {
            throw new IllegalStateException("transport of node " + nodeId + " is not listening (start it first)");
        }
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** Which socket implementation this transport runs on; known after {@link #start}. */
    public synchronized SocketFlavor flavor() {
        return flavor;
    }

    @Override
    public synchronized void close() {
        closed = true;
        sideDesk.close();
        if (storeWatch != null) {
            storeWatch.shutdownNow();
            storeWatch = null;
        }
        if (group == null) {
            return; // never started, failed to start, or already closed
        }
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly();
        }
        Link[] byId = links;
        for (Link link : byId == null ? new Link[0] : byId) {
            if (link != null) {
                link.close();
            }
        }
        for (Channel ch : inboundChannels) {
            ch.close();
        }
        // No quiet period: nothing new may arrive, and close() should return promptly.
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        group = null;
        LOG.info("node={} transport closed; {}", nodeId, counters.snapshot());
    }
}
