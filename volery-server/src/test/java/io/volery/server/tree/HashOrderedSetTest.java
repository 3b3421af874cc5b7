package io.volery.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The orders clients see (getChildren, and a closing session's ephemerals) are those of the JDK
 * HashSets ZooKeeper uses; here the JDK's own HashSet is the oracle for random adds and removes,
 * including names whose hashes collide.
 */
class HashOrderedSetTest {

    /** Names sharing one hash: "Aa" and "BB" hash alike, and so do their concatenations. */
    private static String colliding(int i) {
        StringBuilder b = new StringBuilder("/c/");
        for (int bit = 0; bit < 4; bit++) {
            b.append((i >> bit & 1) == 0 ? "Aa" : "BB");
        }
        return b.toString();
    }

    @Test
    void iteratesLikeTheJdkHashSetItModels() {
        int treeBins = 0;
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            boolean children = random.nextBoolean();
            HashSet<String> oracle = children ? new HashSet<>(8) : new HashSet<>();
            HashOrderedSet model = new HashOrderedSet(children ? HashOrderedSet.CHILDREN_TABLE : HashOrderedSet.DEFAULT_TABLE);
            int steps = random.nextInt(200);
            for (int step = 0; step < steps; step++) {
                String name = random.nextInt(6) == 0 ? colliding(random.nextInt(8))
                        : "/app/n-" + random.nextInt(random.nextBoolean() ? 20 : 500);
                if (random.nextInt(3) == 0) {
                    assertEquals(oracle.remove(name), model.remove(name));
                } else {
                    assertEquals(oracle.add(name), model.add(name));
                }
                if (!model.ordersExactly()) {
                    treeBins++;
                    break;
                }
                String where = "seed " + seed + " step " + step;
                assertEquals(new ArrayList<>(oracle), model.inServerOrder(), where + ": iteration order");
                @SuppressWarnings("unchecked")
                HashSet<String> copy = (HashSet<String>) oracle.clone();
                assertEquals(new ArrayList<>(copy), model.inCopyOrder(), where + ": order of a clone");
            }
        }
        assertEquals(true, treeBins < 150, "most seeds stay where the model is exact, yet " + treeBins
                + " of 300 formed a tree bin");
    }

    @Test
    void restoreKeepsTheOrder() {
        HashOrderedSet set = new HashOrderedSet(HashOrderedSet.CHILDREN_TABLE);
        for (int i = 0; i < 40; i++) {
            set.add("node" + i);
        }
        for (int i = 0; i < 40; i += 3) {
            set.remove("node" + i);
        }
        HashOrderedSet copy = new HashOrderedSet(HashOrderedSet.CHILDREN_TABLE);
        copy.restore(set.inInsertionOrder(), set.table());
        assertEquals(set.inServerOrder(), copy.inServerOrder());
        copy.add("late");
        set.add("late");
        assertEquals(set.inServerOrder(), copy.inServerOrder(), "and keeps behaving alike");
        assertEquals(List.copyOf(set.inInsertionOrder()), copy.inInsertionOrder());
    }
}
