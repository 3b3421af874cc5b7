package io.eyrie.multicast.internal.protocol;

import org.junit.jupiter.api.Test;

class DebugSeedTest {
    static String dump(Object o) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String name : new String[] {"inFlight", "queue", "reproposals", "retryAtMillis", "phase1Replies"}) {
            var f = o.getClass().getDeclaredField(name);
            f.setAccessible(true);
            Object v = f.get(o);
            if (v instanceof java.util.Map<?, ?> mm) v = mm.keySet();
            if (v instanceof java.util.Collection<?> cc) v = cc.size() + ":" + cc;
            sb.append(name).append('=').append(v).append(' ');
        }
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    @Test
    void debug() throws Exception {
        String s = System.getProperty("debug.seed");
        if (s == null) return;
        Simulation sim = new Simulation(Long.parseLong(s), NodeProtocol.Faults.NONE, true);
        try {
            sim.run();
        } catch (AssertionError e) {
            System.out.println(e.getMessage());
        }
        for (String t : sim.trace()) System.out.println(t);
        for (var n : sim.nodes.values()) {
            if (n.up()) {
                var f = NodeProtocol.class.getDeclaredField("merger");
                f.setAccessible(true);
                Merger m = (Merger) f.get(n.proto);
                for (int r : m.ringIds()) {
                    var st = m.stream(r);
                    System.out.println("node " + n.id + " ring " + r + " next " + st.nextInstance + " skip " + st.pendingSkipSlots + " consumed " + st.slotsConsumed + " buffered " + st.buffered.keySet());
                }
                var cf = NodeProtocol.class.getDeclaredField("coordinators");
                cf.setAccessible(true);
                var cs = (java.util.Map<Integer, RingCoordinator>) cf.get(n.proto);
                for (var e : cs.entrySet()) {
                    var c = e.getValue();
                    System.out.println("node " + n.id + " coord ring " + e.getKey() + " " + c.phase() + " ballot " + c.ballot() + " next " + c.nextInstance() + " " + dump(c));
                }
                var af = NodeProtocol.class.getDeclaredField("acceptors");
                af.setAccessible(true);
                var as = (java.util.Map<Integer, RingAcceptor>) af.get(n.proto);
                for (var e : as.entrySet()) {
                    var a = e.getValue();
                    System.out.println("node " + n.id + " acceptor ring " + e.getKey() + " promised " + a.promisedBallot() + " lowest " + a.lowestInstance() + " firstUndecided " + a.firstUndecided() + " highest " + a.highestInstance());
                }
                var bo = m.blockedOn();
                System.out.println("  blocked on " + (bo == null ? null : bo.ringId));
            }
        }
    }
}
