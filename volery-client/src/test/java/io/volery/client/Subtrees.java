package io.volery.client;

import io.volery.server.internal.PathPartitioner;

import java.util.concurrent.atomic.AtomicInteger;

/** Fresh top-level znode names, each in a chosen partition, so tests never see each other's nodes. */
final class Subtrees {
    private static final AtomicInteger NEXT = new AtomicInteger();
    private final PathPartitioner partitioner;

    Subtrees(int[] partitions) {
        this.partitioner = new PathPartitioner(partitions);
    }

    /** A new "/name" whose subtree partition {@code partition} owns. */
    String in(int partition, String hint) {
        while (true) {
            String path = "/" + hint + "-" + NEXT.incrementAndGet();
            if (partitioner.ownerOf(path) == partition) {
                return path;
            }
        }
    }
}
