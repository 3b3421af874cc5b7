package io.eyrie.transport.dpdk;

import io.eyrie.multicast.MulticastNode;
import io.eyrie.multicast.Transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Makes a node's transport a {@link DpdkTransport} configured by the file named in the system
 * property {@code eyrie.dpdk.config} ({@code {node}} in it becomes the node id, for several nodes in
 * one process); for tools that choose their transport by class name
 * ({@code NodeMain -Deyrie.transport.factory=io.eyrie.transport.dpdk.DpdkTransportFactory}).
 */
public final class DpdkTransportFactory implements Function<MulticastNode, Transport> {

    public static final String CONFIG_PROPERTY = "eyrie.dpdk.config";

    @Override
    public Transport apply(MulticastNode node) {
        String file = System.getProperty(CONFIG_PROPERTY);
        if (file == null) {
            throw new IllegalStateException("set -D" + CONFIG_PROPERTY + "=FILE (the node's DPDK settings)");
        }
        file = file.replace("{node}", String.valueOf(node.nodeId()));
        try {
            return DpdkTransport.factory(DpdkSettings.load(Path.of(file))).apply(node);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read DPDK settings " + file, e);
        }
    }
}
