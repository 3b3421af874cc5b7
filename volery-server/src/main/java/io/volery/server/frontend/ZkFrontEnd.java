package io.volery.server.frontend;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.function.Supplier;

/**
 * The client port: accepts ZooKeeper clients and gives each connection a frame decoder and a
 * {@link ZkConnectionHandler} in front of the shared {@link ZkService}.
 */
public final class ZkFrontEnd implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ZkFrontEnd.class);

    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel server;
    private final FrontEndStats stats = new FrontEndStats();
    private final ReadThrottle readThrottle = new ReadThrottle();
    private final ConnectionGate gate;
    private final ConnectionGate secureGate;
    private final ClientTls tls;
    private final java.util.concurrent.ScheduledExecutorService storeWatch;
    /** The TLS-only client port, or null. */
    private final Channel secureServer;

    /**
     * @param maxFrameBytes jute.maxbuffer: larger frames close the connection
     */
    public ZkFrontEnd(InetSocketAddress bind, ZkService service, int maxFrameBytes, int ioThreads) {
        this(bind, service, maxFrameBytes, ioThreads, null);
    }

    /**
     * @param preface makes a handler put before the frame decoder of each connection (the
     *                four-letter-word detector), or null for none
     */
    public ZkFrontEnd(InetSocketAddress bind, ZkService service, int maxFrameBytes, int ioThreads,
                      Supplier<? extends ChannelHandler> preface) {
        this(bind, service, maxFrameBytes, ioThreads, preface, null);
    }

    /** @param sasl the users clients may authenticate as by SASL DIGEST-MD5, or null for none */
    public ZkFrontEnd(InetSocketAddress bind, ZkService service, int maxFrameBytes, int ioThreads,
                      Supplier<? extends ChannelHandler> preface, SaslAuthentication sasl) {
        this(bind, service, maxFrameBytes, ioThreads, preface, sasl, AuthEnforcement.OFF);
    }

    /**
     * @param sasl        the users clients may authenticate as by SASL DIGEST-MD5, or null for none
     * @param enforcement the schemes a connection must authenticate with before its requests are served
     */
    public ZkFrontEnd(InetSocketAddress bind, ZkService service, int maxFrameBytes, int ioThreads,
                      Supplier<? extends ChannelHandler> preface, SaslAuthentication sasl, AuthEnforcement enforcement) {
        this(bind, service, maxFrameBytes, ioThreads, preface, sasl, enforcement, ConnectionLimits.NONE);
    }

    /**
     * @param limits ZooKeeper's maxClientCnxns and maxCnxns: a connection past them is closed as accepted
     */
    public ZkFrontEnd(InetSocketAddress bind, ZkService service, int maxFrameBytes, int ioThreads,
                      Supplier<? extends ChannelHandler> preface, SaslAuthentication sasl, AuthEnforcement enforcement,
                      ConnectionLimits limits) {
        this(bind, service, maxFrameBytes, ioThreads, preface, sasl, enforcement, limits, null, null);
    }

    /**
     * @param tls        TLS for the secure client port (and, with port unification, the plain one), or null
     * @param secureBind where the TLS-only client port listens (ZooKeeper's secureClientPort), or null for
     *                   none; needs {@code tls}
     */
    public ZkFrontEnd(InetSocketAddress bind, ZkService service, int maxFrameBytes, int ioThreads,
                      Supplier<? extends ChannelHandler> preface, SaslAuthentication sasl, AuthEnforcement enforcement,
                      ConnectionLimits limits, ClientTls tls, InetSocketAddress secureBind) {
        if (secureBind != null && tls == null) {
            throw new IllegalArgumentException("a secure client port needs TLS settings (ssl.keyStore.location)");
        }
        this.gate = new ConnectionGate(limits);
        // as ZooKeeper's secure port, a factory of its own: its connections count apart from the plain port's
        this.secureGate = new ConnectionGate(limits);
        this.tls = tls;
        boolean epoll = Epoll.isAvailable();
        boss = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
        workers = epoll ? new EpollEventLoopGroup(ioThreads) : new NioEventLoopGroup(ioThreads);
        Channel plain = null;
        Channel secure = null;
        InetSocketAddress binding = bind;
        try {
            plain = listen(bind, epoll, tls != null && tls.portUnification() ? Security.DETECT : Security.PLAIN, gate,
                    service, maxFrameBytes, preface, sasl, enforcement);
            if (secureBind != null) {
                binding = secureBind;
                secure = listen(secureBind, epoll, Security.TLS, secureGate, service, maxFrameBytes, preface, sasl, enforcement);
            }
        } catch (RuntimeException e) {
            if (plain != null) {
                plain.close().syncUninterruptibly();
            }
            boss.shutdownGracefully();
            workers.shutdownGracefully();
            throw new IllegalStateException("cannot listen for clients on " + binding + ": " + e.getMessage(), e);
        }
        this.server = plain;
        // client.certReload (ADR 066): new connections take changed store files up
        this.storeWatch = tls != null && tls.reloadsFiles() ? tls.stores().watch() : null;
        this.secureServer = secure;
        log.info("serving ZooKeeper clients on {} ({}{}){}", server.localAddress(), epoll ? "epoll" : "nio",
                tls != null && tls.portUnification() ? ", TLS or plaintext" : "",
                secure == null ? "" : " and over TLS on " + secure.localAddress() + " (client certificates: "
                        + tls.auth().name().toLowerCase(java.util.Locale.ROOT) + ")");
    }

    /** What a listener's connections speak. */
    private enum Security { PLAIN, TLS, DETECT }

    private Channel listen(InetSocketAddress at, boolean epoll, Security security, ConnectionGate limitGate,
                           ZkService service, int maxFrameBytes,
                           Supplier<? extends ChannelHandler> preface, SaslAuthentication sasl, AuthEnforcement enforcement) {
        return new ServerBootstrap()
                .group(boss, workers)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast("limits", limitGate.handler());
                        switch (security) {
                            case TLS -> ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                            case DETECT -> ch.pipeline().addLast("tls", new TlsDetector(tls));
                            case PLAIN -> {
                            }
                        }
                        if (preface != null) {
                            ch.pipeline().addLast("preface", preface.get());
                        }
                        ch.pipeline()
                                .addLast("frames", new ZkFrameDecoder(maxFrameBytes))
                                .addLast("session", new ZkConnectionHandler(service, stats, readThrottle, sasl, enforcement,
                                        security == Security.PLAIN ? null : tls));
                    }
                })
                .bind(at).syncUninterruptibly().channel();
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Where the TLS-only client port listens, or null when there is none. */
    public InetSocketAddress secureAddress() {
        return secureServer == null ? null : (InetSocketAddress) secureServer.localAddress();
    }

    /** Pauses reading from every client connection while the service cannot take more requests. */
    public ReadThrottle readThrottle() {
        return readThrottle;
    }

    /**
     * The connection limits and how many connections they refused: the client port's, then the TLS-only port's,
     * which counts its connections apart, as ZooKeeper's secure port does.
     */
    public List<ConnectionGate> connectionGates() {
        return List.of(gate, secureGate);
    }

    public FrontEndStats stats() {
        return stats;
    }

    @Override
    public void close() {
        if (storeWatch != null) {
            storeWatch.shutdownNow();
        }
        server.close().syncUninterruptibly();
        if (secureServer != null) {
            secureServer.close().syncUninterruptibly();
        }
        boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
