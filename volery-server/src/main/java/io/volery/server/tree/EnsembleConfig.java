package io.volery.server.tree;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;

/**
 * What {@code /zookeeper/config} shows (ADR 097): the cluster's front ends as the members of a ZooKeeper
 * ensemble, in ZooKeeper's dynamic-configuration format, so that clients that follow an ensemble's
 * configuration (Curator's EnsembleTracker; {@code getConfig} and {@code updateServerList} of the ZooKeeper
 * client) learn every front end from any one of them.
 *
 * <p>It is the node's local knowledge, not replicated state, as in ZooKeeper (every server writes its own
 * configuration into the node at start and after loading a snapshot): a node publishes it once it knows every
 * front end's client address, and each of its trees takes it up before the next command it applies
 * ({@link ZnodeTree#apply}). Snapshots and digests leave it out, so replicas compare equal whatever their
 * configuration files say.
 */
public final class EnsembleConfig {

    /** The published bytes and when they were published (the node's mtime, as ZooKeeper's server start). */
    record Published(byte[] data, long mtime) {
    }

    private volatile Published current;

    /** One member: ZooKeeper's {@code server.ID=host:port:port:participant;clientHost:clientPort}. */
    public record Member(long id, String host, int port, String clientHost, int clientPort) {
        public Member {
            if (id < 0 || port <= 0 || clientPort <= 0) {
                throw new IllegalArgumentException("a member needs an id and its ports, got " + id + ", " + port + ", "
                        + clientPort);
            }
        }
    }

    /** Publishes {@code members} (those that serve ZooKeeper clients) from now on. */
    public void publish(List<Member> members) {
        current = new Published(format(members), System.currentTimeMillis());
    }

    Published current() {
        return current;
    }

    /**
     * ZooKeeper's form of a static configuration (version 0): a {@code server.ID} line per member in id order,
     * then {@code version=0} without a line break. A Volery node has one port for its peers, its ring port, in
     * the place of ZooKeeper's quorum port; ZooKeeper's parser wants a different election port after it, and
     * the line names the node's client port there (the ring port's neighbour in the odd case that they are
     * equal, on different addresses). No client connects to either.
     */
    static byte[] format(List<Member> members) {
        StringBuilder b = new StringBuilder();
        members.stream().sorted(Comparator.comparingLong(Member::id)).forEach(m -> b.append("server.").append(m.id())
                .append('=').append(hostString(m.host())).append(':').append(m.port()).append(':')
                .append(m.clientPort() != m.port() ? m.clientPort() : m.port() < 65535 ? m.port() + 1 : m.port() - 1)
                .append(":participant;").append(hostString(m.clientHost())).append(':').append(m.clientPort())
                .append('\n'));
        return b.append("version=0").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** An IPv6 literal in brackets, as ZooKeeper writes it. */
    private static String hostString(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
