package io.eyrie.multicast.internal.transport;

/**
 * Tuning of a {@link NettyTransport}; {@link #defaults()} suits a cluster on a LAN.
 *
 * @param ioThreads             event loop threads (accepting, reading, writing)
 * @param outboundQueueBytes    per peer: bytes queued by {@code send} and not yet handed to the socket
 * @param writeBufferLowBytes   per connection: the socket's write buffer is writable again below this
 * @param writeBufferHighBytes  per connection: above this the connection is not writable and sends queue
 *                              up in the outbound queue, then drop
 * @param reconnectMinMillis    first delay before dialling a peer again after a failure
 * @param reconnectMaxMillis    cap of the doubling reconnect delay
 * @param connectTimeoutMillis  how long one dial may take
 * @param helloTimeoutMillis    how long an accepted connection may stay silent before its hello
 * @param preferNative          use epoll when {@code Epoll.isAvailable()}, NIO otherwise
 */
public record TransportOptions(int ioThreads, long outboundQueueBytes, int writeBufferLowBytes,
                               int writeBufferHighBytes, long reconnectMinMillis, long reconnectMaxMillis,
                               int connectTimeoutMillis, long helloTimeoutMillis, boolean preferNative) {

    public TransportOptions {
        if (ioThreads < 1) {
            throw new IllegalArgumentException("ioThreads must be at least 1, got " + ioThreads);
        }
        if (outboundQueueBytes < 1 || writeBufferLowBytes < 1 || writeBufferHighBytes < writeBufferLowBytes) {
            throw new IllegalArgumentException("need outboundQueueBytes >= 1 and 1 <= writeBufferLowBytes <= "
                    + "writeBufferHighBytes, got " + outboundQueueBytes + ", " + writeBufferLowBytes + ", " + writeBufferHighBytes);
        }
        if (reconnectMinMillis < 1 || reconnectMaxMillis < reconnectMinMillis) {
            throw new IllegalArgumentException("need 1 <= reconnectMinMillis <= reconnectMaxMillis, got "
                    + reconnectMinMillis + ", " + reconnectMaxMillis);
        }
        if (connectTimeoutMillis < 1 || helloTimeoutMillis < 1) {
            throw new IllegalArgumentException("connectTimeoutMillis and helloTimeoutMillis must be positive");
        }
    }

    public static TransportOptions defaults() {
        return new TransportOptions(Math.min(2, Runtime.getRuntime().availableProcessors()), 8L << 20, 512 << 10,
                2 << 20, 20, 1000, 2000, 5000, true);
    }

    public TransportOptions withPreferNative(boolean value) {
        return new TransportOptions(ioThreads, outboundQueueBytes, writeBufferLowBytes, writeBufferHighBytes,
                reconnectMinMillis, reconnectMaxMillis, connectTimeoutMillis, helloTimeoutMillis, value);
    }

    public TransportOptions withOutboundQueueBytes(long value) {
        return new TransportOptions(ioThreads, value, writeBufferLowBytes, writeBufferHighBytes,
                reconnectMinMillis, reconnectMaxMillis, connectTimeoutMillis, helloTimeoutMillis, preferNative);
    }

    public TransportOptions withWriteBuffer(int lowBytes, int highBytes) {
        return new TransportOptions(ioThreads, outboundQueueBytes, lowBytes, highBytes,
                reconnectMinMillis, reconnectMaxMillis, connectTimeoutMillis, helloTimeoutMillis, preferNative);
    }

    public TransportOptions withReconnectMillis(long min, long max) {
        return new TransportOptions(ioThreads, outboundQueueBytes, writeBufferLowBytes, writeBufferHighBytes,
                min, max, connectTimeoutMillis, helloTimeoutMillis, preferNative);
    }

    public TransportOptions withHelloTimeoutMillis(long value) {
        return new TransportOptions(ioThreads, outboundQueueBytes, writeBufferLowBytes, writeBufferHighBytes,
                reconnectMinMillis, reconnectMaxMillis, connectTimeoutMillis, value, preferNative);
    }
}
