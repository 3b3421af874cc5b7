package io.volery.server.backtoback;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real standalone ZooKeeper 3.9.5 server in this JVM, on a free port of 127.0.0.1, with its data in
 * a directory the caller owns. TTL nodes are enabled (zookeeper.extendedTypesEnabled) and the admin
 * HTTP server is off.
 */
public final class EmbeddedZooKeeper extends ZooKeeperServerMain {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    private final int port;
    private final Thread thread;

    /** "user:password" of the operator: its digest is configured as ZooKeeper's super digest. */
    public static final String SUPER_CREDENTIALS = "super:operator";

    public EmbeddedZooKeeper(Path dataDir) throws IOException {
        this(dataDir, "");
    }

    /**
     * The settings ZooKeeper reads once per JVM, as every in-JVM oracle needs them: {@link #SUPER_CREDENTIALS} as its
     * super user (read when its digest provider class initialises, with the first server a JVM starts) and every
     * four-letter word answered (read at the first four-letter word any server of the JVM is asked). Every server a
     * test starts in this JVM calls this first: one started without it (an ensemble) would leave every later oracle
     * without a super user, or with only {@code srvr} answered.
     */
    public static void readOnceSettings() {
        System.setProperty("zookeeper.DigestAuthenticationProvider.superDigest",
                ZnodeTreeDriver.digest(SUPER_CREDENTIALS));
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    }

    /** @param extraConfig more zoo.cfg lines (each ending in a newline), e.g. "maxClientCnxns=3\n" */
    public EmbeddedZooKeeper(Path dataDir, String extraConfig) throws IOException {
        readOnceSettings();
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.extendedTypesEnabled", "true");
        // containers and TTL nodes are reaped by the oracle only when the test asks, never behind its back
        System.setProperty("znode.container.checkIntervalMs", "3600000");
        port = io.eyrie.multicast.LoopbackPorts.free();
        Path config = dataDir.resolve("zoo.cfg");
        Files.writeString(config, "tickTime=2000\ndataDir=" + dataDir.resolve("data") + "\nclientPort=" + port
                + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n" + extraConfig);
        String[] args = {config.toString()};
        thread = new Thread(() -> {
            try {
                initializeAndRun(args);
            } catch (Exception e) {
                LOG.error("embedded ZooKeeper on port {} stopped with an error", port, e);
            }
        }, "embedded-zookeeper-" + port);
        thread.setDaemon(true);
        thread.start();
    }

    public String connectString() {
        return "127.0.0.1:" + port;
    }

    public void stop() throws InterruptedException {
        shutdown();
        thread.join(10_000);
    }
}
