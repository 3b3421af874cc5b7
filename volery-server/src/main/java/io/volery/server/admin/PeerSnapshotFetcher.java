package io.volery.server.admin;

import io.eyrie.core.PeerCheckpoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Fetches the newest snapshot from the other replicas of this node's partition over their client
 * ports (the {@code snap} word, see {@link FourLetterWords}): a side channel that works before this
 * node's rings are up, which is exactly when a replica without a usable snapshot needs one.
 * Takes the newest any peer has; the replica verifies its checksum.
 */
public final class PeerSnapshotFetcher implements PeerCheckpoints {
    private static final Logger log = LoggerFactory.getLogger(PeerSnapshotFetcher.class);
    /** Bounds what a peer can make this node buffer. */
    static final int MAX_SNAPSHOT_BYTES = 1 << 30;

    private final List<InetSocketAddress> peers;
    private final int timeoutMillis;

    public PeerSnapshotFetcher(List<InetSocketAddress> peers, int timeoutMillis) {
        this.peers = List.copyOf(peers);
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public byte[] fetchNewest() {
        byte[] best = null;
        long bestPosition = Long.MIN_VALUE;
        for (InetSocketAddress peer : peers) {
            byte[] file;
            try {
                file = fetch(peer);
            } catch (IOException e) {
                log.info("no snapshot from peer {}: {}", peer, e.toString());
                continue;
            }
            if (file == null) {
                log.info("peer {} has no snapshot", peer);
                continue;
            }
            long position = file.length >= 16 ? ByteBuffer.wrap(file, 8, 8).getLong() : Long.MIN_VALUE;
            if (best == null || position > bestPosition) {
                best = file;
                bestPosition = position;
            }
        }
        return best;
    }

    /** One peer's snapshot file, or null when it has none. */
    private byte[] fetch(InetSocketAddress peer) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(peer, timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            s.getOutputStream().write(FourLetterWords.SNAPSHOT_WORD.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(4);
            if (head.length < 4) {
                throw new IOException("peer closed the connection without an answer");
            }
            int length = ByteBuffer.wrap(head).getInt();
            if (length == 0) {
                return null;
            }
            if (length < 0 || length > MAX_SNAPSHOT_BYTES) {
                throw new IOException("peer announced a snapshot of " + length + " bytes");
            }
            byte[] file = in.readNBytes(length);
            if (file.length != length) {
                throw new IOException("peer sent " + file.length + " of " + length + " snapshot bytes");
            }
            return file;
        }
    }
}
