package io.eyrie.transport.dpdk;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * What one node's DPDK transport needs beyond the cluster file: the EAL arguments (its virtual or
 * real devices) and which port reaches which peers. Addresses (IPv4, UDP port) come from the
 * cluster file's {@code node.ID = host:port} lines; MACs are derived from node ids.
 *
 * <pre>
 * # devices: any EAL arguments, usually --vdev lines
 * eal.args = --vdev=net_memif0,role=server,socket=/run/eyrie/1-2.sock
 * # ports by DPDK device name, in order; each gets its own polling thread
 * ports = net_memif0
 * # node ids a port reaches (default: every other node)
 * port.net_memif0.peers = 2
 * hugepages = false          # true: use the operator's hugepages instead of --no-huge -m 256
 * mtu = 1500                 # IP MTU; larger messages are fragmented
 * queue.messages = 4096      # outbound messages queued per port before send() drops
 * rx.dropPerMillion = 0      # test hook: discard received packets at the device
 * idle.parkMicros = 50       # pause of an idle polling thread (0: spin)
 * stats.logMillis = 0        # log device counters this often (0: never)
 * </pre>
 */
public record DpdkSettings(List<String> extraEalArgs, boolean hugepages, List<Port> ports, int mtu,
                           int queueMessages, int rxDropPerMillion, long idleParkMicros,
                           long statsLogMillis) {

    /** A DPDK device and the node ids reached through it (empty: all other nodes). */
    public record Port(String device, int[] peers) {
        public boolean reaches(int nodeId) {
            return peers.length == 0 || Arrays.stream(peers).anyMatch(p -> p == nodeId);
        }
    }

    private static final Set<String> KEYS = Set.of("eal.args", "hugepages", "ports", "mtu", "queue.messages",
            "rx.dropPerMillion", "idle.parkMicros", "stats.logMillis");

    public DpdkSettings {
        extraEalArgs = List.copyOf(extraEalArgs);
        ports = List.copyOf(ports);
        if (ports.isEmpty()) {
            throw new IllegalArgumentException("no ports: set ports = DEVICE[,DEVICE...] (DPDK device names)");
        }
        if (mtu < 576 || mtu > 9000) {
            throw new IllegalArgumentException("mtu must be in [576, 9000], got " + mtu);
        }
        if (queueMessages < 1) {
            throw new IllegalArgumentException("queue.messages must be positive, got " + queueMessages);
        }
        if (rxDropPerMillion < 0 || rxDropPerMillion > 1_000_000) {
            throw new IllegalArgumentException("rx.dropPerMillion must be in [0, 1000000], got " + rxDropPerMillion);
        }
    }

    /** The full EAL argument list: memory mode first, then the devices. */
    public List<String> ealArgs() {
        List<String> args = new ArrayList<>();
        if (!hugepages) {
            args.addAll(List.of("--no-huge", "-m", "256", "--no-shconf"));
        }
        // A file prefix per process, so several DPDK processes on one machine never share runtime files.
        args.addAll(List.of("--file-prefix=eyrie-" + ProcessHandle.current().pid(), "--no-pci", "--no-telemetry",
                "--log-level=lib.eal:warning"));
        args.addAll(extraEalArgs);
        return args;
    }

    public static DpdkSettings load(Path file) throws IOException {
        return parse(Files.readString(file), file.toString());
    }

    public static DpdkSettings parse(String text, String source) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + source + ": " + e.getMessage(), e);
        }
        Map<String, String> v = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> v.put(k, p.getProperty(k).strip()));
        List<String> devices = v.containsKey("ports") ? Arrays.stream(v.get("ports").split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).toList() : List.of();
        for (String k : v.keySet()) {
            boolean portKey = k.startsWith("port.") && k.endsWith(".peers")
                    && devices.contains(k.substring(5, k.length() - 6));
            if (!KEYS.contains(k) && !portKey) {
                throw new IllegalArgumentException(source + ": unknown key '" + k + "' (keys: " + KEYS
                        + ", port.DEVICE.peers for a device listed in ports)");
            }
        }
        List<Port> ports = new ArrayList<>();
        for (String d : devices) {
            String peers = v.getOrDefault("port." + d + ".peers", "");
            int[] ids = peers.isEmpty() ? new int[0]
                    : Arrays.stream(peers.split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
            ports.add(new Port(d, ids));
        }
        String eal = v.getOrDefault("eal.args", "");
        return new DpdkSettings(eal.isEmpty() ? List.of() : List.of(eal.split("\\s+")),
                Boolean.parseBoolean(v.getOrDefault("hugepages", "false")), ports,
                Integer.parseInt(v.getOrDefault("mtu", "1500")),
                Integer.parseInt(v.getOrDefault("queue.messages", "4096")),
                Integer.parseInt(v.getOrDefault("rx.dropPerMillion", "0")),
                Long.parseLong(v.getOrDefault("idle.parkMicros", "50")),
                Long.parseLong(v.getOrDefault("stats.logMillis", "0")));
    }
}
