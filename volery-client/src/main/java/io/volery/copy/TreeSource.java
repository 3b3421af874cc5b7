package io.volery.copy;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Where a copy reads znodes from: a live server, or a ZooKeeper data directory. */
interface TreeSource extends AutoCloseable {

    /**
     * The nodes at these paths, in the same order; an element is null when that node does not exist (it
     * went away between listing and reading).
     */
    CompletableFuture<List<SourceNode>> read(List<String> paths);

    /** Whether container and TTL nodes are told apart from persistent ones. */
    boolean knowsNodeKinds();

    /** For messages: where the nodes come from. */
    String describe();

    @Override
    void close();
}
