package io.volery.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OperationChooserTest {

    /** Requests issued for n window slots: a pair is two requests. */
    static double globalShare(int globalPercent, int slots, long seed) {
        OperationChooser chooser = new OperationChooser(Workload.CREATEDELETE, globalPercent, seed);
        long global = 0;
        long local = 0;
        for (int i = 0; i < slots; i++) {
            if (chooser.next() == OperationChooser.Choice.CREATE_DELETE_PAIR) {
                global += 2;
            } else {
                local++;
            }
        }
        return (double) global / (global + local);
    }

    @ParameterizedTest(name = "{0}% global")
    @ValueSource(ints = {0, 1, 5, 10, 50})
    void globalPercentIsTheShareOfCreateAndDeleteRequests(int percent) {
        double share = globalShare(percent, 400_000, 7);
        assertEquals(percent / 100.0, share, 0.002, "share of create/delete requests for --global-percent " + percent);
    }

    @Test
    void oneHundredPercentGlobalIsOnlyPairs() {
        assertEquals(1.0, globalShare(100, 1000, 3), 0.0, "every slot is a pair");
    }

    @Test
    void theSameSeedGivesTheSameSequence() {
        List<Object> a = new ArrayList<>();
        List<Object> b = new ArrayList<>();
        OperationChooser x = new OperationChooser(Workload.MIXED_READ90, 0, 42);
        OperationChooser y = new OperationChooser(Workload.MIXED_READ90, 0, 42);
        for (int i = 0; i < 1000; i++) {
            a.add(x.next());
            a.add(x.nextIndex(1000));
            b.add(y.next());
            b.add(y.nextIndex(1000));
        }
        assertEquals(a, b, "a run is reproducible from its seed");
    }

    @Test
    void localWorkloadsIssueOnlyTheirOwnRequests() {
        OperationChooser set = new OperationChooser(Workload.SETDATA, 0, 1);
        OperationChooser get = new OperationChooser(Workload.GETDATA, 0, 1);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(OperationChooser.Choice.SET_DATA, set.next(), "setdata slot " + i);
            assertEquals(OperationChooser.Choice.GET_DATA, get.next(), "getdata slot " + i);
        }
    }

    @Test
    void mixedRead90IsNinetyPercentReads() {
        OperationChooser c = new OperationChooser(Workload.MIXED_READ90, 0, 5);
        int reads = 0;
        for (int i = 0; i < 100_000; i++) {
            if (c.next() == OperationChooser.Choice.GET_DATA) {
                reads++;
            }
        }
        assertTrue(Math.abs(reads / 100_000.0 - 0.9) < 0.005, "expected 90% reads, got " + reads / 1000.0 + "%");
    }
}
