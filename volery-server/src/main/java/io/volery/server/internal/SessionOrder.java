package io.volery.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * ZooKeeper's FIFO promise for one session at its front end, or in a native client (ADR 084; no local
 * partition there, so only same-partition pipelining applies). Requests to the same single partition as
 * the request before are pipelined: each goes out once the one before it went out, and one ring orders
 * them in sending order. A request to this node's own partition alone, behind a request to several
 * partitions that include it and is <em>placed on delivery</em> (a multi: each destination runs what follows
 * it only once every destination delivered it), goes out once this node's replica has delivered that
 * request: it then has its place in the partition's order, the ring orders the new one after it, and the new
 * one runs only once every destination of the earlier one delivered it, so no one sees it first (ADR 041).
 * A request to every partition that is placed on delivery goes out once every request before it is answered
 * or is such a request that this node's replica delivered (ADR 076): those are never refused (they name
 * nothing to follow), so they hold their place in the ALL ring's order, which every partition shares, and the
 * new one is ordered after them everywhere and runs nowhere before all of them delivered it. Any other
 * request waits for the answers to every request before it; so does anything behind a request that is not
 * placed on delivery (under subtree partitioning a top-level create or delete, ADR 085; a write of the root),
 * which a partition may finish after the commands that follow it: another session could see the next
 * request's effect and then, in a partition that had not yet ordered the earlier one, miss it (ADR 083).
 *
 * <p>A ring's order can still differ from the sending order: a proposal lost on its way to the
 * coordinator is retransmitted by the proposer after the ones behind it were ordered (and a
 * coordinator failover re-proposes late). So a pipelined request names the one it follows
 * ({@code after}) and the replicas refuse it untouched ({@link VoleryStateMachine.Reordered}) if that
 * one has not run. A refused request is sent again, still pipelined, as soon as the one it follows has
 * been answered or has itself been sent again: after one lost proposal the whole tail of the pipeline
 * goes out again at once, instead of one request per round trip (which, with 25 requests pipelined per
 * session under overload, left sessions crawling for minutes).
 */
public final class SessionOrder {
    /**
     * Whether a request to this node's partition is pipelined behind a multi-partition one that also
     * went there (ADR 041); {@code -Dvolery.pipelineBehindMulti=false} makes it wait for the answer, as
     * before, for comparisons.
     */
    private static final boolean PIPELINE_BEHIND_MULTI = !"false".equals(System.getProperty("volery.pipelineBehindMulti"));
    /**
     * Whether a multi-partition request goes out behind earlier ones delivered here instead of answered (ADR
     * 076); {@code -Dvolery.multiBehindMulti=false} makes it wait for every answer, as before, for comparisons.
     */
    private static final boolean MULTI_BEHIND_MULTI = !"false".equals(System.getProperty("volery.multiBehindMulti"));

    /**
     * Test-only: true sends every request as soon as it arrives, following nothing, so a session's requests
     * to different partitions may be applied out of order (the Jepsen pipeline workload's mutation check,
     * {@code -Dvolery.testing.unorderedSessions=true}). Never set it on a cluster that serves clients.
     */
    private static final boolean UNORDERED = Boolean.getBoolean("volery.testing.unorderedSessions");

    /** Orders a request and returns the replicas' answer. */
    public interface Sender {
        /**
         * @param deliveredHere null, or run once this node's replica delivered the request (it may
         *                      never run; the answer then comes first)
         */
        CompletableFuture<Object> send(VoleryRequest r, Runnable deliveredHere);
    }

    private final AtomicLong reorderedResends;
    /** This node's partition (its replica's), or 0 when none is known. */
    private final int localPartition;
    /** How many partitions the cluster has. */
    private final int partitions;
    /** Whether the last request goes to several partitions including this node's and is placed on delivery. */
    private boolean lastPlacedHere;
    private CompletableFuture<?> answered = CompletableFuture.completedFuture(null);
    /**
     * Completes once every request so far is answered, or, for a multi-partition request this node's replica
     * receives, delivered here (ADR 076).
     */
    private CompletableFuture<?> placed = CompletableFuture.completedFuture(null);
    private Slot last;
    private int[] lastDestinations = new int[0];
    private long lastSeq;

    /**
     * @param reorderedResends counts requests sent again because the replicas refused them for overtaking
     * @param localPartition   the partition of this node's replica, or 0 (a native client: no replica)
     * @param partitions       how many partitions the cluster has
     */
    public SessionOrder(AtomicLong reorderedResends, int localPartition, int partitions) {
        this.reorderedResends = reorderedResends;
        this.localPartition = localPartition;
        this.partitions = partitions;
    }

    /**
     * @param placedOnDelivery for a request to several partitions: whether each of them runs the commands after
     *                         it only once every one of them delivered it (see the class comment)
     * @param sender           orders the request and returns the replicas' answer
     * @param release          turns the answer into the reply bytes, once they may go to the client
     */
    public synchronized CompletableFuture<byte[]> submit(int[] destinations, boolean placedOnDelivery, VoleryRequest r,
                                                  Sender sender, Function<Object, CompletableFuture<byte[]>> release) {
        boolean single = last != null && destinations.length == 1;
        boolean sameRing = single && lastDestinations.length == 1 && lastDestinations[0] == destinations[0];
        boolean behindMulti = single && PIPELINE_BEHIND_MULTI && lastPlacedHere && destinations[0] == localPartition;
        boolean tellDelivery = placedOnDelivery && localPartition != 0 && destinations.length > 1
                && contains(destinations, localPartition);
        // only to every partition: each earlier one it goes behind is then among its destinations' deliveries
        boolean multiBehindPlaced = last != null && MULTI_BEHIND_MULTI && tellDelivery && destinations.length >= partitions;
        boolean pipeline = sameRing || behindMulti;
        r.seq = ++lastSeq;
        r.after = pipeline ? lastSeq - 1 : 0;
        Slot prev = pipeline ? last : null;
        Slot mine = new Slot();
        CompletableFuture<Object> result = new CompletableFuture<>();
        result.whenComplete((x, e) -> mine.finished());
        Runnable first = () -> attempt(r, prev, mine, sender, tellDelivery, result);
        if (UNORDERED) {
            r.after = 0;
            attempt(r, null, mine, sender, tellDelivery, result);
        } else if (sameRing) {
            // Not before the previous request went out: it may itself still wait for other partitions,
            // and sending this one first would let the ring order it first.
            prev.whenSentAfter(0, first);
        } else if (behindMulti) {
            // Not before this node's replica delivered the previous request: the other ring may order it late.
            prev.whenDeliveredHere(first);
        } else if (multiBehindPlaced) {
            // Not before every earlier request is answered or, a multi-partition one, delivered here: no
            // partition may order this one before any of them (it names nothing to follow: not every
            // partition saw the earlier ones to check).
            placed.whenComplete((x, e) -> first.run());
        } else {
            answered.whenComplete((x, e) -> first.run());
        }
        CompletableFuture<byte[]> f = result.thenCompose(release);
        answered = pipeline || multiBehindPlaced ? CompletableFuture.allOf(answered, f) : f;
        CompletableFuture<Void> minePlaced = new CompletableFuture<>();
        if (tellDelivery) {
            // a multi-partition request names nothing to follow, so no replica refuses it: delivered is placed
            mine.whenDeliveredHere(() -> minePlaced.complete(null));
        } else {
            f.whenComplete((x, e) -> minePlaced.complete(null));
        }
        placed = CompletableFuture.allOf(placed, minePlaced);
        last = mine;
        lastDestinations = destinations;
        lastPlacedHere = tellDelivery;
        return f;
    }

    static boolean contains(int[] destinations, int partition) {
        for (int d : destinations) {
            if (d == partition) {
                return true;
            }
        }
        return false;
    }

    /** Sends {@code r}; if the replicas refused it for overtaking {@code prev}, sends it again. */
    private void attempt(VoleryRequest r, Slot prev, Slot mine, Sender sender, boolean tellDelivery,
                         CompletableFuture<Object> result) {
        int prevSends = prev == null ? 0 : prev.sends();
        CompletableFuture<Object> answer;
        try {
            answer = sender.send(r, tellDelivery ? mine::deliveredHere : null);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        } finally {
            mine.sent();
        }
        answer.whenComplete((value, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else if (!(value instanceof VoleryStateMachine.Reordered) || prev == null) {
                result.complete(value);
            } else {
                reorderedResends.incrementAndGet();
                // Once prev is answered, or sent again behind the copy the replicas refused, this copy can follow it.
                prev.whenSentAfter(prevSends, () -> {
                    if (prev.isFinished()) {
                        r.after = 0; // every request before this one is answered: nothing to overtake any more
                    }
                    attempt(r, prev, mine, sender, tellDelivery, result);
                });
            }
        });
    }

    /** One request's sends and whether its final answer arrived. */
    private static final class Slot {
        private int sends;
        private boolean finished;
        private boolean delivered;
        /** Tasks waiting for this node's replica to deliver the request, or for the answer. */
        private List<Runnable> waitingForDelivery;
        /** Tasks waiting for a send beyond the count they name, or for the answer. */
        private List<Waiter> waiting;

        private record Waiter(int sends, Runnable task) {
        }

        synchronized int sends() {
            return sends;
        }

        synchronized boolean isFinished() {
            return finished;
        }

        void sent() {
            List<Runnable> run = null;
            synchronized (this) {
                sends++;
                if (waiting != null) {
                    for (java.util.Iterator<Waiter> it = waiting.iterator(); it.hasNext(); ) {
                        Waiter w = it.next();
                        if (sends > w.sends()) {
                            it.remove();
                            if (run == null) {
                                run = new ArrayList<>(1);
                            }
                            run.add(w.task());
                        }
                    }
                }
            }
            runAll(run);
        }

        /** This node's replica delivered the request (a multi-partition one, from the client's thread). */
        void deliveredHere() {
            List<Runnable> run;
            synchronized (this) {
                delivered = true;
                run = waitingForDelivery;
                waitingForDelivery = null;
            }
            runAll(run);
        }

        /** Runs {@code task} once this node's replica delivered the request or the request was answered. */
        void whenDeliveredHere(Runnable task) {
            synchronized (this) {
                if (!finished && !delivered) {
                    if (waitingForDelivery == null) {
                        waitingForDelivery = new ArrayList<>(1);
                    }
                    waitingForDelivery.add(task);
                    return;
                }
            }
            task.run();
        }

        void finished() {
            List<Runnable> run = null;
            synchronized (this) {
                finished = true;
                if (waitingForDelivery != null) {
                    run = new ArrayList<>(waitingForDelivery);
                    waitingForDelivery = null;
                }
                if (waiting != null) {
                    if (run == null) {
                        run = new ArrayList<>();
                    }
                    for (Waiter w : waiting) {
                        run.add(w.task());
                    }
                    waiting = null;
                }
            }
            runAll(run);
        }

        /** Runs {@code task} once this request was sent more than {@code sends} times or was answered. */
        void whenSentAfter(int sends, Runnable task) {
            synchronized (this) {
                if (!finished && this.sends <= sends) {
                    if (waiting == null) {
                        waiting = new ArrayList<>(1);
                    }
                    waiting.add(new Waiter(sends, task));
                    return;
                }
            }
            task.run();
        }

        private static void runAll(List<Runnable> tasks) {
            if (tasks != null) {
                tasks.forEach(Runnable::run);
            }
        }
    }
}
