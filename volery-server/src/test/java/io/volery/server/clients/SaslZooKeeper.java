package io.volery.server.clients;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real ZooKeeper 3.9.5 with SASL DIGEST-MD5, in a child JVM (its JAAS login configuration is JVM-wide):
 * the users of the {@code Server} section of a JAAS file, the SASL authentication provider, and
 * {@code zookeeper.superUser=admin}. The oracle of the SASL client tests ({@link SaslDigestTest},
 * {@link KazooSaslTest}).
 */
final class SaslZooKeeper implements AutoCloseable {
    static final String CLASSPATH = System.getProperty("java.class.path");
    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    /** ZooKeeper 3.9 turns DIGEST-MD5 off by default (FIPS mode), in its client and its server alike. */
    static final String NO_FIPS = "-Dzookeeper.fips-mode=false";
    static final String MODULE = "org.apache.zookeeper.server.auth.DigestLoginModule required";
    /** The super user's name, for ZooKeeper here and for Volery's {@code sasl.superUsers} in the tests. */
    static final String SUPER_USER = "admin";

    private final Process process;
    private final int port;

    private SaslZooKeeper(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** A JAAS {@code Server} section with these users and passwords. */
    static String serverSection(Map<String, String> passwords) {
        StringBuilder s = new StringBuilder("Server {\n  " + MODULE);
        passwords.forEach((user, password) -> s.append("\n  user_").append(user).append("=\"").append(password).append('"'));
        return s.append(";\n};\n").toString();
    }

    /**
     * Starts ZooKeeper with the users of the {@code Server} section of {@code jaas}, its data and its log
     * ({@code zookeeper.log}) in {@code dir}, and these extra {@code -Dkey=value}s; returns once it listens
     * on 127.0.0.1.
     *
     * @throws IllegalStateException with ZooKeeper's log when it does not listen within a minute
     */
    static SaslZooKeeper start(Path dir, Path jaas, String... systemProperties) throws IOException, InterruptedException {
        return startWith(dir, jaas, "", systemProperties);
    }

    /** @param extraConfig more zoo.cfg lines, each ending in a newline (e.g. "maxClientCnxns=3\n") */
    static SaslZooKeeper startWith(Path dir, Path jaas, String extraConfig, String... systemProperties)
            throws IOException, InterruptedException {
        int port = io.eyrie.multicast.LoopbackPorts.free();
        Files.createDirectories(dir);
        Path cfg = dir.resolve("zoo.cfg");
        Path log = dir.resolve("zookeeper.log");
        Files.writeString(cfg, "tickTime=2000\ndataDir=" + dir.resolve("zk-data") + "\nclientPort=" + port
                + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n" + extraConfig);
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(JAVA, "-cp", CLASSPATH,
                "-Dzookeeper.admin.enableServer=false", NO_FIPS, "-Djava.security.auth.login.config=" + jaas,
                "-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
                "-Dzookeeper.superUser=" + SUPER_USER));
        command.addAll(java.util.List.of(systemProperties));
        command.addAll(java.util.List.of("org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        SaslZooKeeper zookeeper = new SaslZooKeeper(p, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!listening(port)) {
            if (System.nanoTime() > deadline || !p.isAlive()) {
                zookeeper.close();
                throw new IllegalStateException("ZooKeeper with SASL did not start; its log:\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
        return zookeeper;
    }

    int port() {
        return port;
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    /** Whether something accepts connections on 127.0.0.1:{@code port}. */
    static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
