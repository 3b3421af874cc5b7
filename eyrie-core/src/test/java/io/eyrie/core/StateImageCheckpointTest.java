package io.eyrie.core;

import io.eyrie.multicast.MulticastEndpoint;
import io.eyrie.multicast.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A state machine whose {@link StateMachine#snapshotState} returns a {@link StateImage} has it
 * serialized on the checkpoint writer thread: the replica goes on executing and answering commands
 * while the image is being written, and the file restores to the state at the checkpoint's position.
 */
class StateImageCheckpointTest {

    /** Registers whose checkpoint is an image that waits at {@code release} before it writes anything. */
    static final class HeldImageMachine extends RegisterMachine {
        final CountDownLatch writing;
        final CountDownLatch release;
        /** The register values after each executed command, by position (read by the test thread). */
        final Map<Long, Map<String, Integer>> history = new ConcurrentHashMap<>();
        volatile String writerThread;
        volatile Map<String, Integer> restored;
        private final TreeMap<String, Integer> values = new TreeMap<>();

        HeldImageMachine(MulticastEndpoint endpoint, CountDownLatch writing, CountDownLatch release) {
            super(endpoint);
            this.writing = writing;
            this.release = release;
        }

        @Override
        public Object executeCommand(Command c) {
            Object result = super.executeCommand(c);
            c.rewind();
            c.getNext();
            String register = (String) c.getNext();
            values.put(register, valueOf(register));
            history.put(getCurrentPosition(), new TreeMap<>(values));
            return result;
        }

        @Override
        protected Object snapshotState() {
            // a small state, so a copy will do as the capture; what matters is who serializes it, and when
            Map<String, Integer> captured = new TreeMap<>(values);
            return (StateImage) out -> {
                writerThread = Thread.currentThread().getName();
                writing.countDown();
                awaitOrFail(release, "the test to release the image");
                write(captured, out);
            };
        }

        @Override
        protected void restoreState(Object state) {
            Map<String, Integer> read = read((byte[]) state);
            read.forEach((register, value) -> {
                ((Register) getObject(register)).set(value);
                values.put(register, value);
            });
            restored = read;
        }

        private static void write(Map<String, Integer> state, OutputStream sink) throws IOException {
            DataOutputStream out = new DataOutputStream(sink);
            out.writeInt(state.size());
            for (Map.Entry<String, Integer> e : state.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeInt(e.getValue());
            }
            out.flush();
        }

        private static Map<String, Integer> read(byte[] bytes) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
                Map<String, Integer> out = new TreeMap<>();
                for (int n = in.readInt(); n > 0; n--) {
                    out.put(in.readUTF(), in.readInt());
                }
                return out;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private SimCluster cluster;
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void tearDown() {
        release.countDown();
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Waits for an event that must come; the bound only turns a hang into a failure that says what did not happen. */
    private static void awaitOrFail(CountDownLatch latch, String what) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                fail("gave up waiting for " + what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        }
    }

    /** A command's result; the bound only turns "the replica stopped executing" into a failure rather than a hang. */
    private static Object executeWhileHeld(EyrieClient client, Command c) throws Exception {
        try {
            return client.executeAsync(c).get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return fail("no reply to " + c + " while the checkpoint image is being written: the replica stopped executing");
        }
    }

    @Test
    void theReplicaExecutesCommandsWhileItsImageIsWrittenAndTheFileRestoresTheStateAtItsPosition(@TempDir Path dir)
            throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        cluster = new SimCluster(1, 1, 1, 1, endpoint -> new HeldImageMachine(endpoint, writing, release),
                m -> m.setCheckpointing(dir.resolve("replica"), 3))
                .withClients(new RegisterMachine.Oracle(), 4, 60_000);
        int node = cluster.sim.replicasOf(1)[0];
        HeldImageMachine replica = cluster.replica(node);
        EyrieClient client = cluster.client(0);
        client.execute(new Command("add", "x1", 1));
        client.execute(new Command("add", "y1", 10));
        client.execute(new Command("add", "x1", 2)); // the third delivery: a checkpoint is captured after it

        awaitOrFail(writing, "the checkpoint writer to start writing the image");
        assertNotEquals("eyrie-replica-" + node, replica.writerThread,
                "the image should be serialized off the executor thread");
        long capturedAt = cluster.runtime(node).lastPosition();
        // the image is held: the replica must still execute and answer commands
        assertEquals(103, executeWhileHeld(client, new Command("add", "x1", 100)), "x1 after a command run during the write");
        assertEquals(1010, executeWhileHeld(client, new Command("add", "y1", 1000)), "y1 after a command run during the write");
        assertTrue(cluster.runtime(node).checkpointWritePending(), "the image is still being written");
        assertEquals(Position.NONE, cluster.runtime(node).durableCheckpointPosition(), "no checkpoint durable yet");

        release.countDown();
        SimCluster.awaitTrue("the held checkpoint is on disk",
                () -> cluster.runtime(node).durableCheckpointPosition() != Position.NONE
                        && !cluster.runtime(node).checkpointWritePending());
        long position = cluster.runtime(node).durableCheckpointPosition();
        assertEquals(capturedAt, position, "the checkpoint's position");
        Map<String, Integer> expected = replica.history.get(position);
        assertNotNull(expected, "the state after the command at the checkpoint's position was recorded");
        assertEquals(Map.of("x1", 3, "y1", 10), expected, "state at the checkpoint's position");

        cluster.crash(node);
        HeldImageMachine restarted = (HeldImageMachine) cluster.startReplica(node);
        SimCluster.awaitTrue("the restarted replica restores its checkpoint", () -> restarted.restored != null);
        assertEquals(expected, restarted.restored,
                "what the checkpoint file restores (the state after position " + Position.toString(position) + ")");
        cluster.awaitQuiescent();
        cluster.assertNoReplicaFailed();
        assertEquals(103, restarted.valueOf("x1"), "x1 after replaying the commands that follow the checkpoint");
        assertEquals(1010, restarted.valueOf("y1"), "y1 after replaying the commands that follow the checkpoint");
    }
}
