package io.volery.client;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * ZooKeeper's FIFO promise for one session's requests. Requests to the same single partition are
 * pipelined: one ring orders them in sending order. A request to any other set of partitions waits
 * until the requests before it have been answered, since different rings may order them otherwise.
 */
final class RequestOrder {
    private CompletableFuture<?> tail = CompletableFuture.completedFuture(null);
    private int[] tailDestinations = new int[0];

    /** Sends (through {@code send}) a request to {@code destinations} once the order allows it. */
    synchronized <T> CompletableFuture<T> submit(int[] destinations, Supplier<CompletableFuture<T>> send) {
        boolean pipeline = destinations.length == 1 && Arrays.equals(destinations, tailDestinations);
        CompletableFuture<T> f;
        if (pipeline || tail.isDone()) {
            f = send.get();
        } else {
            f = tail.handle((x, e) -> null).thenCompose(x -> send.get());
        }
        CompletableFuture<?> previous = tail;
        tail = pipeline ? CompletableFuture.allOf(previous, f) : f;
        tailDestinations = destinations;
        return f;
    }
}
