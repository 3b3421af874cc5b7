package io.eyrie.core.internal;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of one replica, for tests and monitoring. */
public final class ReplicaStats {
    /** Exchange messages sent to other partitions' replicas (first sends and answers to asks). */
    public final AtomicLong exchangesSent = new AtomicLong();
    /** Of {@link #exchangesSent}: bare signals sent as their command was delivered (ADR 034). */
    public final AtomicLong signalsAtDelivery = new AtomicLong();
    /** Object values shipped in full. */
    public final AtomicLong valuesShipped = new AtomicLong();
    /** Objects shipped as "unchanged since the copy you hold" (caching). */
    public final AtomicLong valuesValidated = new AtomicLong();
    /** Remote objects brought up to date before a call. */
    public final AtomicLong remoteReads = new AtomicLong();
    /** Asks sent to another partition's replicas for an exchange that was late (one per replica asked). */
    public final AtomicLong asksSent = new AtomicLong();
    /** Asks this replica answered with the exchange it kept. */
    public final AtomicLong asksAnswered = new AtomicLong();
    /** Of {@link #exchangesSent}: kept exchanges sent after an answered one to an asker that was far behind. */
    public final AtomicLong catchUpExchangesSent = new AtomicLong();
    /** Kept exchanges a catch-up burst left out because a recent burst had carried them to that asker already. */
    public final AtomicLong catchUpsSkipped = new AtomicLong();
    /** Times a replica that is not its partition's designated sender began sending exchanges in its place. */
    public final AtomicLong volunteerings = new AtomicLong();
    public final AtomicLong repliesSent = new AtomicLong();
    /** First copies not answered here because the request named another replica to answer them. */
    public final AtomicLong repliesLeftToReplier = new AtomicLong();
    /** Copies not answered here because the command is answered by other destinations (ADR 054). */
    public final AtomicLong repliesLeftToOthers = new AtomicLong();
    public final AtomicLong commandsExecuted = new AtomicLong();
    public final AtomicLong duplicatesAnswered = new AtomicLong();
    /** "No longer kept" answers to this replica's asks, for a command it was still waiting on. */
    public final AtomicLong gonesReceived = new AtomicLong();
    /** Clients that left the reply table (ADR 058: their own retire, or their node's next client's). */
    public final AtomicLong clientsRetired = new AtomicLong();
    /** Requests of retired clients refused instead of executed (ADR 058). */
    public final AtomicLong retiredRefused = new AtomicLong();
    /** A gauge: clients whose entry went for idleness (ADR 062), as of the last delivery. */
    public final AtomicLong clientsExpired = new AtomicLong();
    /** Late copies of idle-expired clients' commands refused instead of run again (ADR 062). */
    public final AtomicLong expiredRefused = new AtomicLong();
    /** A gauge: clients (per destination set) in the reply table after the last delivery. */
    public final AtomicLong replyTableClients = new AtomicLong();
    /** Multi-partition commands executed without signals (PartitioningOracle.executesIndependently). */
    public final AtomicLong independentCommands = new AtomicLong();
    /** Checkpoints written to disk (in the background). */
    public final AtomicLong checkpointsTaken = new AtomicLong();
    /** Captured images replaced by a newer one before the writer got to them. */
    public final AtomicLong checkpointsSuperseded = new AtomicLong();
    public final AtomicLong checkpointsFailed = new AtomicLong();
    /** Checkpoints restored from a peer replica because none on disk was usable. */
    public final AtomicLong checkpointsFetched = new AtomicLong();
    /** Exchanges that arrived before their command was delivered here and were used later. */
    public final AtomicLong earlyExchangesUsed = new AtomicLong();
    /** Times this replica, unable to replay a command, took a peer's state image instead. */
    public final AtomicLong stateTransfers = new AtomicLong();
    /**
     * Times this replica's learner, behind what the acceptors keep, was moved to a peer's checkpoint whose
     * state it took (without a restart).
     */
    public final AtomicLong learnerRepositions = new AtomicLong();
    /** Bytes of the state images taken from peers. */
    public final AtomicLong stateTransferBytes = new AtomicLong();
    /** Deliveries skipped because a state image taken from a peer already covered them. */
    public final AtomicLong deliveriesSkipped = new AtomicLong();
    /** State images captured for peers that asked for one. */
    public final AtomicLong imagesServed = new AtomicLong();
    /**
     * Time the executor spent waiting for other partitions' round-0 exchanges (their signals, or the
     * objects that stand for them): how long this partition waited for the others to deliver a command.
     */
    public final AtomicLong signalWaitNanos = new AtomicLong();
    /** Commands whose result waited for a deferred round (StateMachine.later). */
    public final AtomicLong deferredCommands = new AtomicLong();
    /** Time commands and checkpoints spent settling deferred continuations (StateMachine.settle). */
    public final AtomicLong settleWaitNanos = new AtomicLong();
    /** Time the executor spent waiting in value rounds ({@code exchange}, {@code receiveFrom}). */
    public final AtomicLong valueWaitNanos = new AtomicLong();
    /** Asks answered with "no longer kept" (the asker then catches up by state transfer). */
    public final AtomicLong gonesSent = new AtomicLong();
    /** Progress reports sent to the replicas of other partitions (ADR 049). */
    public final AtomicLong progressSent = new AtomicLong();
    /**
     * Commands that waited for an exchange past the long-wait threshold ({@code 50 x} the exchange timeout, at
     * least 5 s), blocked or with their continuation pending while the executor went on; each counted once and
     * logged with what the replica knows of the wait, again at every doubling of it.
     */
    public final AtomicLong longWaits = new AtomicLong();

    @Override
    public String toString() {
        return "exchangesSent=" + exchangesSent + " valuesShipped=" + valuesShipped + " valuesValidated="
                + valuesValidated + " remoteReads=" + remoteReads + " asksSent=" + asksSent + " asksAnswered="
                + asksAnswered + " repliesSent=" + repliesSent + " commandsExecuted=" + commandsExecuted
                + " duplicatesAnswered=" + duplicatesAnswered + " checkpointsTaken=" + checkpointsTaken
                + " stateTransfers=" + stateTransfers + " deliveriesSkipped=" + deliveriesSkipped;
    }
}
