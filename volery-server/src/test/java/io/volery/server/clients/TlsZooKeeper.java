package io.volery.server.clients;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real ZooKeeper 3.9.5 with a secure client port, in a child JVM (ZooKeeper reads its TLS settings from
 * system properties): Netty, the stores of {@link TlsFiles}, the x509 authentication provider and
 * {@link TlsFiles#ADMIN} as the x509 super user. The oracle of {@link TlsClientPortTest}.
 */
final class TlsZooKeeper implements AutoCloseable {
    private final Process process;
    private final int plainPort;
    private final int securePort;

    private TlsZooKeeper(Process process, int plainPort, int securePort) {
        this.process = process;
        this.plainPort = plainPort;
        this.securePort = securePort;
    }

    /**
     * @param clientAuth      need, want or none
     * @param portUnification whether the plain port accepts TLS too
     */
    static TlsZooKeeper start(Path dir, TlsFiles tls, String clientAuth, boolean portUnification)
            throws IOException, InterruptedException {
        return start(dir, tls, clientAuth, portUnification, List.of());
    }

    /** The same with more {@code -D} settings for the server's JVM. */
    static TlsZooKeeper start(Path dir, TlsFiles tls, String clientAuth, boolean portUnification, List<String> properties)
            throws IOException, InterruptedException {
        return start(dir, tls, clientAuth, portUnification, properties, "");
    }

    /** The same with more lines for zoo.cfg. */
    static TlsZooKeeper start(Path dir, TlsFiles tls, String clientAuth, boolean portUnification, List<String> properties,
                              String extraConfig) throws IOException, InterruptedException {
        int plain = io.eyrie.multicast.LoopbackPorts.free();
        int secure = io.eyrie.multicast.LoopbackPorts.free();
        Files.createDirectories(dir);
        Path cfg = dir.resolve("zoo.cfg");
        Path log = dir.resolve("zookeeper.log");
        Files.writeString(cfg, "tickTime=2000\ndataDir=" + dir.resolve("zk-data") + "\nclientPort=" + plain
                + "\nclientPortAddress=127.0.0.1\nsecureClientPort=" + secure + "\nsecureClientPortAddress=127.0.0.1"
                + "\nadmin.enableServer=false\n" + extraConfig);
        List<String> command = new ArrayList<>(List.of(SaslZooKeeper.JAVA, "-cp", SaslZooKeeper.CLASSPATH,
                "-Dzookeeper.admin.enableServer=false",
                "-Dzookeeper.serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
                "-Dzookeeper.ssl.keyStore.location=" + tls.server(), "-Dzookeeper.ssl.keyStore.password=" + TlsFiles.PASSWORD,
                "-Dzookeeper.ssl.trustStore.location=" + tls.trust(), "-Dzookeeper.ssl.trustStore.password=" + TlsFiles.PASSWORD,
                "-Dzookeeper.ssl.clientAuth=" + clientAuth,
                "-Dzookeeper.client.portUnification=" + portUnification,
                "-Dzookeeper.authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider",
                "-Dzookeeper.X509AuthenticationProvider.superUser=" + TlsFiles.ADMIN,
                "-Dzookeeper.4lw.commands.whitelist=ruok"));
        command.addAll(properties);
        command.addAll(List.of("org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        TlsZooKeeper zookeeper = new TlsZooKeeper(p, plain, secure);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!SaslZooKeeper.listening(plain) || !SaslZooKeeper.listening(secure)) {
            if (System.nanoTime() > deadline || !p.isAlive()) {
                zookeeper.close();
                throw new IllegalStateException("ZooKeeper with TLS did not start; its log:\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
        return zookeeper;
    }

    String plainConnect() {
        return "127.0.0.1:" + plainPort;
    }

    String secureConnect() {
        return "127.0.0.1:" + securePort;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }
}
