package io.volery.bench;

import io.volery.server.admin.FourLetterWordClient;
import io.volery.server.config.VoleryConfig;
import io.volery.server.internal.PathPartitioner;
import org.apache.zookeeper.client.ConnectStringParser;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code --owner-affinity}: with {@code --client-per-subtree}, client i's session starts at a server of
 * the Volery partition that owns its subtree, so that its requests are answered where they are
 * ordered (the paper's partition-aware clients). Each server says its partition through the {@code conf}
 * four-letter word; a server that does not (ZooKeeper) leaves the placement as without the option.
 */
final class OwnerAffinity {
    private OwnerAffinity() {
    }

    /**
     * For each client index, the index of the server (in the connect string's order) its session starts
     * at; null when the servers do not say their partitions or the partitioning is by hash.
     */
    static int[] firstServers(BenchConfig config) {
        List<InetSocketAddress> servers = new ArrayList<>();
        for (InetSocketAddress a : new ConnectStringParser(config.connect()).getServerAddresses()) {
            servers.add(a);
        }
        Map<Integer, Integer> partitionOf = new TreeMap<>();
        String partitioning = null;
        for (int s = 0; s < servers.size(); s++) {
            Map<String, String> conf = conf(servers.get(s));
            String p = conf.get("volery.partition");
            if (p == null) {
                System.err.println("volery-bench: " + servers.get(s) + " does not say its partition (not Volery, or conf not in "
                        + "4lw.commands.whitelist? it answered: " + conf.get("") + "); --owner-affinity has no effect");
                return null;
            }
            partitionOf.put(s, Integer.parseInt(p.trim()));
            partitioning = conf.getOrDefault("volery.partitioning", "subtree").trim();
        }
        if (!"subtree".equals(partitioning)) {
            System.err.println("volery-bench: partitioning is " + partitioning + ", not by subtree; --owner-affinity has no effect");
            return null;
        }
        int[] ids = new TreeSet<>(partitionOf.values()).stream().mapToInt(Integer::intValue).toArray();
        PathPartitioner partitioner = new PathPartitioner(ids,
                VoleryConfig.Partitioning.valueOf(partitioning.toUpperCase(Locale.ROOT)));
        ZnodeLayout layout = new ZnodeLayout(config.znodes(), config.subtrees());
        int[] first = new int[config.clients()];
        for (int i = 0; i < first.length; i++) {
            int owner = partitioner.ownerOf(layout.subtree(i % config.subtrees()));
            List<Integer> candidates = new ArrayList<>();
            partitionOf.forEach((server, partition) -> {
                if (partition == owner) {
                    candidates.add(server);
                }
            });
            // clients of one subtree take that partition's servers in turn
            first[i] = candidates.get((i / config.subtrees()) % candidates.size());
        }
        return first;
    }

    /** The server's {@code conf} answer as key=value pairs ("" holds the start of the raw answer). */
    private static Map<String, String> conf(InetSocketAddress server) {
        Map<String, String> out = new TreeMap<>();
        try {
            // the connect string parser leaves addresses unresolved
            String answer = FourLetterWordClient.ask(new InetSocketAddress(server.getHostString(), server.getPort()), "conf", 5000);
            out.put("", answer.length() > 200 ? answer.substring(0, 200) : answer);
            for (String line : answer.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    out.put(line.substring(0, eq).trim(), line.substring(eq + 1));
                }
            }
        } catch (java.io.IOException e) {
            System.err.println("volery-bench: cannot ask " + server + " for conf: " + e.getMessage());
        }
        return out;
    }
}
