package io.eyrie.transport.dpdk;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private Ethernet segment for tests: one network namespace per node, each holding one end of a
 * veth pair whose other end sits on a bridge in a hub namespace. Nothing touches the host's own
 * interfaces; closing deletes the namespaces and with them every interface created here.
 */
final class NetnsLan implements AutoCloseable {
    private final String tag;
    private final int nodes;
    private final List<String> namespaces = new ArrayList<>();

    NetnsLan(int nodes) throws IOException, InterruptedException {
        this.nodes = nodes;
        this.tag = Long.toString(ProcessHandle.current().pid() % 100_000, 36);
        String hub = "eyd-hub-" + tag;
        try {
            run("ip", "netns", "add", hub);
            namespaces.add(hub);
            run("ip", "-n", hub, "link", "add", "br0", "type", "bridge");
            run("ip", "-n", hub, "link", "set", "br0", "up");
            for (int i = 1; i <= nodes; i++) {
                String ns = namespace(i);
                run("ip", "netns", "add", ns);
                namespaces.add(ns);
                // Created inside the node's namespace, so the host never sees either end.
                run("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", "p" + i, "netns", hub);
                run("ip", "-n", ns, "link", "set", "eth0", "address", Endpoint.macText(i), "up");
                run("ip", "-n", hub, "link", "set", "p" + i, "master", "br0", "up");
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Whether this machine lets a test create namespaces (root, iproute2). */
    static boolean available() {
        try {
            Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && ProcessHandle.current().info().user()
                    .map("root"::equals).orElse(false);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    String namespace(int node) {
        return "eyd-n" + node + "-" + tag;
    }

    /** Command prefix that runs a process inside node {@code node}'s namespace. */
    List<String> prefix(int node) {
        return List.of("ip", "netns", "exec", namespace(node));
    }

    /** DPDK settings for node {@code node}: af_packet on the namespace's eth0. */
    static String afPacket(String extra) {
        return "eal.args = --vdev=net_af_packet0,iface=eth0,qpairs=1\nports = net_af_packet0\n" + extra;
    }

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            try {
                run("ip", "netns", "del", namespaces.get(i));
            } catch (IOException e) {
                System.err.println("cleanup: " + e.getMessage());
            }
        }
        namespaces.clear();
    }
}
