package io.volery.client;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * ZooKeeper's FIFO promise for one session's requests. Requests to the same single partition are
 * pipelined: one ring orders them in sending order, so each only waits until the one before it has
 * been sent. A request to any other set of partitions waits until the requests before it have been
 * answered, since different rings may order them otherwise.
 */
final class RequestOrder {
    /** Completes when every request so far has been answered. */
    private CompletableFuture<?> answered = CompletableFuture.completedFuture(null);
    /** Completes when the latest request has been handed to the multicast. */
    private CompletableFuture<Void> sent = CompletableFuture.completedFuture(null);
    private int[] lastDestinations = new int[0];

    /** Sends (through {@code send}) a request to {@code destinations} once the order allows it. */
    synchronized <T> CompletableFuture<T> submit(int[] destinations, Supplier<CompletableFuture<T>> send) {
        boolean pipeline = destinations.length == 1 && Arrays.equals(destinations, lastDestinations);
        // A pipelined request may go as soon as the one before it went, but not earlier: that one may
        // itself still wait for other partitions' answers.
        CompletableFuture<?> gate = pipeline ? sent : answered;
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<T> reply;
        if (gate.isDone()) {
            reply = sendMarking(send, mine);
        } else {
            reply = gate.handle((x, e) -> null).thenCompose(x -> sendMarking(send, mine));
        }
        answered = pipeline ? CompletableFuture.allOf(answered, reply) : reply;
        sent = mine;
        lastDestinations = destinations;
        return reply;
    }

    private static <T> CompletableFuture<T> sendMarking(Supplier<CompletableFuture<T>> send, CompletableFuture<Void> sent) {
        try {
            return send.get();
        } finally {
            sent.complete(null);
        }
    }
}
