package io.eyrie.multicast.internal.protocol;

import io.eyrie.multicast.AcceptorLog;
import io.eyrie.multicast.ClusterConfig;
import io.eyrie.multicast.Delivery;
import io.eyrie.multicast.MulticastException;
import io.eyrie.multicast.internal.storage.MemoryAcceptorLog;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A simulated cluster: a network and a clock driven by one seed. Each node's NodeProtocol is
 * driven by the event loop; MemoryAcceptorLogs are the disks that survive crashes. Faults (loss,
 * duplication, reordering through random delays, crashes and restarts, symmetric and one-way
 * partitions) happen during a fault phase; then the network heals and every node is up.
 * The checker runs on every delivery and decision; liveness is checked after healing.
 */
final class Simulation {
    static final long TICK_MILLIS = 5;

    final long seed;
    final SplittableRandom rnd;
    final ClusterConfig config;
    final NodeProtocol.Faults faults;
    final SimChecker checker;
    final long faultPhaseMillis;
    final long healDeadlineMillis;
    double lossRate;
    double duplicateRate;
    final double faultLossRate;
    int maxDelayMillis;
    final boolean useCheckpoints;
    long now;
    long steps;
    long messagesSent;
    /** What actually happened in this run, for the coverage summary. */
    final Coverage coverage = new Coverage();

    static final class Coverage {
        long runs;
        long crashes;
        long partitions;
        long messagesLost;
        long messagesDuplicated;
        long proposals;
        long deliveries;
        long ballotChanges;
        long skips;
        long trimmedLogs;
        long amnesiaRestarts;
        long lingeringRuns;

        void add(Coverage o) {
            lingeringRuns += o.lingeringRuns;
            amnesiaRestarts += o.amnesiaRestarts;
            runs += o.runs;
            crashes += o.crashes;
            partitions += o.partitions;
            messagesLost += o.messagesLost;
            messagesDuplicated += o.messagesDuplicated;
            proposals += o.proposals;
            deliveries += o.deliveries;
            ballotChanges += o.ballotChanges;
            skips += o.skips;
            trimmedLogs += o.trimmedLogs;
        }

        @Override
        public String toString() {
            return runs + " runs: " + crashes + " crashes, " + partitions + " partitions, " + messagesLost + " messages lost, "
                    + messagesDuplicated + " duplicated, " + proposals + " multicasts, " + deliveries + " deliveries, "
                    + ballotChanges + " Phase 1 ballots beyond each ring's first, " + skips + " skips at rings' lowest-id acceptor, "
                    + trimmedLogs + " acceptor logs trimmed, " + amnesiaRestarts + " restarts with every log lost, "
                    + lingeringRuns + " runs whose partial batches lingered";
        }
    }
    private long eventSeq;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    final Map<Integer, SimNode> nodes = new TreeMap<>();
    /** Directed links that drop everything (from * 1000 + to). */
    private final Set<Integer> blocked = new HashSet<>();
    private long nextPayloadId = 1;
    private final List<String> trace = new ArrayList<>();
    final boolean tracing;

    final class SimNode {
        final int id;
        final Map<Integer, MemoryAcceptorLog> logs = new TreeMap<>();
        NodeProtocol proto;
        long incarnation;
        byte[] checkpoint;
        long lastCheckpointedMillis;

        SimNode(int id) {
            this.id = id;
        }

        boolean up() {
            return proto != null;
        }
    }

    private record Event(long time, long seq, int kind, int from, int to, long incarnation, byte[] bytes)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
        }
    }

    private static final int DELIVER = 0;
    private static final int TICK = 1;
    private static final int PROPOSE = 2;
    private static final int CRASH = 3;
    private static final int RESTART = 4;
    private static final int PARTITION = 5;
    private static final int HEAL_PARTITION = 6;
    private static final int HEAL_ALL = 7;

    /**
     * The node whose restarts lose its acceptor logs (as an in-memory process or a wiped disk does), or -1.
     */
    final int amnesiaNode;

    Simulation(long seed, NodeProtocol.Faults faults, boolean tracing) {
        this(seed, faults, tracing, false);
    }

    /** @param amnesia one node, chosen by the seed, loses its logs at every restart (and crashes at least once) */
    Simulation(long seed, NodeProtocol.Faults faults, boolean tracing, boolean amnesia) {
        this.seed = seed;
        this.rnd = new SplittableRandom(seed);
        this.faults = faults;
        this.tracing = tracing;
        this.config = randomConfig();
        this.checker = new SimChecker(config);
        this.faultPhaseMillis = 600 + rnd.nextInt(600);
        this.healDeadlineMillis = faultPhaseMillis + 6000;
        this.lossRate = rnd.nextInt(3) == 0 ? 0 : rnd.nextDouble() * (rnd.nextInt(4) == 0 ? 0.25 : 0.1);
        this.duplicateRate = rnd.nextInt(3) == 0 ? 0 : rnd.nextDouble() * 0.05;
        this.faultLossRate = lossRate;
        this.maxDelayMillis = 1 + rnd.nextInt(12);
        this.useCheckpoints = rnd.nextBoolean();
        for (int id : config.nodes().keySet()) {
            SimNode n = new SimNode(id);
            for (int r : config.ringsAcceptedBy(id)) {
                n.logs.put(r, new MemoryAcceptorLog(config.parameters().memoryMaxInstances()));
            }
            nodes.put(id, n);
            start(n);
        }
        scheduleWorkload();
        scheduleFaults();
        schedule(faultPhaseMillis, HEAL_ALL, 0, 0, 0, null);
        if (amnesia) {
            // A stream of its own, so that a seed's other events are those of the same seed without amnesia.
            SplittableRandom a = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 1);
            int[] ids = config.nodes().keySet().stream().mapToInt(Integer::intValue).toArray();
            amnesiaNode = ids[a.nextInt(ids.length)];
            long at = 50 + a.nextLong(faultPhaseMillis - 100);
            schedule(at, CRASH, 0, amnesiaNode, 0, null);
            schedule(Math.min(faultPhaseMillis, at + 5 + a.nextInt(200)), RESTART, 0, amnesiaNode, 0, null);
        } else {
            amnesiaNode = -1;
        }
    }

    private ClusterConfig randomConfig() {
        int n = 3 + rnd.nextInt(3);
        StringBuilder sb = new StringBuilder();
        List<int[]> groupChoices = List.of(new int[] {1}, new int[] {2}, new int[] {1, 2});
        int[][] groups = new int[n + 1][];
        boolean g1 = false;
        boolean g2 = false;
        for (int i = 1; i <= n; i++) {
            groups[i] = (n >= 4 && i == n && rnd.nextInt(3) == 0) ? new int[0] : groupChoices.get(rnd.nextInt(3));
            for (int g : groups[i]) {
                g1 |= g == 1;
                g2 |= g == 2;
            }
        }
        if (!g1) {
            groups[1] = new int[] {1, 2};
        }
        if (!g2) {
            groups[2] = new int[] {1, 2};
        }
        for (int i = 1; i <= n; i++) {
            sb.append("node.").append(i).append(" = 127.0.0.1:").append(7000 + i).append('\n');
            if (groups[i].length > 0) {
                sb.append("node.").append(i).append(".groups = ")
                        .append(String.join(",", Arrays.stream(groups[i]).mapToObj(String::valueOf).toList())).append('\n');
            }
        }
        for (int ring = 0; ring <= 2; ring++) {
            List<Integer> ids = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                ids.add(i);
            }
            for (int i = ids.size() - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                Integer t = ids.get(i);
                ids.set(i, ids.get(j));
                ids.set(j, t);
            }
            int count = n == 3 || rnd.nextBoolean() ? 3 : n;
            sb.append("ring.").append(ring).append(".acceptors = ")
                    .append(String.join(",", ids.subList(0, count).stream().map(String::valueOf).toList())).append('\n');
        }
        sb.append("ring.all = 0\ngroup.1.ring = 1\ngroup.2.ring = 2\n");
        sb.append("merge.slotsPerRound = ").append(1 + rnd.nextInt(3)).append('\n');
        sb.append("batch.maxMessages = ").append(1 + rnd.nextInt(8)).append('\n');
        sb.append("batch.maxBytes = ").append(rnd.nextBoolean() ? 1024 : 65536).append('\n');
        sb.append("ring.maxInFlight = ").append(1 + rnd.nextInt(8)).append('\n');
        sb.append("ring.partialBatchesInFlight = ").append(1 + rnd.nextInt(8)).append('\n');
        // A stream of its own, so that every other draw of a seed is what it was before lingering was drawn.
        SplittableRandom l = new SplittableRandom(seed * 0x2545F4914F6CDD1DL + 3);
        sb.append("ring.lingerMillis = ").append(l.nextBoolean() ? 0 : 1 + l.nextInt(12)).append('\n');
        sb.append("timeout.heartbeatMillis = 20\ntimeout.suspectMillis = 100\ntimeout.retransmitMillis = 30\n");
        return ClusterConfig.parse(sb.toString(), "sim-seed-" + seed);
    }

    private void scheduleWorkload() {
        int proposals = 10 + rnd.nextInt(30);
        int[] ids = config.nodes().keySet().stream().mapToInt(Integer::intValue).toArray();
        for (int i = 0; i < proposals; i++) {
            schedule(rnd.nextLong(faultPhaseMillis), PROPOSE, 0, ids[rnd.nextInt(ids.length)], 0, null);
        }
    }

    private void scheduleFaults() {
        int[] ids = config.nodes().keySet().stream().mapToInt(Integer::intValue).toArray();
        int crashes = rnd.nextInt(rnd.nextInt(4) == 0 ? 5 : 3);
        for (int i = 0; i < crashes; i++) {
            long at = rnd.nextLong(faultPhaseMillis - 50);
            int node = ids[rnd.nextInt(ids.length)];
            schedule(at, CRASH, 0, node, 0, null);
            schedule(Math.min(faultPhaseMillis, at + 20 + rnd.nextInt(400)), RESTART, 0, node, 0, null);
        }
        int partitions = rnd.nextInt(rnd.nextInt(4) == 0 ? 4 : 3);
        for (int i = 0; i < partitions; i++) {
            long at = rnd.nextLong(faultPhaseMillis - 50);
            byte[] links = partitionLinks(ids);
            schedule(at, PARTITION, 0, 0, 0, links);
            schedule(Math.min(faultPhaseMillis, at + 30 + rnd.nextInt(500)), HEAL_PARTITION, 0, 0, 0, links);
        }
    }

    /** A random cut: one side and the other, symmetric or one-way; encoded as (from, to) byte pairs. */
    private byte[] partitionLinks(int[] ids) {
        List<Integer> side = new ArrayList<>();
        List<Integer> rest = new ArrayList<>();
        for (int id : ids) {
            (rnd.nextBoolean() ? side : rest).add(id);
        }
        if (side.isEmpty() || rest.isEmpty()) {
            side.clear();
            rest.clear();
            side.add(ids[0]);
            for (int k = 1; k < ids.length; k++) {
                rest.add(ids[k]);
            }
        }
        boolean oneWay = rnd.nextBoolean();
        ByteBuffer b = ByteBuffer.allocate(side.size() * rest.size() * 4);
        for (int a : side) {
            for (int c : rest) {
                b.put((byte) a).put((byte) c);
                b.put((byte) (oneWay ? a : c)).put((byte) (oneWay ? c : a));
            }
        }
        return b.array();
    }

    private void schedule(long time, int kind, int from, int to, long incarnation, byte[] bytes) {
        events.add(new Event(time, eventSeq++, kind, from, to, incarnation, bytes));
    }

    private void start(SimNode n) {
        n.incarnation++;
        for (MemoryAcceptorLog l : n.logs.values()) {
            l.reopen();
        }
        Map<Integer, AcceptorLog> logs = new TreeMap<>();
        for (Map.Entry<Integer, MemoryAcceptorLog> l : n.logs.entrySet()) {
            logs.put(l.getKey(), new CheckedAcceptorLog(l.getKey(), l.getValue(), checker));
        }
        byte[] cp = useCheckpoints ? n.checkpoint : null;
        checker.restarted(n.id, n.incarnation, cp != null);
        n.proto = new NodeProtocol(config, n.id, n.incarnation, logs, cp, now, faults);
        final int nid = n.id;
        n.proto.observeDecisions((ring, instance, value) -> {
            if (tracing && ring == Integer.getInteger("sim.traceRing", -1)) {
                note("node " + nid + " learns ring " + ring + " instance " + instance + " = " + RingValue.decode(value));
            }
            checker.decided(ring, instance, value);
        });
        if (seed % 2 == 0) {
            // Half the seeds run like MulticastNode: Ordered notices held until the end of a turn
            // (here: the node's next tick), without drawing from the schedule's random stream.
            n.proto.coalesceOrderedPerTurn();
        }
        schedule(now + rnd.nextInt((int) TICK_MILLIS) + 1, TICK, 0, n.id, n.incarnation, null);
    }

    private void restart(SimNode n) {
        if (n.id == amnesiaNode) {
            for (Map.Entry<Integer, MemoryAcceptorLog> l : n.logs.entrySet()) {
                MemoryAcceptorLog fresh = new MemoryAcceptorLog(config.parameters().memoryMaxInstances());
                fresh.close();
                l.setValue(fresh);
            }
            // The learner's state is not the point here: Eyrie brings it back from a peer (state
            // transfer), which its last checkpoint stands for (without it, a learner behind the
            // acceptors' trim point could never deliver again in this simulation).
            coverage.amnesiaRestarts++;
            note("node " + n.id + " lost its logs");
        }
        start(n);
    }

    private void crash(SimNode n) {
        if (!n.up()) {
            return;
        }
        n.proto = null;
        for (MemoryAcceptorLog l : n.logs.values()) {
            l.close();
        }
        checker.crashed(n.id);
        note("crash " + n.id);
    }

    /** One step's output: collected during the step, sent after it (after the logs' sync). */
    private final class StepOutput implements Output {
        final SimNode node;
        final List<Object[]> sends = new ArrayList<>();

        StepOutput(SimNode node) {
            this.node = node;
        }

        @Override
        public void send(int toNodeId, byte[] message) {
            sends.add(new Object[] {toNodeId, message});
        }

        @Override
        public void deliver(Delivery d) {
            checker.delivered(node.id, node.incarnation, d, now);
            coverage.deliveries++;
            if (useCheckpoints) {
                node.checkpoint = node.proto.learnerCheckpoint();
            }
        }

        @Override
        public void ordered(long proposalSeq) {
            checker.ordered(node.id, node.incarnation, proposalSeq);
        }

        @Override
        public void direct(int fromNodeId, byte[] appMessage) {
        }

        void flush() {
            for (MemoryAcceptorLog l : node.logs.values()) {
                l.sync();
            }
            for (Object[] s : sends) {
                transmit(node.id, (Integer) s[0], (byte[]) s[1]);
            }
        }
    }

    private final Set<Long> phase1Ballots = new HashSet<>();

    private void transmit(int from, int to, byte[] msg) {
        messagesSent++;
        if (msg[0] == MessageCodec.PHASE1A) {
            Message.Phase1a p = (Message.Phase1a) MessageCodec.decode(ByteBuffer.wrap(msg));
            phase1Ballots.add((long) p.ring() << 48 | p.ballot());
        }
        if (blocked.contains(from * 1000 + to) || rnd.nextDouble() < lossRate) {
            coverage.messagesLost++;
            return;
        }
        int copies = rnd.nextDouble() < duplicateRate ? 2 : 1;
        coverage.messagesDuplicated += copies - 1;
        for (int c = 0; c < copies; c++) {
            schedule(now + 1 + rnd.nextInt(maxDelayMillis), DELIVER, from, to, 0, msg);
        }
    }

    /** Runs until every expectation holds after healing; fails (AssertionError) otherwise. */
    void run() {
        try {
            runUntilLive();
        } finally {
            coverage.runs = 1;
            coverage.lingeringRuns = config.parameters().lingerMillis() > 0 ? 1 : 0;
            for (SimNode n : nodes.values()) {
                for (Map.Entry<Integer, MemoryAcceptorLog> l : n.logs.entrySet()) {
                    if (l.getValue().lowestInstance() > 0) {
                        coverage.trimmedLogs++;
                    }
                    for (AcceptorLog.AcceptedValue v : l.getValue().recovered().accepted().values()) {
                        if (RingValue.decode(v.value()) instanceof RingValue.Skip k && k.slots() > 0 && n.id == lowestAcceptor(l.getKey())) {
                            coverage.skips++;
                        }
                    }
                }
            }
            coverage.ballotChanges = Math.max(0, phase1Ballots.size() - config.rings().size());
        }
    }

    private int lowestAcceptor(int ring) {
        return Arrays.stream(config.ring(ring).acceptors()).min().orElseThrow();
    }

    private void runUntilLive() {
        long lastLivenessCheck = 0;
        while (!events.isEmpty()) {
            Event e = events.poll();
            now = e.time;
            if (now > healDeadlineMillis) {
                break;
            }
            step(e);
            steps++;
            if (now >= faultPhaseMillis && now - lastLivenessCheck >= 50) {
                lastLivenessCheck = now;
                if (checker.livenessProblems(liveIncarnations(), 1).isEmpty()) {
                    return;
                }
            }
        }
        List<String> problems = checker.livenessProblems(liveIncarnations(), 10);
        if (!problems.isEmpty()) {
            StringBuilder sb = new StringBuilder("liveness: " + (healDeadlineMillis - faultPhaseMillis)
                    + " ms after healing, still missing:\n");
            for (String p : problems) {
                sb.append("  ").append(p).append('\n');
            }
            for (SimNode n : nodes.values()) {
                sb.append("  ").append(n.up() ? n.proto.status() : "node " + n.id + " down").append('\n');
            }
            throw new AssertionError(sb.toString());
        }
    }

    Map<Integer, Long> liveIncarnations() {
        Map<Integer, Long> live = new HashMap<>();
        for (SimNode n : nodes.values()) {
            if (n.up()) {
                live.put(n.id, n.incarnation);
            }
        }
        return live;
    }

    private void step(Event e) {
        switch (e.kind) {
            case DELIVER -> {
                SimNode n = nodes.get(e.to);
                if (n.up()) {
                    StepOutput out = new StepOutput(n);
                    n.proto.onMessage(e.from, ByteBuffer.wrap(e.bytes), now, out);
                    out.flush();
                }
            }
            case TICK -> {
                SimNode n = nodes.get(e.to);
                if (n.up() && n.incarnation == e.incarnation) {
                    StepOutput out = new StepOutput(n);
                    n.proto.endTurn(out);
                    n.proto.onTick(now, out);
                    if (useCheckpoints && n.checkpoint != null && now - n.lastCheckpointedMillis >= 100) {
                        n.lastCheckpointedMillis = now;
                        n.proto.checkpointed(n.checkpoint, now, out);
                    }
                    out.flush();
                    schedule(now + TICK_MILLIS, TICK, 0, n.id, n.incarnation, null);
                }
            }
            case PROPOSE -> {
                SimNode n = nodes.get(e.to);
                if (n.up()) {
                    int[] groups = switch (rnd.nextInt(3)) {
                        case 0 -> new int[] {1};
                        case 1 -> new int[] {2};
                        default -> new int[] {1, 2};
                    };
                    long payloadId = nextPayloadId++;
                    byte[] payload = ByteBuffer.allocate(8 + rnd.nextInt(40)).putLong(payloadId).array();
                    StepOutput out = new StepOutput(n);
                    try {
                        long seq = n.proto.propose(groups, payload, now, out);
                        checker.proposed(payloadId, n.id, n.incarnation, seq, groups);
                        coverage.proposals++;
                    } catch (MulticastException overloaded) {
                        note("propose refused at " + n.id + ": " + overloaded.getMessage());
                    }
                    out.flush();
                }
            }
            case CRASH -> {
                if (nodes.get(e.to).up()) {
                    coverage.crashes++;
                }
                crash(nodes.get(e.to));
            }
            case RESTART -> {
                SimNode n = nodes.get(e.to);
                if (!n.up()) {
                    restart(n);
                    note("restart " + n.id + " incarnation " + n.incarnation);
                }
            }
            case PARTITION -> {
                coverage.partitions++;
                ByteBuffer b = ByteBuffer.wrap(e.bytes);
                while (b.hasRemaining()) {
                    blocked.add(b.get() * 1000 + b.get());
                }
            }
            case HEAL_PARTITION -> {
                ByteBuffer b = ByteBuffer.wrap(e.bytes);
                while (b.hasRemaining()) {
                    blocked.remove(b.get() * 1000 + b.get());
                }
            }
            case HEAL_ALL -> {
                blocked.clear();
                lossRate = 0;
                duplicateRate = 0;
                for (SimNode n : nodes.values()) {
                    if (!n.up()) {
                        restart(n);
                    }
                }
            }
            default -> throw new AssertionError("unknown event " + e.kind);
        }
    }

    private void note(String s) {
        if (tracing) {
            trace.add(now + " " + s);
        }
    }

    String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("seed ").append(seed).append(": ").append(config.nodes().size()).append(" nodes, rings ");
        for (ClusterConfig.Ring r : config.rings().values()) {
            sb.append(r.id()).append('=').append(Arrays.toString(r.acceptors())).append(" learners ")
                    .append(Arrays.toString(r.learners())).append("; ");
        }
        sb.append("M=").append(config.parameters().slotsPerRound()).append(" linger=").append(config.parameters().lingerMillis()).append(" loss=").append(String.format("%.3f", faultLossRate))
                .append(" checkpoints=").append(useCheckpoints).append(" steps=").append(steps).append(" t=").append(now);
        return sb.toString();
    }

    List<String> trace() {
        return trace;
    }



    /** Runs seeds [first, first + count) and prints each failure: {@code Simulation FIRST COUNT}. */
    static void sweep(long first, long count) {
        long failures = 0;
        long started = System.nanoTime();
        for (long seed = first; seed < first + count; seed++) {
            String f = SimulationTest.runSeed(seed, NodeProtocol.Faults.NONE, new Coverage(), seed % 3 == 0);
            if (f != null) {
                failures++;
                System.out.println("FAILED " + f + "\n  replay: " + SimulationTest.replay(seed));
            }
        }
        System.out.println(count + " seeds from " + first + ": " + failures + " failed, "
                + (System.nanoTime() - started) / 1_000_000 + " ms");
    }

    /**
     * Replays one seed with a trace of crashes and restarts and the final state of every node:
     * {@code java -cp ... io.eyrie.multicast.internal.protocol.Simulation SEED}; {@code FIRST COUNT} sweeps
     * seeds. Every third seed has a node that loses its logs, as in SimulationTest ({@code -Dsim.noAmnesia=true}:
     * none); {@code -Dsim.trustEmptyLogs=true} plants ADR 074's fault; {@code -Dsim.traceRing=R} traces every
     * value learned on ring R.
     */
    public static void main(String[] args) {
        if (args.length == 2) {
            sweep(Long.parseLong(args[0]), Long.parseLong(args[1]));
            return;
        }
        long seed = Long.parseLong(args[0]);
        // as SimulationTest runs it: every third seed with a node that loses its logs
        NodeProtocol.Faults faults = Boolean.getBoolean("sim.trustEmptyLogs") ? new NodeProtocol.Faults(false, false, true)
                : NodeProtocol.Faults.NONE;
        Simulation sim = new Simulation(seed, faults, true, seed % 3 == 0 && !Boolean.getBoolean("sim.noAmnesia"));
        try {
            sim.run();
            System.out.println("seed " + args[0] + " passed");
        } catch (AssertionError e) {
            System.out.println(e.getMessage());
        }
        System.out.println(sim.describe());
        sim.trace().forEach(System.out::println);
        for (SimNode n : sim.nodes.values()) {
            System.out.println(n.up() ? n.proto.status() : "node " + n.id + " down");
        }
    }
}
