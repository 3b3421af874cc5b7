package io.volery.client;

import io.eyrie.multicast.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a client finds its node in the cluster file, and what it says when it cannot. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RingAccessTest {

    private static int freePort() {
        return io.eyrie.multicast.LoopbackPorts.free();
    }

    /** One replica (node 1, partition 1) and the given client nodes; no server is started. */
    private static ClusterConfig file(int clientNodes) throws IOException {
        StringBuilder b = new StringBuilder("node.1 = 127.0.0.1:" + freePort() + "\nnode.1.groups = 1\n");
        for (int i = 0; i < clientNodes; i++) {
            b.append("node.").append(10 + i).append(" = 127.0.0.1:").append(freePort()).append('\n');
        }
        b.append("ring.1.acceptors = 1\ngroup.1.ring = 1\nring.0.acceptors = 1\nring.all = 0\n");
        return ClusterConfig.parse(b.toString(), "test");
    }

    @Test
    void aFileWithoutClientNodesIsRefusedWithAHowTo() throws Exception {
        IOException e = assertThrows(IOException.class, () -> RingAccess.open(file(0), RingAccess.Options.defaults()));
        assertTrue(e.getMessage().contains("no client node") && e.getMessage().contains("node.N.groups"),
                "the message says what line to add, got: " + e.getMessage());
    }

    @Test
    void aReplicaNodeCannotBeUsedAsAClient() throws Exception {
        IOException e = assertThrows(IOException.class, () -> RingAccess.open(file(1), 1, RingAccess.Options.defaults()));
        assertTrue(e.getMessage().contains("replica"), "got: " + e.getMessage());
        IOException missing = assertThrows(IOException.class,
                () -> RingAccess.open(file(1), 99, RingAccess.Options.defaults()));
        assertTrue(missing.getMessage().contains("no node 99"), "got: " + missing.getMessage());
    }

    @Test
    void eachProcessTakesTheNextFreeClientNodeUntilNoneIsLeft() throws Exception {
        ClusterConfig config = file(2);
        try (RingAccess first = RingAccess.open(config, RingAccess.Options.defaults());
             RingAccess second = RingAccess.open(config, RingAccess.Options.defaults())) {
            assertEquals(10, first.nodeId(), "the first client node");
            assertEquals(11, second.nodeId(), "node 10 is taken, so the next one");
            IOException e = assertThrows(IOException.class, () -> RingAccess.open(config, RingAccess.Options.defaults()));
            assertTrue(e.getMessage().contains("no client node of the cluster file is free"), "got: " + e.getMessage());
        }
    }

    @Test
    void aServerMovedInTheClusterFileIsTakenUpAndAnythingElseIsRefused(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        ClusterConfig config = file(1);
        String text = "node.1 = 127.0.0.1:" + config.node(1).port() + "\nnode.1.groups = 1\nnode.10 = 127.0.0.1:"
                + config.node(10).port() + "\nring.1.acceptors = 1\ngroup.1.ring = 1\nring.0.acceptors = 1\nring.all = 0\n";
        java.nio.file.Path file = dir.resolve("volery.cfg");
        java.nio.file.Files.writeString(file, text);
        try (RingAccess access = RingAccess.open(file, RingAccess.Options.defaults())) {
            int moved = freePort();
            java.nio.file.Files.writeString(file, text.replace(":" + config.node(1).port() + "\n", ":" + moved + "\n"));
            assertEquals(java.util.List.of(1), access.readdress(file));
            assertEquals(moved, access.config().node(1).port());

            java.nio.file.Files.writeString(file, text + "batch.maxMessages = 7\n");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> access.readdress(file));
            assertTrue(e.getMessage().contains("only nodes' addresses may change"), "got: " + e.getMessage());
            assertEquals(moved, access.config().node(1).port(), "a refused file changes nothing");
        }
    }

    @Test
    void optionsOutOfRangeAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RingAccess.Options.defaults().withSessionTimeouts(5_000, 1_000));
        assertTrue(e.getMessage().contains("min <= max"), "got: " + e.getMessage());
    }
}
