package io.volery.server.admin;

/**
 * A digest of a replica's whole tree (nodes, sessions, watches, counters) right after it executed
 * the command at {@code position}: replicas of a partition that report the same position must
 * report the same digest.
 */
public record StateDigest(long position, String digest) {
    public static final StateDigest NONE = new StateDigest(-1, "none");
}
