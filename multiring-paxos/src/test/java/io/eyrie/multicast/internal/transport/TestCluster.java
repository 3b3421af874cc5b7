package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.ClusterConfig;


/** Cluster files for tests, on 127.0.0.1 ports the OS just reported free. */
final class TestCluster {

    private TestCluster() {
    }

    /** {@code n} distinct ports that were free a moment ago, below the ephemeral range. */
    static int[] freePorts(int n) {
        return io.eyrie.multicast.LoopbackPorts.free(n);
    }

    /** Nodes 1..n at 127.0.0.1:ports[i-1], one ring of them all; {@code extra} lines are appended. */
    static ClusterConfig config(int[] ports, String... extra) {
        StringBuilder text = new StringBuilder();
        StringBuilder acceptors = new StringBuilder();
        for (int i = 0; i < ports.length; i++) {
            text.append("node.").append(i + 1).append(" = 127.0.0.1:").append(ports[i]).append('\n');
            acceptors.append(i == 0 ? "" : ",").append(i + 1);
        }
        text.append("ring.0.acceptors = ").append(acceptors).append('\n');
        text.append("ring.all = 0\n");
        for (String line : extra) {
            text.append(line).append('\n');
        }
        return ClusterConfig.parse(text.toString(), "test cluster");
    }

    /** The cluster-file lines of mutual TLS for a node presenting {@code store}'s certificate and trusting the CA of {@code c}. */
    static String[] tls(io.eyrie.multicast.DevCertificates c, String store, String password) {
        return new String[] {"sslQuorum = true",
                "ssl.quorum.keyStore.location = " + c.store(store),
                "ssl.quorum.keyStore.password = " + password,
                "ssl.quorum.trustStore.location = " + c.trustStore(),
                "ssl.quorum.trustStore.password = " + password};
    }
}
