package io.volery.server.admin;

import io.eyrie.multicast.MulticastNode;
import io.eyrie.multicast.internal.protocol.NodeStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.function.ToDoubleFunction;

/**
 * Registers a node's gauges and counters: sessions, watches, znodes, connections, ring throughput
 * and lag, signal waits. Request rates and latencies come from {@link MonitoredService}'s timers.
 */
public final class VoleryMetrics {
    private VoleryMetrics() {
    }

    /**
     * @return what brings the per-namespace quota gauges up to date with the monitor's last census (ZooKeeper's
     *         quota_*_per_namespace, as {@code volery_quota_*{namespace=...}}; ADR 072): run it after each census
     */
    public static Runnable bind(MeterRegistry registry, NodeMonitor monitor, MulticastNode multicast) {
        Tags tags = Tags.of("node", String.valueOf(monitor.facts().nodeId()),
                "partition", String.valueOf(monitor.facts().partition()));
        String[] quotaNames = {"volery.quota.count.limit", "volery.quota.bytes.limit", "volery.quota.count.usage",
            "volery.quota.bytes.usage", "volery.quota.exceeded.errors"};
        String[] quotaHelp = {"a namespace's quota count limits (hard where set, else soft), summed",
            "a namespace's quota byte limits (hard where set, else soft), summed", "nodes counted by a namespace's quotas",
            "bytes counted by a namespace's quotas", "creates and setData refused past a hard limit, per namespace"};
        java.util.List<io.micrometer.core.instrument.MultiGauge> quotaGauges = new java.util.ArrayList<>();
        for (int i = 0; i < quotaNames.length; i++) {
            quotaGauges.add(io.micrometer.core.instrument.MultiGauge.builder(quotaNames[i]).description(quotaHelp[i])
                    .tags(tags).register(registry));
        }
        gauge(registry, "volery.sessions", "live sessions in this replica's partition", tags, monitor,
                m -> m.lastCensus().sessions().size());
        gauge(registry, "volery.watches", "watch registrations in this replica's partition", tags, monitor,
                m -> m.lastCensus().watchCount());
        gauge(registry, "volery.znodes", "znodes in this replica's partition", tags, monitor,
                m -> m.lastCensus().nodeCount());
        gauge(registry, "volery.ephemerals", "ephemeral znodes in this replica's partition", tags, monitor,
                m -> m.lastCensus().ephemeralsCount());
        gauge(registry, "volery.data.size", "approximate data size (paths and data) in bytes", tags, monitor,
                m -> m.lastCensus().approximateDataSize());
        gauge(registry, "volery.connections", "open client connections", tags, monitor,
                m -> m.frontEnd().connectionsOpen());
        gauge(registry, "volery.requests.outstanding", "requests submitted and not yet answered", tags, monitor,
                m -> m.service().outstanding());
        FunctionCounter.builder("volery.replica.commands", monitor, m -> m.probe().commands())
                .description("commands executed by this replica").tags(tags).register(registry);
        FunctionCounter.builder("volery.signal.waits", monitor, m -> m.probe().signalWaits())
                .description("waits for other partitions' signals (exchanges)").tags(tags).register(registry);
        FunctionCounter.builder("volery.signal.wait.seconds", monitor, m -> m.probe().signalWaitNanos() / 1e9)
                .description("time spent waiting for other partitions' signals").tags(tags).register(registry);
        FunctionCounter.builder("volery.notifications", monitor, m -> m.frontEnd().notificationsSent())
                .description("watch notifications sent to clients").tags(tags).register(registry);
        FunctionCounter.builder("volery.client.bytes.received", monitor, m -> m.frontEnd().bytesReceived())
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.client.bytes.sent", monitor, m -> m.frontEnd().bytesSent())
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.checkpoints.corrupt", monitor, m -> m.durability().corruptCheckpoints())
                .description("checkpoint files found damaged by checksum and not used").tags(tags).register(registry);
        FunctionCounter.builder("volery.acceptor.torn.bytes", monitor, m -> m.durability().tornLogBytes())
                .description("torn-tail bytes the acceptor logs cut off at open").tags(tags).register(registry);
        for (int ring : multicast.config().rings().keySet()) {
            Tags r = tags.and("ring", String.valueOf(ring));
            FunctionCounter.builder("volery.ring.decided", multicast, n -> ringValue(n, ring, RingField.DECIDED))
                    .description("highest instance this node knows decided on the ring (its rate is the ring's throughput)")
                    .tags(r).register(registry);
            gauge(registry, "volery.ring.lag", "instances decided on the ring that this node's merge has not delivered",
                    r, multicast, n -> ringValue(n, ring, RingField.LAG));
            gauge(registry, "volery.ring.coordinator", "the ring's coordinator as this node sees it", r, multicast,
                    n -> ringValue(n, ring, RingField.COORDINATOR));
        }
        FunctionCounter.builder("volery.transport.frames.sent", multicast, n -> n.transportStats().framesSent())
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.transport.frames.received", multicast, n -> n.transportStats().framesReceived())
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.transport.frames.dropped", multicast, n -> n.transportStats().framesDropped())
                .description("frames to peers dropped (a full queue, a peer down): the protocol resends what matters")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.proposals.gap.resends", multicast, n -> n.status().proposalGapResends())
                .description("proposals sent again because their ring ordered a later one of them first")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.catchup.fetches", multicast, n -> n.status().fetchesSent())
                .description("catch-up requests for decided values this node sent (lost or missed messages; ADR 045)")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.catchup.fetched.bytes", multicast, n -> n.status().fetchedValueBytes())
                .description("bytes of decided values catch-up brought to this node")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.requests.reordered.resends", monitor, NodeMonitor::reorderedResends)
                .description("pipelined requests the replicas refused for overtaking the request they follow, sent again")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.connections.rejected", monitor, NodeMonitor::connectionsRejected)
                .description("client connections closed as accepted: past maxClientCnxns from one address or maxCnxns in all")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.requests.local.reply.fallbacks", monitor, NodeMonitor::localReplyFallbacks)
                .description("commands sent again for every replica because this node's replica did not answer in time")
                .tags(tags).register(registry);
        FunctionCounter.builder("volery.requests.resent", monitor, NodeMonitor::requestsResent)
                .description("commands multicast again because no reply came within the retry period")
                .tags(tags).register(registry);
        io.micrometer.core.instrument.Gauge.builder("volery.requests.in.service", monitor, NodeMonitor::requestsInService)
                .description("this node's commands ordered and not yet answered (at most globalOutstandingLimit)")
                .tags(tags).register(registry);
        return () -> quotaRows(quotaGauges, monitor);
    }

    private enum RingField { DECIDED, LAG, COORDINATOR }

    private static double ringValue(MulticastNode n, int ring, RingField field) {
        for (NodeStatus.RingStatus r : n.status().rings()) {
            if (r.ringId() == ring) {
                return switch (field) {
                    case DECIDED -> Math.max(0, r.highestDecidedInstance() + 1);
                    case LAG -> NodeMonitor.lag(r);
                    case COORDINATOR -> r.coordinatorId();
                };
            }
        }
        return Double.NaN;
    }

    private static void quotaRows(java.util.List<io.micrometer.core.instrument.MultiGauge> gauges, NodeMonitor monitor) {
        java.util.Map<String, long[]> quotas = monitor.lastCensus().quotas();
        for (int i = 0; i < gauges.size(); i++) {
            int at = i;
            // limits only where limits nodes are, usage only where stats nodes are, refusals once there are some
            int present = i < 2 ? 5 : i < 4 ? 6 : 4;
            gauges.get(i).register(quotas.entrySet().stream().filter(e -> e.getValue()[present] > 0)
                    .map(e -> io.micrometer.core.instrument.MultiGauge.Row.of(Tags.of("namespace", e.getKey()),
                            e.getValue()[at])).toList(), true);
        }
    }

    private static <T> void gauge(MeterRegistry registry, String name, String help, Tags tags, T obj, ToDoubleFunction<T> f) {
        Gauge.builder(name, obj, f).description(help).tags(tags).register(registry);
    }
}
