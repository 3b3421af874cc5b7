/**
 * The Netty TCP implementation of the {@link io.eyrie.multicast.Transport} SPI.
 *
 * <p>Wire format: every frame is {@code magic (4) | payload length (4) | CRC32C of payload (4) |
 * payload}, big-endian. Each TCP connection carries one direction only: the dialling node sends a
 * {@link io.eyrie.multicast.internal.transport.Hello} as its first frame, then messages; the
 * accepting node only reads. A node therefore holds one outbound connection per peer it sends to
 * and one inbound connection per peer that sends to it. Any bad input (wrong magic, a length above
 * the limit, a checksum mismatch, data before a valid hello) closes that one connection.
 *
 * <p>Pipelines, in order: accepted connections {@code FrameDecoder -> HandshakeAcceptor}, which
 * replaces itself by an {@code InboundDispatcher} once the hello is valid; dialled connections
 * {@code FrameEncoder -> PeerLink.LinkHandler}. {@code send} copies the message into the peer's
 * bounded {@code OutboundQueue}; the peer's event loop drains it in {@link
 * io.eyrie.multicast.internal.transport.FrameBatch}es and flushes once per pass.
 */
package io.eyrie.multicast.internal.transport;
