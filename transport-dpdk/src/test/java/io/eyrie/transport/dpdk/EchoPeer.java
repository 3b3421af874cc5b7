package io.eyrie.transport.dpdk;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Transport;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * A child JVM for the two-process tests: {@code echo} sends back every message it gets;
 * {@code send N} sends N messages of growing sizes one at a time, resending until the echo of each
 * arrives, and prints one line per echo: {@code echo INDEX SIZE SAME|DIFFERENT}, then {@code done}.
 *
 * <pre>EchoPeer CLUSTER_FILE DPDK_FILE NODE_ID PEER_ID echo|send [N]</pre>
 */
public final class EchoPeer {

    public static void main(String[] args) throws Exception {
        ClusterConfig config = ClusterConfig.load(Path.of(args[0]));
        DpdkSettings settings = DpdkSettings.load(Path.of(args[1]));
        int self = Integer.parseInt(args[2]);
        int peer = Integer.parseInt(args[3]);
        ArrayBlockingQueue<byte[]> inbox = new ArrayBlockingQueue<>(1024);
        DpdkTransport t = new DpdkTransport(config, self, settings, 1 << 20);
        t.start(new Transport.InboundHandler() {
            @Override
            public void onMessage(int from, ByteBuffer message) {
                if (args[4].equals("echo")) {
                    t.send(from, message);
                } else {
                    byte[] copy = new byte[message.remaining()];
                    message.get(copy);
                    inbox.offer(copy);
                }
            }
        });
        System.out.println("started");
        if (args[4].equals("echo")) {
            Thread.sleep(Long.MAX_VALUE);
        }
        int n = Integer.parseInt(args[5]);
        for (int i = 0; i < n; i++) {
            byte[] m = message(i);
            byte[] got = null;
            for (int attempt = 0; attempt < 100 && got == null; attempt++) {
                t.send(peer, ByteBuffer.wrap(m));
                got = awaitEcho(inbox, i);
            }
            if (got == null) {
                System.out.println("lost " + i);
                break;
            }
            System.out.println("echo " + i + " " + got.length + " " + (crc(got) == crc(m) && got.length == m.length
                    ? "SAME" : "DIFFERENT"));
        }
        System.out.println("stats " + t.stats() + " " + t.deviceStats());
        System.out.println("done");
        System.out.flush();
        t.close();
        System.exit(0);
    }

    private static byte[] awaitEcho(ArrayBlockingQueue<byte[]> inbox, int index) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (true) {
            byte[] m = inbox.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (m == null) {
                return null;
            }
            if (ByteBuffer.wrap(m).getInt() == index) {
                return m; // older echoes of resent messages are skipped
            }
        }
    }

    /** Message {@code i}: its index then a pattern; sizes from 4 bytes to well above the MTU. */
    static byte[] message(int i) {
        int[] sizes = {4, 100, 1400, 1500, 3000, 9000, 65_536, 300_000};
        byte[] m = new byte[sizes[i % sizes.length] + i];
        ByteBuffer.wrap(m).putInt(i);
        for (int k = 4; k < m.length; k++) {
            m[k] = (byte) (k * 31 + i);
        }
        return m;
    }

    private static long crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }
}
