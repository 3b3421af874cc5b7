package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Transport;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One NettyTransport streams N messages of S bytes to another on loopback, as fast as send() accepts
 * them (a refused send is retried after a short pause, as a protocol would retransmit). Prints
 * messages per second, and how many flushes and refused sends that took. Compare with RawEchoBench.
 *
 * <pre>OneWayTransportBench [--messages 3000000] [--size 64]</pre>
 * Not a test: run it by hand.
 */
public final class OneWayTransportBench {

    private OneWayTransportBench() {
    }

    public static void main(String[] args) throws Exception {
        int messages = 3_000_000;
        int size = 64;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--messages" -> messages = Integer.parseInt(args[++i]);
                case "--size" -> size = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("usage: [--messages N] [--size BYTES]");
            }
        }
        ClusterConfig config = TestCluster.config(TestCluster.freePorts(2));
        AtomicLong received = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        final int total = messages;
        try (NettyTransport sender = new NettyTransport(config, 1, Math.max(size, 1024));
             NettyTransport receiver = new NettyTransport(config, 2, Math.max(size, 1024))) {
            sender.start(new Inbox());
            receiver.start(new Transport.InboundHandler() {
                @Override
                public void onMessage(int fromNodeId, ByteBuffer message) {
                    if (received.incrementAndGet() == total) {
                        done.countDown();
                    }
                }
            });
            ByteBuffer message = ByteBuffer.allocate(size);
            long refused = 0;
            long begin = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                while (!sender.send(2, message)) {
                    refused++;
                    LockSupport.parkNanos(100_000);
                }
            }
            done.await();
            double seconds = (System.nanoTime() - begin) / 1e9;
            System.out.printf("OneWayTransportBench %s size=%dB: %.0f msgs/s, %.1f MB/s (%d messages in %.2f s, "
                            + "%d flushes, %d refused sends retried)%n", sender.flavor(), size, messages / seconds,
                    messages / seconds * size / 1e6, messages, seconds, sender.counters().flushes(), refused);
        }
    }
}
