package io.eyrie.multicast.internal.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling for the multicast benchmark: request/response frames of S bytes over plain Netty on
 * loopback, with W requests outstanding, in the same wire format (FrameEncoder/FrameDecoder) and with
 * the same socket options as the transport, but no protocol above. Prints one line: round trips per
 * second, payload MB/s in each direction, p50/p99 round-trip latency.
 *
 * <pre>
 * one JVM, two event loop threads:  RawEchoBench [--size 64] [--window 64] [--seconds 10] [--warmup 2] [--nio]
 * two processes:                    RawEchoBench --server --port 7100
 *                                   RawEchoBench --client --host 127.0.0.1 --port 7100 --size 64 --window 64
 * </pre>
 * Not a test: run it by hand (see the transport notes for the command line).
 */
public final class RawEchoBench {

    private static final int MAX_FRAME = 16 * 1024 * 1024;

    private RawEchoBench() {
    }

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        SocketFlavor flavor = SocketFlavor.choose(!a.nio);
        if (a.server) {
            EventLoopGroup group = flavor.newGroup(1, new DefaultThreadFactory("echo-server"));
            Channel server = startServer(flavor, group, "127.0.0.1".equals(a.host) ? "0.0.0.0" : a.host, a.port);
            System.out.println("RawEchoBench server listening on " + server.localAddress() + " (" + flavor + ")");
            server.closeFuture().sync();
            return;
        }
        EventLoopGroup serverGroup = null;
        int port = a.port;
        if (!a.client) {
            serverGroup = flavor.newGroup(1, new DefaultThreadFactory("echo-server", true));
            Channel server = startServer(flavor, serverGroup, "127.0.0.1", 0);
            port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
        }
        EventLoopGroup clientGroup = flavor.newGroup(1, new DefaultThreadFactory("echo-client", true));
        try {
            Client client = new Client(a.size, a.window);
            new Bootstrap().group(clientGroup).channel(flavor.channelClass())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new FrameDecoder(MAX_FRAME, new ConnectionRejector(new TransportCounters(), 0)),
                                    FrameEncoder.INSTANCE, client);
                        }
                    }).connect(a.host, port).sync();
            Thread.sleep(a.warmupSeconds * 1000L);
            client.reset();
            long begin = System.nanoTime();
            Thread.sleep(a.seconds * 1000L);
            Result r = client.snapshot(System.nanoTime() - begin);
            client.stop.countDown();
            System.out.printf("RawEchoBench %s size=%dB window=%d: %.0f msgs/s, %.1f MB/s per direction, "
                            + "p50=%d us, p99=%d us (%d round trips in %.1f s)%n",
                    flavor, a.size, a.window, r.perSecond, r.perSecond * a.size / 1e6, r.p50Micros, r.p99Micros,
                    r.count, r.nanos / 1e9);
        } finally {
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            if (serverGroup != null) {
                serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }

    private static Channel startServer(SocketFlavor flavor, EventLoopGroup group, String host, int port)
            throws InterruptedException {
        return new ServerBootstrap().group(group).channel(flavor.serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FrameDecoder(MAX_FRAME, new ConnectionRejector(new TransportCounters(), 0)),
                                FrameEncoder.INSTANCE, new Echo());
                    }
                }).bind(host, port).sync().channel();
    }

    /** Writes every payload back; flushes once per read batch, like the transport's coalescing. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    private record Result(long count, long nanos, double perSecond, long p50Micros, long p99Micros) {
    }

    /** Keeps {@code window} requests in flight; each carries its send time in its first 8 bytes. */
    private static final class Client extends ChannelInboundHandlerAdapter {
        private final int size;
        private final int window;
        private final CountDownLatch stop = new CountDownLatch(1);
        // 1 us buckets up to 100 ms; slower round trips land in the last bucket.
        private final long[] micros = new long[100_001];
        private long count;
        private volatile boolean resetRequested;
        private volatile Result snapshot;
        private volatile long snapshotNanos = -1;

        Client(int size, int window) {
            this.size = Math.max(8, size);
            this.window = window;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            for (int i = 0; i < window; i++) {
                sendRequest(ctx);
            }
            ctx.flush();
        }

        private void sendRequest(ChannelHandlerContext ctx) {
            ByteBuf b = ctx.alloc().buffer(size);
            b.writeLong(System.nanoTime());
            b.writerIndex(size);
            ctx.write(b, ctx.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            long rtt = System.nanoTime() - b.getLong(b.readerIndex());
            b.release();
            if (resetRequested) {
                java.util.Arrays.fill(micros, 0);
                count = 0;
                resetRequested = false;
            }
            micros[(int) Math.min(rtt / 1000, micros.length - 1)]++;
            count++;
            if (snapshotNanos >= 0 && snapshot == null) {
                snapshot = summarize(snapshotNanos);
            }
            if (stop.getCount() > 0) {
                sendRequest(ctx);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        void reset() {
            resetRequested = true;
        }

        /** Asks the event loop for a summary (it owns the histogram) and waits for it. */
        Result snapshot(long nanos) throws InterruptedException {
            snapshotNanos = nanos;
            while (snapshot == null) {
                Thread.sleep(1);
            }
            return snapshot;
        }

        private Result summarize(long nanos) {
            long p50 = -1;
            long p99 = -1;
            long seen = 0;
            for (int us = 0; us < micros.length; us++) {
                seen += micros[us];
                if (p50 < 0 && seen >= count * 0.50) {
                    p50 = us;
                }
                if (p99 < 0 && seen >= count * 0.99) {
                    p99 = us;
                    break;
                }
            }
            return new Result(count, nanos, count / (nanos / 1e9), p50, p99);
        }
    }

    private static final class Args {
        int size = 64;
        int window = 64;
        int seconds = 10;
        int warmupSeconds = 2;
        boolean nio;
        boolean server;
        boolean client;
        String host = "127.0.0.1";
        int port = 7100;

        static Args parse(String[] argv) {
            Args a = new Args();
            for (int i = 0; i < argv.length; i++) {
                switch (argv[i]) {
                    case "--size" -> a.size = Integer.parseInt(argv[++i]);
                    case "--window" -> a.window = Integer.parseInt(argv[++i]);
                    case "--seconds" -> a.seconds = Integer.parseInt(argv[++i]);
                    case "--warmup" -> a.warmupSeconds = Integer.parseInt(argv[++i]);
                    case "--nio" -> a.nio = true;
                    case "--server" -> a.server = true;
                    case "--client" -> a.client = true;
                    case "--host" -> a.host = argv[++i];
                    case "--port" -> a.port = Integer.parseInt(argv[++i]);
                    default -> throw new IllegalArgumentException("unknown argument " + argv[i]
                            + "; usage: [--server|--client] [--host H] [--port P] [--size BYTES] [--window W] "
                            + "[--seconds T] [--warmup T] [--nio]");
                }
            }
            if (a.size < 8 || a.size > MAX_FRAME || a.window < 1) {
                throw new IllegalArgumentException("--size must be in [8, " + MAX_FRAME + "] (8 bytes hold the send time) "
                        + "and --window at least 1");
            }
            return a;
        }
    }
}
