package io.eyrie.multicast;

/**
 * Receives deliveries in position order, on one thread; it must not block for long, since the
 * merge waits for it.
 */
@FunctionalInterface
public interface DeliveryListener {
    void deliver(Delivery delivery);
}
