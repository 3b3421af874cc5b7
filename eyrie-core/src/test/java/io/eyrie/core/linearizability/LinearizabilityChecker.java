package io.eyrie.core.linearizability;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decides whether a history is linearizable with respect to a sequential model: the algorithm of
 * Wing and Gong, with Lowe's memoization of (set of linearized operations, model state) pairs
 * already explored (the "WGL" checker that Porcupine and Knossos also build on).
 *
 * <p>The history becomes a list of call and return events in time order. The search repeatedly
 * tries to linearize a pending call (apply it to the model and remove its call and return); meeting
 * a return whose operation has not been linearized means the choices so far were wrong, so it
 * backtracks. Equal timestamps are treated as overlapping, which can only accept more histories.
 */
public final class LinearizabilityChecker {

    /** The verdict; when not linearizable, {@code explanation} names the operation no order could fit. */
    public record Result(boolean linearizable, String explanation, long statesExplored) {
    }

    private static final class Entry {
        final int op;
        final boolean isCall;
        final long time;
        Entry match;
        Entry prev;
        Entry next;

        Entry(int op, boolean isCall, long time) {
            this.op = op;
            this.isCall = isCall;
            this.time = time;
        }
    }

    private record Memo(BitSet linearized, Object state) {
    }

    private record Frame(Entry call, Object stateBefore) {
    }

    private final long statesMax;

    public LinearizabilityChecker() {
        this(50_000_000);
    }

    /** @param statesMax bound on memoized states; exceeding it is reported as an error, not a verdict */
    public LinearizabilityChecker(long statesMax) {
        this.statesMax = statesMax;
    }

    public <S> Result check(Model<S> model, List<Operation> history) {
        int n = history.size();
        List<Entry> events = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            Operation o = history.get(i);
            Entry call = new Entry(i, true, o.callNanos());
            Entry ret = new Entry(i, false, o.returnNanos());
            call.match = ret;
            ret.match = call;
            events.add(call);
            events.add(ret);
        }
        // calls before returns at equal times: touching operations count as concurrent
        events.sort(Comparator.<Entry>comparingLong(e -> e.time).thenComparing(e -> e.isCall ? 0 : 1));
        Entry head = new Entry(-1, false, Long.MIN_VALUE);
        Entry last = head;
        for (Entry e : events) {
            last.next = e;
            e.prev = last;
            last = e;
        }

        Set<Memo> explored = new HashSet<>();
        Deque<Frame> stack = new ArrayDeque<>();
        BitSet linearized = new BitSet(n);
        Object state = model.init();
        Entry entry = head.next;
        int deepest = 0;
        String stuckAt = null;
        while (head.next != null) {
            if (entry.isCall) {
                Operation o = history.get(entry.op);
                @SuppressWarnings("unchecked")
                Object next = model.step((S) state, o.input(), o.output());
                if (next != null) {
                    BitSet withOp = (BitSet) linearized.clone();
                    withOp.set(entry.op);
                    if (explored.add(new Memo(withOp, next))) {
                        if (explored.size() > statesMax) {
                            throw new IllegalStateException("linearizability check gave up after " + statesMax
                                    + " states; use a shorter history");
                        }
                        stack.push(new Frame(entry, state));
                        state = next;
                        linearized.set(entry.op);
                        lift(entry);
                        entry = head.next;
                        continue;
                    }
                }
                entry = entry.next;
            } else {
                if (stack.size() >= deepest) {
                    deepest = stack.size();
                    Operation o = history.get(entry.op);
                    stuckAt = "no order fits operation of client " + o.client() + ": "
                            + model.describe(o.input(), o.output()) + " (" + deepest + " of " + n
                            + " operations linearized at best; model state there: " + state + ")";
                }
                if (stack.isEmpty()) {
                    return new Result(false, stuckAt, explored.size());
                }
                Frame f = stack.pop();
                state = f.stateBefore();
                linearized.clear(f.call().op);
                unlift(f.call());
                entry = f.call().next;
            }
        }
        return new Result(true, "linearizable (" + n + " operations)", explored.size());
    }

    private static void lift(Entry call) {
        call.prev.next = call.next;
        if (call.next != null) {
            call.next.prev = call.prev;
        }
        Entry ret = call.match;
        ret.prev.next = ret.next;
        if (ret.next != null) {
            ret.next.prev = ret.prev;
        }
    }

    private static void unlift(Entry call) {
        Entry ret = call.match;
        ret.prev.next = ret;
        if (ret.next != null) {
            ret.next.prev = ret;
        }
        call.prev.next = call;
        if (call.next != null) {
            call.next.prev = call;
        }
    }
}
