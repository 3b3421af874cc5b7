package io.eyrie.core.internal;

import io.eyrie.multicast.DirectChannel;
import io.eyrie.multicast.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The requesting side of a state transfer: gets a state image at or after a position from a peer
 * replica of the same partition. Every peer is asked; the first that offers one (a peer that has
 * not executed that far stays silent) is then pulled from, one chunk at a time, because an image
 * can be far larger than a transport frame and a direct message can be lost. A lost chunk is asked
 * again; a peer that stops answering, or bytes that do not match the offered SHA-256, restart the
 * transfer with all peers. Asks are repeated with a doubling pause until some peer offers.
 *
 * <p>{@link #fetch} runs on the replica's executor; {@link #receive} on the direct-channel thread.
 */
final class ImageFetch {

    private static final Logger log = LoggerFactory.getLogger(ImageFetch.class);

    /** Bytes per chunk: well inside the smallest transport frame (batch.maxBytes + 64 KiB). */
    static final int CHUNK_BYTES = 48 * 1024;
    /** Images larger than this are refused (they could not have been encoded by KryoCodec either). */
    private static final int IMAGE_BYTES_MAX = 64 * 1024 * 1024;
    private static final int CHUNK_TRIES = 5;
    private static final long PAUSE_MAX_MILLIS = 5_000;

    /** A verified image and the peer it came from. */
    record Fetched(long position, byte[] image, int peer) {
    }

    private final DirectChannel channel;
    private final int nodeId;
    private final int[] peers;
    private final long timeoutMillis;

    // guarded by this
    private long requestId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    private long minPosition;
    private Wire.ImageOffer offer;
    private int offeredBy = -1;
    private Wire.Chunk chunk;
    private boolean closed;

    /**
     * @param peers         the other replicas of this replica's partition
     * @param timeoutMillis how long to wait for an offer (doubling on each silent round) and for a chunk
     */
    ImageFetch(DirectChannel channel, int nodeId, int[] peers, long timeoutMillis) {
        this.channel = channel;
        this.nodeId = nodeId;
        this.peers = peers.clone();
        this.timeoutMillis = timeoutMillis;
    }

    /** Blocks until a peer delivered an image of a position {@code >= minPosition} whose checksum matches. */
    Fetched fetch(long minPosition) throws InterruptedException {
        long pause = timeoutMillis;
        while (true) {
            long id = begin(minPosition);
            byte[] request = Wire.encode(new Wire.ImageRequest(id, minPosition));
            for (int peer : peers) {
                channel.sendDirect(peer, request);
            }
            Wire.ImageOffer o = awaitOffer(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause));
            if (o == null) {
                log.warn("node={} no peer of its partition offers a state image at or after position={} yet; "
                        + "asking again (waited {} ms)", nodeId, Position.toString(minPosition), pause);
                pause = Math.min(pause * 2, PAUSE_MAX_MILLIS);
                continue;
            }
            int peer = offeredBy();
            if (o.length() < 0 || o.length() > IMAGE_BYTES_MAX) {
                log.warn("node={} ignores an offer of a {}-byte image from node {}", nodeId, o.length(), peer);
                continue;
            }
            log.info("node={} fetches a state image of position={} ({} bytes) from node {}", nodeId,
                    Position.toString(o.position()), o.length(), peer);
            byte[] image = pull(id, o, peer);
            if (image == null) {
                log.warn("node={} node {} stopped sending the image of position={}; asking the peers again", nodeId,
                        peer, Position.toString(o.position()));
                continue;
            }
            if (!Arrays.equals(sha256(image), o.sha256())) {
                log.warn("node={} the image of position={} from node {} does not match its SHA-256; asking again",
                        nodeId, Position.toString(o.position()), peer);
                continue;
            }
            return new Fetched(o.position(), image, peer);
        }
    }

    private byte[] pull(long id, Wire.ImageOffer o, int peer) throws InterruptedException {
        byte[] image = new byte[o.length()];
        int offset = 0;
        while (offset < image.length) {
            byte[] ask = Wire.encode(new Wire.ChunkRequest(id, o.position(), offset));
            Wire.Chunk c = null;
            for (int i = 0; i < CHUNK_TRIES && c == null; i++) {
                channel.sendDirect(peer, ask);
                c = awaitChunk(offset, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
            }
            if (c == null || c.bytes().length == 0 || c.bytes().length > image.length - offset) {
                return null;
            }
            System.arraycopy(c.bytes(), 0, image, offset, c.bytes().length);
            offset += c.bytes().length;
        }
        return image;
    }

    /** An offer or a chunk from a peer (direct-channel thread); anything not for the current request is ignored. */
    synchronized void receive(int from, Object message) {
        if (message instanceof Wire.ImageOffer o) {
            if (o.requestId() == requestId && offer == null && o.position() >= minPosition && isPeer(from)) {
                offer = o;
                offeredBy = from;
                notifyAll();
            }
        } else if (message instanceof Wire.Chunk c) {
            if (c.requestId() == requestId && offer != null && from == offeredBy && c.position() == offer.position()) {
                chunk = c;
                notifyAll();
            }
        }
    }

    synchronized void close() {
        closed = true;
        notifyAll();
    }

    private synchronized long begin(long min) {
        requestId++;
        minPosition = min;
        offer = null;
        offeredBy = -1;
        chunk = null;
        return requestId;
    }

    private synchronized int offeredBy() {
        return offeredBy;
    }

    private synchronized Wire.ImageOffer awaitOffer(long deadlineNanos) throws InterruptedException {
        while (offer == null) {
            waitUntil(deadlineNanos);
            if (System.nanoTime() - deadlineNanos >= 0) {
                return offer;
            }
        }
        return offer;
    }

    private synchronized Wire.Chunk awaitChunk(int offset, long deadlineNanos) throws InterruptedException {
        while (chunk == null || chunk.offset() != offset) {
            waitUntil(deadlineNanos);
            if (System.nanoTime() - deadlineNanos >= 0) {
                break;
            }
        }
        return chunk != null && chunk.offset() == offset ? chunk : null;
    }

    private void waitUntil(long deadlineNanos) throws InterruptedException {
        if (closed) {
            throw new InterruptedException("replica closed");
        }
        long nanos = deadlineNanos - System.nanoTime();
        if (nanos > 0) {
            wait(nanos / 1_000_000, (int) (nanos % 1_000_000));
        }
        if (closed) {
            throw new InterruptedException("replica closed");
        }
    }

    private boolean isPeer(int node) {
        for (int p : peers) {
            if (p == node) {
                return true;
            }
        }
        return false;
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is part of every Java platform", e);
        }
    }
}
