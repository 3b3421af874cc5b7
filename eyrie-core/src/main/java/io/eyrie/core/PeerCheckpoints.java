package io.eyrie.core;

/**
 * Where a replica that has no usable checkpoint of its own (lost or damaged disk) gets one: from
 * another replica of its partition. The bytes are a checkpoint file as a peer stores it; the
 * replica verifies its checksum before using it.
 */
@FunctionalInterface
public interface PeerCheckpoints {

    /** The newest checkpoint file a peer of this replica's partition holds, or null if none answers with one. */
    byte[] fetchNewest();
}
