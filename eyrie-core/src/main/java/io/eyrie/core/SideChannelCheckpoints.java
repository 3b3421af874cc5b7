package io.eyrie.core;

import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.SideChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Fetches the newest checkpoint from the other replicas of this node's partition over their ring ports
 * (a {@link SideChannel} request, ADR 063): it works before this node's rings are up, which is exactly
 * when a replica without a usable checkpoint needs one, and it takes the ring port's guard, so with
 * peer TLS the checkpoint crosses encrypted and only to a holder of the cluster's certificate.
 * Takes the newest any peer has; the replica verifies its checksum. A {@link StateMachine} with
 * checkpointing on a {@code MulticastNode} answers these requests and uses this class unless given
 * another {@link PeerCheckpoints} (ADR 104).
 */
public final class SideChannelCheckpoints implements PeerCheckpoints {
    private static final Logger log = LoggerFactory.getLogger(SideChannelCheckpoints.class);
    /** The side request a replica answers with its newest checkpoint file. */
    public static final int SNAPSHOT_KIND = 1;
    /** Bounds what a peer can make this node buffer. */
    static final int MAX_SNAPSHOT_BYTES = 1 << 30;

    /** The cluster file's current version: peers are asked at the addresses it gives (ADR 102). */
    private final java.util.function.Supplier<ClusterConfig> config;
    private final int selfId;
    private final List<Integer> peers;
    private final int timeoutMillis;

    /**
     * @param config the cluster file's current version, read at each fetch
     * @param peers  the node ids of the other replicas of this node's partition
     */
    public SideChannelCheckpoints(java.util.function.Supplier<ClusterConfig> config, int selfId, List<Integer> peers,
                               int timeoutMillis) {
        this.config = config;
        this.selfId = selfId;
        this.peers = List.copyOf(peers);
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * How long refusals are asked again. A peer refuses a node whose address it does not know yet: a replacement at
     * a name whose new address the peer's name cache still hides (ADR 102), or a busy peer. A peer that cannot be
     * reached or has no checkpoint is not asked again (a new cluster's nodes start together, none with one).
     */
    static final long REFUSALS_RETRIED_MILLIS = 60_000;
    static final long RETRY_PAUSE_MILLIS = 2_000;

    @Override
    public byte[] fetchNewest() {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(REFUSALS_RETRIED_MILLIS);
        List<Integer> asking = peers;
        byte[] best = null;
        long bestPosition = Long.MIN_VALUE;
        while (true) {
            List<Integer> refusedBy = new java.util.ArrayList<>();
            for (int peer : asking) {
                byte[] file;
                try {
                    file = SideChannel.ask(config.get(), selfId, peer, SNAPSHOT_KIND, timeoutMillis, MAX_SNAPSHOT_BYTES);
                } catch (SideChannel.Refused e) {
                    log.info("no checkpoint from node {}: {}", peer, e.toString());
                    refusedBy.add(peer);
                    continue;
                } catch (IOException e) {
                    log.info("no checkpoint from node {}: {}", peer, e.toString());
                    continue;
                }
                if (file == null) {
                    log.info("node {} has no checkpoint", peer);
                    continue;
                }
                long position = file.length >= 16 ? ByteBuffer.wrap(file, 8, 8).getLong() : Long.MIN_VALUE;
                if (best == null || position > bestPosition) {
                    best = file;
                    bestPosition = position;
                }
            }
            if (best != null || refusedBy.isEmpty() || System.nanoTime() > deadline) {
                return best;
            }
            log.info("nodes {} refused; asking them again in {} ms (for up to {} s in all)", refusedBy,
                    RETRY_PAUSE_MILLIS, REFUSALS_RETRIED_MILLIS / 1000);
            try {
                Thread.sleep(RETRY_PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            asking = refusedBy;
        }
    }
}
