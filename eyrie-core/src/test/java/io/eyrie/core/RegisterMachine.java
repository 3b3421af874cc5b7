package io.eyrie.core;

import io.eyrie.multicast.MulticastEndpoint;


import java.util.Set;

/**
 * Registers named by strings; register {@code name} belongs to partition {@code owner(name)}: the
 * partition whose id is the digit after the first letter ("x1", "y2", "a1b" → 1, 2, 1). Commands:
 * <ul>
 *   <li>{@code read r} (dests: owner of r) → value</li>
 *   <li>{@code writeAll v r1 r2 ...} (dests: their owners) → "ok"; a blind write, no remote reads</li>
 *   <li>{@code writeEach v r1 r2 ...}: as writeAll, but each destination runs it without signals
 *       ({@link PartitioningOracle#executesIndependently})</li>
 *   <li>{@code sum r1 r2 ...} (dests: their owners; reads all) → sum</li>
 *   <li>{@code add r delta} → new value</li>
 *   <li>{@code blindWriteAt p r v}: executes at partition p only and calls the {@code @LocalMethodCall} set on r</li>
 *   <li>{@code peekAt p r}: executes at partition p only and calls get() on r (an oracle error if r is remote)</li>
 * </ul>
 */
public class RegisterMachine extends StateMachine {

    public static final class Oracle extends PartitioningOracle {
        @Override
        public Set<Partition> getDestinations(Command c) {
            c.rewind();
            String op = (String) c.getNext();
            Set<Partition> dests = new java.util.TreeSet<>();
            switch (op) {
                case "read", "add" -> dests.add(getPartition(c.getNext()));
                case "writeAll", "writeEach" -> {
                    c.getNext();
                    while (c.hasNext()) {
                        dests.add(getPartition(c.getNext()));
                    }
                }
                case "sum" -> {
                    while (c.hasNext()) {
                        dests.add(getPartition(c.getNext()));
                    }
                }
                case "blindWriteAt", "peekAt" -> dests.add(Partition.get((Integer) c.getNext()));
                default -> throw new IllegalArgumentException("unknown command " + c);
            }
            c.rewind();
            return dests;
        }

        @Override
        public Set<Object> getLocalObjects(Command c) {
            c.rewind();
            Set<Object> ids = new java.util.HashSet<>();
            if ("sum".equals(c.getNext())) {
                while (c.hasNext()) {
                    ids.add(c.getNext());
                }
            }
            c.rewind();
            return ids;
        }

        @Override
        public boolean executesIndependently(Command c) {
            c.rewind();
            boolean each = "writeEach".equals(c.getNext());
            c.rewind();
            return each;
        }

        @Override
        public Partition getPartition(Object objectId) {
            return Partition.get(owner((String) objectId));
        }
    }

    public static int owner(String register) {
        return register.charAt(1) - '0';
    }

    private final int nodeId;

    public RegisterMachine(MulticastEndpoint endpoint) {
        super(endpoint, new Oracle());
        this.nodeId = endpoint.nodeId();
    }

    int nodeIdForTest() {
        return nodeId;
    }

    @Override
    protected PRObject createObject(Object id) {
        return new Register((String) id);
    }

    private Register reg(Object id) {
        return (Register) getObject(id);
    }

    /** Test hook: while set, every command waits for it on this replica (a replica held behind). */
    volatile java.util.concurrent.CountDownLatch hold;

    @Override
    public Object executeCommand(Command c) {
        java.util.concurrent.CountDownLatch h = hold;
        if (h != null) {
            try {
                h.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        String op = (String) c.getNext();
        switch (op) {
            case "read" -> {
                return reg(c.getNext()).get();
            }
            case "writeAll", "writeEach" -> {
                int v = (Integer) c.getNext();
                while (c.hasNext()) {
                    reg(c.getNext()).set(v);
                }
                return "ok";
            }
            case "sum" -> {
                int sum = 0;
                while (c.hasNext()) {
                    sum += reg(c.getNext()).get();
                }
                return sum;
            }
            case "add" -> {
                Register r = reg(c.getNext());
                r.add((Integer) c.getNext());
                return r.get();
            }
            case "blindWriteAt" -> {
                c.getNext();
                reg(c.getNext()).set((Integer) c.getNext());
                return "ok";
            }
            case "peekAt" -> {
                c.getNext();
                return reg(c.getNext()).get();
            }
            default -> throw new IllegalArgumentException("unknown command " + c);
        }
    }

    /**
     * The value this replica holds for {@code id}, read outside any command (0 while it has none).
     * Only looks: {@link #getObject} would create a missing register here, on the test's thread,
     * racing the executor's own creation of it; the loser's register, written by the command, could
     * then be replaced in the map by the test's empty one (seen in CI as a replica that "never"
     * executed a write).
     */
    public int valueOf(String id) {
        PRObject o = getObjects().get(id);
        return o == null ? 0 : ((Register) o).get();
    }

}
