package io.volery.server;

import io.volery.server.config.VoleryConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Looks at a running node's cluster file every few seconds and takes up a new version in which other nodes moved
 * (ADR 102): a failed machine is replaced by one at another address without restarting the rest of the cluster.
 * The node then dials the moved nodes' rings at their new addresses and lists their new client addresses in
 * {@code /zookeeper/config}. A version that changes anything else, or that does not parse (a file caught half
 * written, too), is refused with one log line naming what differs, and the node goes on with the version it runs
 * with; each distinct text is judged once.
 */
final class ClusterFileWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterFileWatcher.class);
    /** How often the file is read. */
    static final long PERIOD_MILLIS = 2_000;

    private final Path file;
    private final int nodeId;
    private final VoleryNode node;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    /** The text the node runs with, and the last text judged (taken up or refused). */
    private String running;
    private String judged;
    private String unreadable;
    private ScheduledExecutorService thread;

    ClusterFileWatcher(Path file, String runningText, int nodeId, VoleryNode node) {
        this.file = file;
        this.running = runningText;
        this.judged = runningText;
        this.nodeId = nodeId;
        this.node = node;
        node.monitor().clusterFileCounters(reloads::get, refused::get);
    }

    /** Looks every {@link #PERIOD_MILLIS} on a daemon thread of its own. */
    synchronized ClusterFileWatcher start() {
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cluster-file-watch-" + nodeId);
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(() -> {
            try {
                check();
            } catch (RuntimeException e) {
                LOG.warn("node {}: looking at {} failed: {}", nodeId, file, e.toString());
            }
        }, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** One look at the file. */
    synchronized void check() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            if (!e.toString().equals(unreadable)) {
                unreadable = e.toString();
                LOG.warn("node {}: cannot read its cluster file {} ({}); it goes on with the version it runs with",
                        nodeId, file, unreadable);
            }
            return;
        }
        unreadable = null;
        if (text.equals(judged)) {
            return;
        }
        judged = text;
        VoleryConfig next;
        try {
            next = VoleryConfig.parse(text, file.toString());
            next.node(nodeId);
        } catch (IllegalArgumentException e) { // ClusterConfig.ConfigException among them
            refuse(e.getMessage());
            return;
        }
        String refusal = VoleryConfig.reloadRefusal(running, text, nodeId);
        if (refusal != null) {
            refuse(refusal);
            return;
        }
        List<Integer> moved;
        try {
            moved = node.readdress(next.cluster());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            refuse(e.getMessage());
            return;
        }
        List<io.volery.server.tree.EnsembleConfig.Member> ensemble = VoleryMain.ensembleOf(next);
        node.publishEnsemble(ensemble);
        running = text;
        reloads.incrementAndGet();
        LOG.info("node {}: took up the new version of {}: {}; /zookeeper/config lists {}", nodeId, file,
                moved.isEmpty() ? "no node's ring address changed" : "nodes " + moved + " are dialled at "
                        + moved.stream().map(id -> id + "=" + next.cluster().node(id).host() + ":"
                        + next.cluster().node(id).port()).toList(),
                ensemble.stream().map(m -> m.id() + "=" + m.clientHost() + ":" + m.clientPort()).toList());
    }

    private void refuse(String why) {
        refused.incrementAndGet();
        LOG.warn("node {}: its cluster file {} changed, and the new version cannot be taken up while the node runs: "
                + "{}; it goes on with the version it runs with", nodeId, file, why);
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
