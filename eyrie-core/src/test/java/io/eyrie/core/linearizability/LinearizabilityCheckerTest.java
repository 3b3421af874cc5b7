package io.eyrie.core.linearizability;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checker must reject what no sequential order explains and accept what one does. */
class LinearizabilityCheckerTest {

    private final LinearizabilityChecker checker = new LinearizabilityChecker();
    private final RegistersModel oneRegister = new RegistersModel(1);

    private static List<Object> write(int v) {
        return List.of("write", 0, v);
    }

    private static List<Object> read() {
        return List.of("read", 0);
    }

    private void assertLinearizable(Model<?> model, List<Operation> h) {
        LinearizabilityChecker.Result r = checker.check(model, h);
        assertTrue(r.linearizable(), "expected linearizable, checker said: " + r.explanation() + "\nhistory: " + h);
    }

    private void assertNotLinearizable(Model<?> model, List<Operation> h) {
        LinearizabilityChecker.Result r = checker.check(model, h);
        assertFalse(r.linearizable(), "expected NOT linearizable, checker accepted history: " + h);
    }

    @Test
    void acceptsSequentialHistory() {
        assertLinearizable(oneRegister, List.of(
                new Operation(1, 0, 1, write(1), "ok"),
                new Operation(2, 2, 3, read(), 1),
                new Operation(1, 4, 5, write(2), "ok"),
                new Operation(2, 6, 7, read(), 2)));
    }

    @Test
    void acceptsReadOfEitherValueWhileWriteIsInFlight() {
        for (int seen : new int[] {0, 1}) {
            assertLinearizable(oneRegister, List.of(
                    new Operation(1, 0, 10, write(1), "ok"),
                    new Operation(2, 2, 3, read(), seen)));
        }
    }

    @Test
    void acceptsReadsOrderedAgainstTheirCallOrderWhenOverlapping() {
        // two overlapping writes; reads after both see the one linearized last, which may be the first called
        assertLinearizable(oneRegister, List.of(
                new Operation(1, 0, 10, write(1), "ok"),
                new Operation(2, 1, 9, write(2), "ok"),
                new Operation(3, 11, 12, read(), 1)));
    }

    @Test
    void rejectsStaleReadAfterWriteCompleted() {
        assertNotLinearizable(oneRegister, List.of(
                new Operation(1, 0, 1, write(1), "ok"),
                new Operation(2, 2, 3, read(), 0)));
    }

    @Test
    void rejectsValueNeverWritten() {
        assertNotLinearizable(oneRegister, List.of(
                new Operation(1, 0, 5, write(1), "ok"),
                new Operation(2, 1, 6, read(), 7)));
    }

    @Test
    void rejectsNewThenOldInversion() {
        // during a write, one read sees the new value and a later read (after the first returned) the old one
        assertNotLinearizable(oneRegister, List.of(
                new Operation(1, 0, 100, write(1), "ok"),
                new Operation(2, 10, 20, read(), 1),
                new Operation(3, 30, 40, read(), 0)));
    }

    @Test
    void rejectsTheFigureOneHistory() {
        // Cxy writes x and y and completes; Cy, invoked after that, still reads the old y
        RegistersModel xy = new RegistersModel(2);
        assertNotLinearizable(xy, List.of(
                new Operation(1, 0, 10, List.of("read", 0), 0),
                new Operation(2, 20, 30, List.of("writeAll", 1), "ok"),
                new Operation(3, 40, 50, List.of("read", 1), 0)));
    }

    @Test
    void pendingOperationMayOrMayNotHaveTakenEffect() {
        for (int seen : new int[] {0, 1}) {
            assertLinearizable(oneRegister, List.of(
                    Operation.pending(1, 0, write(1)),
                    new Operation(2, 5, 6, read(), seen)));
        }
        assertNotLinearizable(oneRegister, List.of(
                Operation.pending(1, 0, write(1)),
                new Operation(2, 5, 6, read(), 1),
                new Operation(3, 7, 8, read(), 0)));
    }

    @Test
    void rejectsOverdraftThatABankCouldNotHaveAllowed() {
        BankModel bank = new BankModel(2, 10);
        assertNotLinearizable(bank, List.of(
                new Operation(1, 0, 1, List.of("transfer", 0, 1, 8L), true),
                new Operation(2, 2, 3, List.of("transfer", 0, 1, 8L), true)));
        assertLinearizable(bank, List.of(
                new Operation(1, 0, 5, List.of("transfer", 0, 1, 8L), true),
                new Operation(2, 1, 6, List.of("transfer", 0, 1, 8L), false),
                new Operation(3, 7, 8, List.of("balance", 1), 18L)));
    }

    /** Histories made by a real atomic register (each operation takes effect at an instant inside its interval). */
    @Test
    void acceptsEveryHistoryOfAnAtomicRegister() {
        Random random = new Random(Long.getLong("sim.firstSeed", 1));
        for (int round = 0; round < 200; round++) {
            List<Operation> h = atomicHistory(random, 4, 12);
            assertLinearizable(oneRegister, h);
        }
    }

    /** The same histories with one completed read changed to a value written by no one are rejected. */
    @Test
    void rejectsEveryAtomicHistoryWithAnInventedRead() {
        Random random = new Random(Long.getLong("sim.firstSeed", 1) + 1);
        int mutated = 0;
        for (int round = 0; round < 200; round++) {
            List<Operation> h = new ArrayList<>(atomicHistory(random, 4, 12));
            for (int i = 0; i < h.size(); i++) {
                Operation o = h.get(i);
                if (((List<?>) o.input()).get(0).equals("read")) {
                    h.set(i, new Operation(o.client(), o.callNanos(), o.returnNanos(), o.input(), -1));
                    assertNotLinearizable(oneRegister, h);
                    mutated++;
                    break;
                }
            }
        }
        assertTrue(mutated > 100, "expected most random histories to contain a read, got " + mutated);
    }

    private static List<Operation> atomicHistory(Random random, int clients, int opsPerClient) {
        // each client issues operations one after another; the effect instant is uniform inside the interval
        record Planned(int client, long call, long ret, long at, boolean isWrite, int value) {
        }
        List<Planned> planned = new ArrayList<>();
        int nextValue = 1;
        for (int c = 0; c < clients; c++) {
            long t = random.nextInt(5);
            for (int i = 0; i < opsPerClient; i++) {
                long call = t + random.nextInt(3);
                long ret = call + 1 + random.nextInt(20);
                long at = call + random.nextInt((int) (ret - call));
                boolean isWrite = random.nextBoolean();
                planned.add(new Planned(c, call, ret, at, isWrite, isWrite ? nextValue++ : 0));
                t = ret + 1;
            }
        }
        planned.sort((a, b) -> Long.compare(a.at, b.at) != 0 ? Long.compare(a.at, b.at) : Integer.compare(a.client, b.client));
        int register = 0;
        List<Operation> h = new ArrayList<>();
        for (Planned p : planned) {
            if (p.isWrite) {
                register = p.value;
                h.add(new Operation(p.client, p.call * 2, p.ret * 2 + 1, List.of("write", 0, p.value), "ok"));
            } else {
                h.add(new Operation(p.client, p.call * 2, p.ret * 2 + 1, List.of("read", 0), register));
            }
        }
        return h;
    }
}
