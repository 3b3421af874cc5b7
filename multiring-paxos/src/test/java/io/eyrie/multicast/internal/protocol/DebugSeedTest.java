package io.eyrie.multicast.internal.protocol;

import org.junit.jupiter.api.Test;

class DebugSeedTest {
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
                var bo = m.blockedOn();
                System.out.println("  blocked on " + (bo == null ? null : bo.ringId));
            }
        }
    }
}
