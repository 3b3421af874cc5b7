package io.volery.bench;

/**
 * Where the benchmark's znodes live: {@code znodes} leaves spread round-robin over the top-level
 * subtrees {@code /bench-0 .. /bench-(N-1)}. Top-level subtrees are what Volery partitions by, so
 * the number of subtrees decides how many partitions the local commands reach.
 */
final class ZnodeLayout {

    private final String[] subtreePaths;
    private final String[] znodePaths;

    ZnodeLayout(int znodes, int subtrees) {
        subtreePaths = new String[subtrees];
        for (int s = 0; s < subtrees; s++) {
            subtreePaths[s] = "/bench-" + s;
        }
        znodePaths = new String[znodes];
        for (int i = 0; i < znodes; i++) {
            znodePaths[i] = subtreePaths[i % subtrees] + "/n-" + i;
        }
    }

    int subtreeCount() {
        return subtreePaths.length;
    }

    String subtree(int index) {
        return subtreePaths[index];
    }

    int znodeCount() {
        return znodePaths.length;
    }

    String znode(int index) {
        return znodePaths[index];
    }

    /**
     * A path no pre-created znode uses, for a create/delete pair: unique per run, client and counter,
     * so leftovers of an interrupted run cannot make a later run's creates fail. It sits directly
     * under the root, because that is what makes the pair a global command in Volery: the root's
     * children are kept by every partition, so such a create or delete goes to all of them (the
     * paper's create/delete), while one inside a subtree would stay in its partition. The subtree
     * index only spreads the names.
     */
    String pairPath(int subtreeIndex, String runTag, int clientIndex, long counter) {
        return "/pair-" + subtreeIndex + "-" + runTag + "-" + clientIndex + "-" + counter;
    }
}
