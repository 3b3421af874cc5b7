package io.volery.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --connect "A|B|..."}: independent ensembles sharded by hand, the way ZooKeeper users scale
 * past one ensemble, and the ceiling of a partitioned service on the same machine (no command crosses
 * ensembles, so nothing is coordinated). Each ensemble holds the whole znode layout; with
 * {@code --client-per-subtree} client i works on subtree {@code s = i mod subtrees} in ensemble
 * {@code s mod k}, otherwise in ensemble {@code i mod k}. A create/delete pair goes to its client's
 * ensemble. Each ensemble is reached like a plain connect string (with {@code --owner-affinity} too).
 */
final class ShardedTarget implements BenchTarget {
    /** Separates the ensembles in {@code --connect}. */
    static final String SEPARATOR = "|";

    private final BenchConfig config;
    private final List<ZooKeeperTarget> ensembles = new ArrayList<>();

    ShardedTarget(BenchConfig config) {
        this.config = config;
        for (String part : ensembles(config.connect())) {
            ensembles.add(new ZooKeeperTarget(config.withClient(ClientKind.ZOOKEEPER, part)));
        }
    }

    /** The connect strings of {@code connect}'s ensembles, in order. */
    static List<String> ensembles(String connect) {
        List<String> out = new ArrayList<>();
        for (String part : connect.split("\\" + SEPARATOR, -1)) {
            out.add(part.strip());
        }
        return out;
    }

    static boolean isSharded(String connect) {
        return connect.contains(SEPARATOR);
    }

    /** The ensemble client {@code index} works in. */
    int ensembleOf(int index) {
        int key = config.clientPerSubtree() ? index % config.subtrees() : index;
        return key % ensembles.size();
    }

    /** A session on the first ensemble (a caller that needs every ensemble uses {@link #openEach()}). */
    @Override
    public BenchSession open() throws IOException, InterruptedException {
        return ensembles.get(0).open();
    }

    @Override
    public BenchSession open(int index) throws IOException, InterruptedException {
        return ensembles.get(ensembleOf(index)).open(index);
    }

    @Override
    public List<BenchSession> openEach() throws IOException, InterruptedException {
        List<BenchSession> out = new ArrayList<>();
        try {
            for (ZooKeeperTarget e : ensembles) {
                out.add(e.open());
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            out.forEach(BenchSession::close);
            throw e;
        }
        return out;
    }

    @Override
    public void close() {
        ensembles.forEach(ZooKeeperTarget::close);
    }
}
