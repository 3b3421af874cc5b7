package io.eyrie.multicast.internal.protocol;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.PrimitiveIterator;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SeenSeqsTest {

    /** The set as a sorted TreeSet would hold it: the specification SeenSeqs must match. */
    private static List<Long> contents(SeenSeqs s) {
        List<Long> out = new ArrayList<>();
        for (PrimitiveIterator.OfLong it = s.iterator(); it.hasNext(); ) {
            out.add(it.nextLong());
        }
        return out;
    }

    @Test
    void behavesLikeASortedSetWithAFloor_withinAndBeyondTheBitmap() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int run = 0; run < 200; run++) {
            SeenSeqs s = new SeenSeqs();
            TreeSet<Long> model = new TreeSet<>();
            long floor = 0;
            // Mostly near the floor (the proposers' bound), sometimes far beyond the bitmap.
            int spread = run % 4 == 0 ? 3 * SeenSeqs.WINDOW : SeenSeqs.WINDOW / 2;
            for (int step = 0; step < 400; step++) {
                if (rnd.nextInt(5) == 0) {
                    long newFloor = floor + rnd.nextInt(run % 3 == 0 ? 2 * SeenSeqs.WINDOW : 64);
                    s.raiseFloor(newFloor);
                    if (newFloor > floor) {
                        floor = newFloor;
                        model.headSet(floor).clear();
                    }
                } else {
                    long seq = Math.max(0, floor - 8 + rnd.nextInt(spread));
                    boolean expected = seq >= floor && model.add(seq);
                    assertEquals(expected, s.add(seq), "run " + run + " step " + step + ": add(" + seq
                            + ") with floor " + floor);
                }
                assertEquals(model.size(), s.size(), "run " + run + " step " + step + ": size");
            }
            assertEquals(new ArrayList<>(model), contents(s), "run " + run + ": contents in ascending order");
            assertEquals(floor, s.floor());
        }
    }
}
