package io.eyrie.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Only commands create objects. {@link StateMachine#getObject} creates a missing object through {@link
 * StateMachine#createObject}; called from another thread while the replica runs, it raced the executor
 * creating the same object, and the command's write could land in the object the other thread's put then
 * replaced (session 18's CI failure came from a test helper doing this). Now it throws instead, and
 * reading an existing object, or the map, from outside stays possible.
 */
class ObjectsOutsideCommandsTest {

    private static final int X = 1;
    private SimCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aThreadOutsideCommandsReadsExistingObjectsButCannotCreateOne() throws Exception {
        cluster = new SimCluster(2, 2, 1, 1, RegisterMachine::new, m -> { }).withClients(new RegisterMachine.Oracle(), 8, 60_000);
        assertEquals(5, cluster.client(0).execute(new Command("add", "x1", 5)));
        int x = cluster.sim.replicasOf(X)[0];
        RegisterMachine replica = (RegisterMachine) cluster.replica(x);
        SimCluster.awaitTrue("replica " + x + " ran the add", () -> replica.valueOf("x1") == 5);

        assertNotNull(replica.getObject("x1"), "an existing object is read from any thread");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> replica.getObject("z1"));
        assertTrue(e.getMessage().contains("outside a command"), e.getMessage());
        assertFalse(replica.getObjects().containsKey("z1"), "nothing was created");

        // a command still creates it, and every replica agrees
        assertEquals(7, cluster.client(0).execute(new Command("add", "z1", 7)));
        SimCluster.awaitTrue("replica " + x + " ran the second add", () -> replica.valueOf("z1") == 7);
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
    }

    @Test
    void beforeTheReplicaRunsGetObjectCreatesAsBefore() {
        AtomicReference<RegisterMachine> made = new AtomicReference<>();
        cluster = new SimCluster(1, 1, 1, 1, endpoint -> {
            RegisterMachine m = new RegisterMachine(endpoint);
            // set up before runStateMachine: the executor does not run yet, so this thread may create
            assertNotNull(m.getObject("x1"));
            made.set(m);
            return m;
        }, m -> { });
        assertTrue(made.get().getObjects().containsKey("x1"));
    }
}
