package io.volery.server;

import io.eyrie.multicast.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code volery status --config FILE} against a running cluster described by that file. */
class StatusCommandTest {

    @Test
    void statusShowsEachNodesRolePartitionRingsAndPositionAndMarksANodeThatIsDown(@TempDir Path dir) throws Exception {
        try (VoleryCluster cluster = new VoleryCluster(2, 2, 0, 2000)) {
            int deadPort = io.eyrie.multicast.LoopbackPorts.free();
            Path cfg = dir.resolve("volery.cfg");
            Files.writeString(cfg, describe(cluster, deadPort));
            StringWriter out = new StringWriter();
            CommandLine cl = VoleryMain.commandLine();
            cl.setOut(new PrintWriter(out));
            int status = cl.execute("status", "--config", cfg.toString(), "--timeout", "5000");

            List<String> rows = out.toString().lines().skip(1).toList();
            assertEquals(5, rows.size(), "a row per node:\n" + out);
            Pattern row = Pattern.compile("^(\\d+)\\s+(\\d+)\\s+(leader|follower)\\s+127\\.0\\.0\\.1:(\\d+)\\s+(\\S+)\\s+(ring .*)$");
            int leaders = 0;
            for (int i = 0; i < 4; i++) {
                Matcher m = row.matcher(rows.get(i));
                assertTrue(m.matches(), "a row with node, partition, role, address, position, rings: '" + rows.get(i) + "'");
                VoleryNode n = cluster.nodes().get(i);
                assertEquals(String.valueOf(n.nodeId()), m.group(1));
                assertEquals(String.valueOf(n.monitor().facts().partition()), m.group(2));
                assertEquals(String.valueOf(n.clientAddress().getPort()), m.group(4));
                assertTrue(m.group(6).contains("ring 0: ") && m.group(6).contains("ring " + m.group(2) + ": "),
                        "the ALL ring and the partition's ring: " + m.group(6));
                leaders += m.group(3).equals("leader") ? 1 : 0;
            }
            assertEquals(2, leaders, "one leader per partition:\n" + out);
            assertTrue(rows.get(4).matches("^5\\s+1\\s+-\\s+127\\.0\\.0\\.1:" + deadPort + "\\s+unreachable: .*"),
                    "the node that is down: '" + rows.get(4) + "'");
            assertEquals(3, status, "exit status when a node is unreachable");
        }
    }

    /** The cluster's ring layout with the client ports, plus a fifth node that is not running. */
    private static String describe(VoleryCluster cluster, int deadPort) {
        ClusterConfig c = cluster.config();
        StringBuilder b = new StringBuilder();
        for (ClusterConfig.Node n : c.nodes().values()) {
            b.append("node.").append(n.id()).append(" = ").append(n.host()).append(':').append(n.port()).append('\n');
            b.append("node.").append(n.id()).append(".groups = ").append(n.groups()[0]).append('\n');
            b.append("node.").append(n.id()).append(".clientPort = ")
                    .append(cluster.nodes().get(n.id() - 1).clientAddress().getPort()).append('\n');
        }
        b.append("node.5 = 127.0.0.1:1\nnode.5.groups = 1\nnode.5.clientPort = ").append(deadPort).append('\n');
        for (Map.Entry<Integer, ClusterConfig.Ring> r : c.rings().entrySet()) {
            StringJoiner j = new StringJoiner(",");
            for (int a : r.getValue().acceptors()) {
                j.add(String.valueOf(a));
            }
            b.append("ring.").append(r.getKey()).append(".acceptors = ").append(j).append('\n');
        }
        c.groupToRing().forEach((g, r) -> b.append("group.").append(g).append(".ring = ").append(r).append('\n'));
        b.append("ring.all = ").append(c.allRingId()).append('\n');
        return b.toString();
    }
}
