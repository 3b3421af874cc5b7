package io.eyrie.core;

import io.eyrie.core.linearizability.History;
import io.eyrie.core.linearizability.LinearizabilityChecker;
import io.eyrie.core.linearizability.RegistersModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Conservative caching (Section V of the paper): a reader keeps copies of remote objects, and before
 * using one waits for the owner's validation, either "unchanged" (⊥) or the new value. Fewer values
 * travel; no read is ever stale; evicted copies are shipped again.
 */
class ConservativeCachingTest {

    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Result of one run of a read-mostly workload: values shipped in full, and whether every read was fresh. */
    private record Run(long valuesShipped, long validations, long exchanges, int commands) {
    }

    private Run readMostly(boolean caching, int cacheCapacity, String[] registers, long seed) {
        cluster = new SimCluster(2, 2, 1, seed, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(60_000); // no faults here: only first sends, so messages can be compared
            m.setCachingEnabled(caching);
            m.setCacheCapacity(cacheCapacity);
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
        EyrieClient client = cluster.client(0);
        Random random = new Random(seed);
        java.util.Map<String, Integer> model = new java.util.HashMap<>();
        History history = new History();
        int commands = 60;
        for (int i = 0; i < commands; i++) {
            long call = System.nanoTime();
            if (random.nextInt(10) == 0) {
                String r = registers[random.nextInt(registers.length)];
                int delta = 1 + random.nextInt(9);
                Object v = client.execute(new Command("add", r, delta));
                model.merge(r, delta, Integer::sum);
                assertEquals(model.get(r), v, "add to " + r);
                history.add(0, call, System.nanoTime(), List.of("add", r, delta), v);
            } else {
                String a = registers[random.nextInt(registers.length)];
                String b = registers[random.nextInt(registers.length)];
                Object sum = client.execute(new Command("sum", a, b));
                int expected = model.getOrDefault(a, 0) + model.getOrDefault(b, 0);
                assertEquals(expected, sum, "command " + i + ": sum of " + a + " and " + b
                        + (caching ? " with caching on: a stale cached copy was read" : ""));
            }
        }
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        Run run = new Run(cluster.total(s -> s.valuesShipped.get()), cluster.total(s -> s.valuesValidated.get()),
                cluster.total(s -> s.exchangesSent.get()), commands);
        cluster.close();
        cluster = null;
        return run;
    }

    @Test
    void cachingShipsFewerValuesAndNeverReadsAStaleCopy() {
        String[] registers = {"a1", "b1", "c2", "d2"};
        long seed = Long.getLong("sim.firstSeed", 1);
        Run off = readMostly(false, 16, registers, seed);
        Run on = readMostly(true, 16, registers, seed);
        System.out.printf("caching off: %s%ncaching on:  %s%n", off, on);
        assertEquals(0, off.validations(), "without caching every object travels in full");
        assertTrue(on.validations() > 0, "with caching, owners should validate cached copies, got " + on);
        assertTrue(on.valuesShipped() * 3 < off.valuesShipped(),
                "with caching on, expected far fewer values shipped per command than off: on=" + on + " off=" + off);
        assertEquals(off.exchanges(), on.exchanges(),
                "the number of exchange messages is the same: a validation still stands for the signal");
    }

    @Test
    void aCacheTooSmallForTheWorkingSetEvictsAndFetchesAgainWithoutStaleReads() {
        String[] registers = {"a1", "b1", "c1", "d2", "e2", "f2"};
        long seed = Long.getLong("sim.firstSeed", 1) + 1;
        Run tiny = readMostly(true, 1, registers, seed);
        Run roomy = readMostly(true, 8, registers, seed);
        System.out.printf("cache of 1: %s%ncache of 8: %s%n", tiny, roomy);
        assertTrue(tiny.valuesShipped() > roomy.valuesShipped(),
                "a cache of 1 copy per owner must ship more values than one holding the working set: tiny=" + tiny
                        + " roomy=" + roomy);
    }

    @Test
    void cachedReadsStayLinearizableUnderConcurrentWriters() throws Exception {
        cluster = new SimCluster(2, 2, 3, 3, RegisterMachine::new, m -> {
            m.setExchangeTimeoutMillis(50);
            m.setCachingEnabled(true);
            m.setCacheCapacity(2);
        }).withClients(new RegisterMachine.Oracle(), 4, 60_000);
        History history = new History();
        Thread[] threads = new Thread[3];
        for (int c = 0; c < 3; c++) {
            int client = c;
            threads[c] = new Thread(() -> {
                Random r = new Random(client);
                for (int i = 0; i < 15; i++) {
                    long call = System.nanoTime();
                    if (r.nextInt(3) == 0) {
                        String reg = r.nextBoolean() ? "a1" : "b2";
                        int v = 100 * client + i;
                        Object out = cluster.client(client).execute(new Command("writeAll", v, reg));
                        history.add(client, call, System.nanoTime(), List.of("write", reg.equals("a1") ? 0 : 1, v), out);
                    } else {
                        String reg = r.nextBoolean() ? "a1" : "b2";
                        // sum of a register with itself read remotely through the other partition's cache
                        Object out = cluster.client(client).execute(new Command("sum", reg, reg.equals("a1") ? "z2" : "z1"));
                        history.add(client, call, System.nanoTime(), List.of("read", reg.equals("a1") ? 0 : 1), out);
                    }
                }
            });
            threads[c].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        LinearizabilityChecker.Result r = new LinearizabilityChecker().check(new RegistersModel(2), history.operations());
        assertTrue(r.linearizable(), r.explanation());
        assertTrue(cluster.total(s -> s.valuesValidated.get()) > 0, "the cache was used");
    }
}
